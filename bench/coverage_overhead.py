"""What coverage adds to a check: the test check with and without coverage, interleaved.

    python bench/coverage_overhead.py [--repeat 7] [--modules 40] [--tests 25]

Two suites, each in its own workspace with a project ``.venv`` made as a run makes it (pytest and
coverage seeded from orch-tui's own, no network):

- the demo: ``core/demo/expected`` (wordstats and its tests), what ``orch-tui core/demo/spec.md``
  builds;
- a generated suite: ``--modules`` modules of small functions, each with ``--tests`` tests.

Each repetition runs the checks the way the engine does (``core.checks.trial.run_measured``:
the project's environment, the JUnit report; unsandboxed, so that the check's CPU time is
counted) in rotating order:
without coverage; with coverage as shipped (the runner's plugin switching a context per test,
the data read back into a map; coverage's sysmon core on Python 3.12 and later); the same with
coverage's C tracer (as before sysmon; on 3.11 the same as shipped); as the earlier baseline,
coverage's own ``dynamic_context = test_function`` under ``coverage run``; and, as the C
tracer's floor, ``coverage run`` with no contexts at all. Run it with the Python to measure
(a venv of that version with orch-tui installed).
Printed per suite: the medians of the test check's own time (the process, start to exit), of
the whole call (preparation, the run, reading the data) and of the CPU time of the check's
processes (steadier than the clock on a busy machine), and their ratios to the run without
coverage.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from orch_tui.core.checks import coverage_env  # noqa: E402
from orch_tui.core.checks.coverage_map import RUNNER_NAME, CoverageMap, under_coverage  # noqa: E402
from orch_tui.core.checks.trial import run_measured  # noqa: E402
from orch_tui.core.config.models import Config  # noqa: E402

DEMO = Path(__file__).resolve().parent.parent / "core" / "demo" / "expected"


def generated_suite(root: Path, modules: int, tests: int) -> None:
    """``modules`` modules of ``tests`` functions each, and a test file per module."""
    (root / "tests").mkdir(parents=True)
    for m in range(modules):
        body = "".join(
            f"def f{n}(x):\n    if x > {n}:\n        return x * {n}\n    return x + {n}\n\n\n"
            for n in range(tests)
        )
        (root / f"mod{m}.py").write_text(body)
        checks = "".join(
            f"def test_f{n}():\n    assert mod{m}.f{n}({n + 1}) == {(n + 1) * n}\n"
            f"    assert mod{m}.f{n}(0) == {n}\n\n\n"
            for n in range(tests)
        )
        (root / "tests" / f"test_mod{m}.py").write_text(f"import mod{m}\n\n\n{checks}")


def function_contexts(command: list[str], config: Path) -> list[str] | None:
    """The earlier way: ``coverage run`` with ``dynamic_context = test_function``."""
    with config.open("a") as settings:
        settings.write("dynamic_context = test_function\n")
    return [command[0], "-m", "coverage", "run", f"--rcfile={config}", *command[1:]]


def c_tracer(command: list[str], config: Path) -> list[str] | None:
    """The runner as shipped but for the tracer: coverage's C tracer, as before sysmon was used
    on Python 3.12 and later (the same as "shipped" on 3.11)."""
    wrapped = under_coverage(command, config)
    runner = config.with_name(RUNNER_NAME)
    source = runner.read_text()
    runner.write_text(
        source.replace("sysmon = sysmon_usable(", "sysmon = False and sysmon_usable(")
    )
    return wrapped


def no_contexts(command: list[str], config: Path) -> list[str] | None:
    """The floor: ``coverage run`` with no contexts at all (which test ran a line: unknown)."""
    return [command[0], "-m", "coverage", "run", f"--rcfile={config}", *command[1:]]


WAYS = {
    "none": None,
    "shipped": under_coverage,
    "C tracer": c_tracer,
    "test_function": function_contexts,
    "no contexts": no_contexts,
}


def children_cpu() -> float:
    """CPU seconds (user + system) of every finished child process so far: the check's
    processes, whatever else the machine is doing."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def one_run(config: Config, workspace: Path, way: str) -> tuple[float, float, float]:
    """(the test check's own seconds, the whole call's seconds, its processes' CPU seconds)."""
    wrap = WAYS[way]
    measure = wrap is not None
    if wrap is not None:
        coverage_env.under_coverage = wrap
    with tempfile.TemporaryDirectory() as reports:
        start, cpu = time.perf_counter(), children_cpu()
        measured = run_measured(config, workspace, Path(reports), measure=measure)
        whole, cpu = time.perf_counter() - start, children_cpu() - cpu
    tests = measured.report.checks[0]
    if not tests.passed:
        raise SystemExit(f"the suite in {workspace} failed: {tests.error or tests.output[-2000:]}")
    if measure and not isinstance(measured.coverage, CoverageMap):
        raise SystemExit(f"coverage was not measured: {measured.coverage}")
    return tests.duration_s, whole, cpu


def bench(name: str, workspace: Path, repeat: int) -> None:
    config = Config()
    config.checks.extra = []  # the test check alone: ruff's time is not coverage's business
    config.checks.env_allow = ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"]
    config.checks.sandbox = "none"  # bwrap's PID namespace hides the tests' CPU from getrusage
    one_run(config, workspace, "shipped")  # makes the .venv, warms the disk cache
    ways = list(WAYS)
    samples: dict[str, list[tuple[float, float, float]]] = {way: [] for way in ways}
    for index in range(repeat):
        for way in ways[index % len(ways) :] + ways[: index % len(ways)]:
            samples[way].append(one_run(config, workspace, way))
    print(f"{name}: {repeat} interleaved rounds")
    base_own, base_whole, base_cpu = (
        statistics.median(sample[i] for sample in samples["none"]) for i in range(3)
    )
    for way in ways:
        own = [sample[0] for sample in samples[way]]
        whole = statistics.median(sample[1] for sample in samples[way])
        cpu = statistics.median(sample[2] for sample in samples[way])
        print(f"  {way:<13} own {statistics.median(own):.3f} s (min {min(own):.3f}, max"
              f" {max(own):.3f}) -> {statistics.median(own) / base_own:.2f}x;"
              f" whole call {whole:.3f} s -> {whole / base_whole:.2f}x;"
              f" CPU {cpu:.3f} s -> {cpu / base_cpu:.2f}x")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--modules", type=int, default=40)
    parser.add_argument("--tests", type=int, default=25)
    args = parser.parse_args()
    os.environ.setdefault("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    print(f"Python {sys.version.split()[0]}; load average {os.getloadavg()[0]:.1f}"
          f" on {os.cpu_count()} cores")  # fmt: skip
    with tempfile.TemporaryDirectory() as tmp:
        demo = Path(tmp) / "demo"
        shutil.copytree(DEMO, demo)
        bench("demo (core/demo/expected)", demo, args.repeat)
        suite = Path(tmp) / "generated"
        generated_suite(suite, args.modules, args.tests)
        bench(f"generated ({args.modules} modules x {args.tests} tests)", suite, args.repeat)
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
