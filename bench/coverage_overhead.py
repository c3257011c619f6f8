"""What coverage adds to a check: the test check with and without coverage, interleaved.

    python bench/coverage_overhead.py [--repeat 7] [--modules 40] [--tests 25]

Two suites, each in its own workspace with a project ``.venv`` made as a run makes it (pytest and
coverage seeded from orch-tui's own, no network):

- the demo: ``core/demo/expected`` (wordstats and its tests), what ``orch-tui core/demo/spec.md``
  builds;
- a generated suite: ``--modules`` modules of small functions, each with ``--tests`` tests.

Each repetition runs the checks the way the engine does (``core.checks.trial.run_measured``:
the project's environment, the sandbox, the JUnit report), once with coverage (a context per
test, the data read back into a map) and once without, in alternating order. Printed per
suite: the medians of the test check's own time (the process, start to exit) and of the whole
call (preparation, the run, reading the data), and their ratios with / without.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from orch_tui.core.checks.coverage_map import CoverageMap  # noqa: E402
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


def one_run(config: Config, workspace: Path, measure: bool) -> tuple[float, float]:
    """(the test check's own seconds, the whole call's seconds)."""
    with tempfile.TemporaryDirectory() as reports:
        start = time.perf_counter()
        measured = run_measured(config, workspace, Path(reports), measure=measure)
        whole = time.perf_counter() - start
    tests = measured.report.checks[0]
    if not tests.passed:
        raise SystemExit(f"the suite in {workspace} failed: {tests.error or tests.output[-2000:]}")
    if measure and not isinstance(measured.coverage, CoverageMap):
        raise SystemExit(f"coverage was not measured: {measured.coverage}")
    return tests.duration_s, whole


def bench(name: str, workspace: Path, repeat: int) -> None:
    config = Config()
    config.checks.extra = []  # the test check alone: ruff's time is not coverage's business
    config.checks.env_allow = ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"]
    one_run(config, workspace, True)  # makes the .venv, warms the disk cache
    samples: dict[bool, list[tuple[float, float]]] = {True: [], False: []}
    for index in range(repeat):
        for measure in (True, False) if index % 2 else (False, True):
            samples[measure].append(one_run(config, workspace, measure))
    own = {m: statistics.median(t for t, _ in s) for m, s in samples.items()}
    whole = {m: statistics.median(w for _, w in s) for m, s in samples.items()}
    print(f"{name}: {repeat} interleaved pairs")
    print(f"  test check's own time: {own[False]:.3f} s without, {own[True]:.3f} s with coverage"
          f" -> {own[True] / own[False]:.2f}x")  # fmt: skip
    print(f"  whole call:            {whole[False]:.3f} s without, {whole[True]:.3f} s with"
          f" -> {whole[True] / whole[False]:.2f}x")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--modules", type=int, default=40)
    parser.add_argument("--tests", type=int, default=25)
    args = parser.parse_args()
    os.environ.setdefault("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
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
