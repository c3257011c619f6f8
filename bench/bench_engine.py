"""Engine overhead per attempt, `--auto`'s fixed cost per run, `--help` (run by hand, not a test).

    python bench/bench_engine.py [--runs 15] [--attempts 6] [--auto-runs 9] [--build NAME=EXE]

Each run drives the real engine through the real Anthropic SDK against the
local fake Messages API server (no latency) for N attempts. The engine's own
time per attempt is the attempt's wall time minus the time spent inside the
model provider (SDK + HTTP + the fake server), minus the checks' processes (each
check's own duration as its report records it: start to exit) and minus the evidence's
scratch runs (``gather``, wall time: pytest again in the sandbox); everything else, the
persistence (fsyncs), applying, the report's parsing and the events, is the engine's.
Medians over runs; the machine is noisy, so compare ratios: every run is followed by the
same run with fsync a no-op (what the engine costs without durability), and both medians
are printed, with the fsyncs per attempt and the waits for them (fsyncs issued together
wait once).

`--auto`'s fixed cost per run (issue 26, item 6): the installed `orch-tui core/demo/spec.md
--auto` in a fresh folder with no API key (the scripted provider replays the demo), each run
followed by `orch-tui --version` (the interpreter's and the command line's own start, as a
reference); from the process's start to the first model request (the first `model_turn`
event: the scripted provider answers at once) plus from the last event to the process's exit.
``--build before=/path/to/orch-tui`` (repeatable; another build installed in a venv of its own
with ``pip install .``) runs that build's same run in every round, the order rotating, and
prints the ratio of the medians and of each round's pair.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from orch_tui.core.config.models import Config  # noqa: E402
from orch_tui.core.config.paths import ProjectPaths  # noqa: E402
from orch_tui.core.domain.events import EventBus, StateChanged  # noqa: E402
from orch_tui.core.domain.spec import read_spec  # noqa: E402
from orch_tui.core.loop import checks_step, evidence_step  # noqa: E402
from orch_tui.core.loop.engine import Engine, RunOptions  # noqa: E402
from orch_tui.core.loop.review import AcceptAllReviewer  # noqa: E402
from orch_tui.core.providers.anthropic import AnthropicProvider  # noqa: E402
from orch_tui.core.util import atomic  # noqa: E402
from tests.support.fake_anthropic import FakeAnthropic, Turn  # noqa: E402


def script(attempts: int) -> list[Turn]:
    items: list[Turn] = []
    last = f"pkg/module_{attempts - 1}.py"
    for number in range(attempts):
        body = "".join(f"line {i} of attempt {number}\n" for i in range(200))
        # Each attempt adds a test that fails until the last attempt's module exists: the
        # failing tests differ after every attempt (no early "no progress" stop), all pass last.
        test = (
            "from pathlib import Path\n\n\n"
            f"def test_attempt_{number}():\n"
            f"    assert (Path(__file__).parents[1] / {last!r}).exists()\n"
        )
        edits = [
            ("create", f"pkg/module_{number}.py", body),
            ("create", f"tests/test_attempt_{number}.py", test),
            ("view", "/workspace"),
        ]
        items += [Turn.edits(f"attempt {number}", edits), Turn.say("done")]
    return items


class Timed:
    """Adds up the time spent inside a callable, wall and this thread's CPU."""

    def __init__(self, function):
        self.function = function
        self.seconds = 0.0
        self.cpu = 0.0

    def __call__(self, *args, **kwargs):
        started, cpu = time.perf_counter(), time.thread_time()
        try:
            return self.function(*args, **kwargs)
        finally:
            self.seconds += time.perf_counter() - started
            self.cpu += time.thread_time() - cpu


class ChecksTimed:
    """Adds up the checks' own durations (process start to exit) from their reports, and this
    thread's CPU in the whole call (starting the process, reading its output and report)."""

    def __init__(self, function):
        self.function = function
        self.seconds = 0.0
        self.cpu = 0.0

    def __call__(self, *args, **kwargs):
        cpu = time.thread_time()
        measured = self.function(*args, **kwargs)
        self.cpu += time.thread_time() - cpu
        self.seconds += sum(check.duration_s for check in measured.report.checks)
        return measured


class FsyncCounter:
    """Counts fsyncs and the waits for them: fsyncs issued together are one wait."""

    def __init__(self) -> None:
        self.fsyncs = 0
        self.waits = 0
        self.enabled = True

    def install(self) -> None:
        real_fsync, real_together, real_dir = os.fsync, atomic.fsync_together, atomic.fsync_dir

        def fsync(fd: int) -> None:
            self.fsyncs += 1
            if self.enabled:
                real_fsync(fd)

        def together(files, folders) -> None:
            files, folders = list(files), list(folders)
            self.waits += bool(files or folders)
            real_together(files, folders)

        def folder_only(folder) -> None:
            self.waits += 1
            real_dir(folder)

        os.fsync = fsync
        atomic.fsync_together = together
        atomic.fsync_dir = folder_only


def one_run(attempts: int) -> list[tuple[float, float, float]]:
    """The engine's own time of each attempt: wall, the engine thread's CPU, and the part of
    that CPU spent inside the checks' call."""
    folder = Path(tempfile.mkdtemp(prefix="orch-bench-"))
    try:
        (folder / "spec.md").write_text("# bench\n\nWrite modules.\n")
        config = Config()
        config.checks.env_allow = ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"]
        # This interpreter runs the checks: the project's .venv is made once per project
        # (about 0.5 s, on the first check), which is set-up, not the engine's time per attempt.
        config.checks.python = sys.executable
        os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
        with FakeAnthropic(script(attempts)) as server:
            os.environ["ANTHROPIC_BASE_URL"] = server.url
            os.environ["ANTHROPIC_API_KEY"] = "test-key"
            provider = AnthropicProvider(max_retries=0)
            model_time = Timed(provider.complete)
            provider.complete = model_time  # type: ignore[method-assign]
            checks_time = ChecksTimed(checks_step.run_measured)
            checks_step.run_measured = checks_time
            # The evidence's scratch runs (pytest again in the sandbox) are checks too.
            evidence_time = Timed(evidence_step.gather)
            evidence_step.gather = evidence_time
            marks: list[tuple[float, ...]] = []

            def on_state(event) -> None:
                if isinstance(event, StateChanged) and event.state in (
                    "PATCHING",
                    "SUCCESS",
                    "FAILED",
                ):
                    marks.append(
                        (
                            time.perf_counter(),
                            model_time.seconds,
                            checks_time.seconds + evidence_time.seconds,
                            time.thread_time(),
                            model_time.cpu,
                            checks_time.cpu,
                        )
                    )

            bus = EventBus()
            bus.subscribe(on_state)
            engine = Engine(
                paths=ProjectPaths(folder),
                config=config,
                spec=read_spec(folder / "spec.md"),
                provider=provider,
                reviewer=AcceptAllReviewer(),
                bus=bus,
                options=RunOptions(max_retries=attempts),
            )
            start = (time.perf_counter(), 0.0, 0.0, time.thread_time(), 0.0, 0.0)
            code = engine.run()
            assert code == 0, (code, engine.state.state, engine.state.stop_reason)
            checks_step.run_measured = checks_time.function
            evidence_step.gather = evidence_time.function
        overheads = []
        previous = start
        for mark in marks:
            wall = mark[0] - previous[0]
            cpu = mark[3] - previous[3] - (mark[4] - previous[4])
            in_checks = mark[5] - previous[5]
            overheads.append(
                (wall - (mark[1] - previous[1]) - (mark[2] - previous[2]), cpu, in_checks)
            )
            previous = mark
        return overheads
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def help_time(runs: int) -> list[float]:
    binary = shutil.which("orch-tui")
    command = (
        [binary, "--help"]
        if binary
        else [sys.executable, "-m", "orch_tui.tui.cli.commands", "--help"]
    )
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run(command, check=True, capture_output=True, cwd=ROOT)
        times.append(time.perf_counter() - started)
    return times


def auto_fixed_cost(runs: int, builds: dict[str, str]) -> None:
    """Start to the first model request, and the last event to exit, of the demo's ``--auto``;
    each build in ``builds`` (name: executable) in the same rounds, the order rotating."""
    binary = shutil.which("orch-tui")
    if binary is None:
        print("orch-tui is not on PATH: --auto's fixed cost is not measured")
        return
    executables = {"orch-tui": binary} | builds
    fixed: dict[str, list[float]] = {name: [] for name in executables}
    parts: dict[str, list[tuple[float, float]]] = {name: [] for name in executables}
    version: list[float] = []
    load = os.getloadavg()[0]
    names = list(executables)
    for number in range(runs + 1):  # the first is a warm-up: page cache, .pyc files
        shift = number % len(names)
        for name in names[shift:] + names[:shift]:
            to_request, to_exit = one_auto_run(executables[name])
            if number:
                fixed[name].append((to_request + to_exit) * 1000)
                parts[name].append((to_request * 1000, to_exit * 1000))
        started_v = time.perf_counter()
        subprocess.run([binary, "--version"], check=True, capture_output=True)
        if number:
            version.append(time.perf_counter() - started_v)
    for name in names:
        times = sorted(fixed[name])
        print(
            f"--auto fixed cost per run, {name}: median {statistics.median(times):.0f} ms "
            f"({times[0]:.0f}-{times[-1]:.0f}) over {runs} runs (target <= 100 ms): start to the "
            f"first model request {statistics.median(p[0] for p in parts[name]):.0f} ms, last "
            f"event to exit {statistics.median(p[1] for p in parts[name]):.0f} ms"
        )
    for name in names[1:]:
        ratios = sorted(a / b for a, b in zip(fixed["orch-tui"], fixed[name], strict=True))
        ours, theirs = statistics.median(fixed["orch-tui"]), statistics.median(fixed[name])
        print(
            f"this build / {name}: {ours / theirs:.2f}x of the medians; per round "
            f"{statistics.median(ratios):.2f}x ({ratios[0]:.2f}-{ratios[-1]:.2f})"
        )
    print(
        f"orch-tui --version in the same rounds {statistics.median(version) * 1000:.0f} ms; "
        f"load average {load:.1f} before, {os.getloadavg()[0]:.1f} after"
    )


def one_auto_run(binary: str) -> tuple[float, float]:
    """One ``--auto`` run of the demo: seconds from start to the first model request, and from
    the last event to the exit."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
    env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    folder = Path(tempfile.mkdtemp(prefix="orch-bench-auto-"))
    try:
        started = time.time()
        subprocess.run(
            [binary, str(ROOT / "core" / "demo" / "spec.md"), "--auto"],
            cwd=folder, env=env, check=True, capture_output=True,
        )  # fmt: skip
        ended = time.time()
        (run_dir,) = (p for p in (folder / "logs").iterdir() if p.name[0].isdigit())
        events = [json.loads(line) for line in (run_dir / "events.jsonl").open()]
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    first = next(event for event in events if event["event"] == "model_turn")
    return event_time(first) - started, ended - event_time(events[-1])


def event_time(event: dict[str, object]) -> float:
    return datetime.fromisoformat(str(event["at"]).replace("Z", "+00:00")).timestamp()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--attempts", type=int, default=6)
    parser.add_argument("--auto-runs", type=int, default=9)
    parser.add_argument("--only-auto", action="store_true", help="only --auto's fixed cost")
    parser.add_argument(
        "--build", action="append", default=[], metavar="NAME=EXECUTABLE",
        help="another build's orch-tui, run in the same rounds as --auto's fixed cost",
    )  # fmt: skip
    args = parser.parse_args()
    if args.auto_runs:
        auto_fixed_cost(args.auto_runs, dict(build.split("=", 1) for build in args.build))
    if args.only_auto:
        return
    counter = FsyncCounter()
    counter.install()
    one_run(2)  # warm-up: SDK import, first-time caches
    per_attempt: list[tuple[float, float, float]] = []
    no_fsync: list[tuple[float, float, float]] = []
    counted = [0, 0, 0]  # fsyncs, waits, attempts
    for _ in range(args.runs):
        before = (counter.fsyncs, counter.waits)
        per_attempt += one_run(args.attempts)
        counted[0] += counter.fsyncs - before[0]
        counted[1] += counter.waits - before[1]
        counted[2] += args.attempts
        counter.enabled = False
        no_fsync += one_run(args.attempts)
        counter.enabled = True
    ms = sorted(wall * 1000 for wall, _cpu, _in_checks in per_attempt)
    floor = statistics.median(wall for wall, _cpu, _in_checks in no_fsync) * 1000
    cpu = statistics.median(cpu for _wall, cpu, _in_checks in per_attempt) * 1000
    in_checks = statistics.median(in_checks for _wall, _cpu, in_checks in per_attempt) * 1000
    median = statistics.median(ms)
    print(
        f"engine overhead per attempt: median {median:.1f} ms, "
        f"p90 {ms[int(len(ms) * 0.9)]:.1f} ms over {len(ms)} attempts (target <= 15 ms); "
        f"{counted[0] / counted[2]:.1f} fsyncs per attempt in {counted[1] / counted[2]:.1f} waits; "
        f"with fsync a no-op: {floor:.1f} ms ({median / floor:.2f}x); "
        f"the engine thread's CPU: {cpu:.1f} ms, {in_checks:.1f} ms of it inside the checks' call"
    )
    helps = sorted(t * 1000 for t in help_time(15))
    print(
        f"orch-tui --help wall time: median {statistics.median(helps):.0f} ms, "
        f"min {helps[0]:.0f} ms over {len(helps)} runs"
    )


if __name__ == "__main__":
    main()
