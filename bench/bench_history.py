"""Times the history browser at 1,000 to 100,000 runs (run by hand, not by the test suite).

    python bench/bench_history.py [--data /tmp/orch-history-bench] [--sizes 1000,10000,100000]
                                  [--repeat 5] [--no-tmux] [--build NAME=EXECUTABLE]

Synthetic run folders are made once into ``--data`` and reused (100,000 take minutes):
``full-10000/project/logs`` holds 10,000 written runs (``synthetic_runs.write_synthetic_runs``),
``clones-N/logs`` N runs cloned from 100 written ones (``write_cloned_runs``: each its own
run.json, spec.md and events.jsonl, attempt folders linked), ``empty/project`` no runs.

Prints:

* core, for each size of cloned runs: the index rebuilt from the logs, the list with a fresh
  index, the list after one run changed, the list in another order (its first page), and one
  filter keystroke (two queries typed key by key, each counted and its first page read), in wall and CPU
  ms, and per 1,000 runs: a per-1,000 figure that holds still as the size grows is linear
  growth;
* the installed ``orch-tui history`` in tmux (a control-mode client polls the screen):
  launch to the 10,000-run list on screen against launch to the empty history on screen,
  interleaved, as a ratio of medians; and a filter keystroke, key sent to the filtered list
  on screen, over the 10,000 written runs.

``--build before=/tmp/old/bin/orch-tui`` (repeatable) runs another orch-tui executable in turn
with the installed one in every repetition, so two builds are compared within one run, each
over its own copy of the projects (``build_logs.own_project``: the logs hard-linked, its own
index), so builds of any index versions run in turn.

Targets at 10,000 runs: launch ratio <= 1.3, keystroke < 50 ms, rebuild < 2 s, and cost per
run that does not grow to 100,000 runs.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.build_logs import own_project  # noqa: E402
from bench.synthetic_runs import write_cloned_runs, write_synthetic_runs  # noqa: E402
from orch_tui.core.history.index import build_index  # noqa: E402
from orch_tui.core.history.index_db import INDEX_NAME  # noqa: E402
from orch_tui.core.history.run_query import RunView  # noqa: E402
from orch_tui.core.runlog import layout as runlog  # noqa: E402

FULL_RUNS = 10_000
QUERY = "tag0042"
"""Typed key by key into the filter: tag, tag0, ..., each prefix matches ten times fewer."""
SHARE_QUERY = "csvtool"
"""Typed key by key in core: each prefix matches the same share of the runs at every size
(a spec name), where :data:`QUERY`'s prefixes match a share that depends on the size."""
SIZE = (160, 50)


# -- data -------------------------------------------------------------------------------------


def made_once(folder: Path, make: Callable[[], object]) -> Path:
    """``folder``, made by ``make`` unless an earlier run finished making it."""
    done = folder / ".made"
    if not done.exists():
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
        start = time.perf_counter()
        make()
        print(f"made {folder} in {time.perf_counter() - start:.0f} s", flush=True)
        done.touch()
    return folder


def full_project(data: Path) -> Path:
    root = data / f"full-{FULL_RUNS}"
    made_once(root, lambda: write_synthetic_runs(root / "project" / "logs", FULL_RUNS))
    return root / "project"


def small_project(data: Path) -> Path:
    """A screenful of runs: the baseline draws as many rows as the 10,000-run list."""
    root = data / "full-100"
    made_once(root, lambda: write_synthetic_runs(root / "project" / "logs", 100))
    return root / "project"


def cloned_logs(data: Path, count: int) -> Path:
    root = data / f"clones-{count}"
    made_once(root, lambda: write_cloned_runs(root / "logs", count))
    return root / "logs"


# -- core -------------------------------------------------------------------------------------


def clock(action: Callable[[], object]) -> tuple[float, float]:
    """(wall, CPU) ms of one call."""
    wall, cpu = time.perf_counter(), time.process_time()
    action()
    return (time.perf_counter() - wall) * 1000, (time.process_time() - cpu) * 1000


def median_clock(action: Callable[[], object], repeat: int) -> tuple[float, float]:
    samples = [clock(action) for _ in range(repeat)]
    return statistics.median(s[0] for s in samples), statistics.median(s[1] for s in samples)


def core_timings(logs: Path, repeat: int) -> dict[str, tuple[float, float]]:
    def rebuild() -> None:
        (logs / INDEX_NAME).unlink(missing_ok=True)
        build_index(logs)

    index = build_index(logs)
    changed = logs / RunView(index)[len(index) // 2].run_id / runlog.EVENTS

    def one_changed() -> None:
        with changed.open("a") as handle:
            handle.write(json.dumps({"event": "notice", "at": "2026-01-01T00:00:00Z"}) + "\n")
        build_index(logs)

    def prepared() -> RunView:
        """The list in another order, its first page read, as the screen makes one per sort
        order."""
        view = RunView(index, "cost", True)
        view[0]
        return view

    def typed(query: str) -> tuple[float, float]:
        """The query typed key by key, each key a view of the index (made as the clock
        starts): wall and CPU ms per key."""

        def keys() -> object:
            """Each key's view: counted, and its first page read, as the screen shows it."""
            return [RunView(index, query=query[:end])[:40] for end in range(1, len(query) + 1)]

        samples = [clock(keys) for _ in range(repeat)]
        return (
            statistics.median(wall for wall, _cpu in samples) / len(query),
            statistics.median(cpu for _wall, cpu in samples) / len(query),
        )

    timings = {"index rebuilt": median_clock(rebuild, repeat)}
    timings["list, fresh index"] = median_clock(lambda: build_index(logs), repeat)
    timings["list, one run changed"] = median_clock(one_changed, repeat)
    timings["another order (a sort)"] = median_clock(prepared, repeat)
    timings[f"keystroke, '{QUERY}'"] = typed(QUERY)
    timings[f"keystroke, '{SHARE_QUERY}'"] = typed(SHARE_QUERY)
    return timings


def bench_core(data: Path, sizes: list[int], repeat: int) -> None:
    print(f"core over cloned runs: wall / CPU ms (per 1,000 runs), median of {repeat}")
    print("  load average at the start: {:.1f} {:.1f} {:.1f}".format(*os.getloadavg()))
    results = {size: core_timings(cloned_logs(data, size), repeat) for size in sizes}
    labels = list(results[sizes[0]])
    print(f"  {'':<26}" + "".join(f"{f'{size:,} runs':>36}" for size in sizes))
    for label in labels:
        cells = []
        for size in sizes:
            wall, cpu = results[size][label]
            per = 1000 / size
            cells.append(f"{wall:9.2f} /{cpu:9.2f} ({wall * per:7.3f}/{cpu * per:7.3f})")
        print(f"  {label:<26}" + "".join(f"{cell:>36}" for cell in cells))
    first = sizes[0]
    for size in sizes[1:]:
        growth = [
            results[size][label][1] / size / (results[first][label][1] / first) for label in labels
        ]
        said = ", ".join(
            f"{label} {value:.2f}" for label, value in zip(labels, growth, strict=True)
        )
        print(f"  CPU per run at {size:,} ÷ at {first:,}: {said}")
    print("  load average at the end: {:.1f} {:.1f} {:.1f}".format(*os.getloadavg()))


# -- the installed orch-tui in tmux -------------------------------------------------------------


class TmuxControl:
    """A tmux server of its own, driven through one control-mode client: each poll of the
    screen is a line written to a pipe, not a new ``tmux`` process."""

    def __init__(self) -> None:
        self.socket = f"orch-bench-{uuid.uuid4().hex[:12]}"
        self.env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
        width, height = SIZE
        self._tmux("new-session", "-d", "-s", "bench", "-x", str(width), "-y", str(height))
        self._tmux("set-option", "-g", "remain-on-exit", "on")
        self.client = subprocess.Popen(
            [
                "tmux",
                "-L",
                self.socket,
                "-C",
                "attach",
                "-t",
                "bench",
                "-f",
                "ignore-size,no-output",
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=self.env,
        )
        self.command("refresh-client")  # the attach's own reply comes first

    def _tmux(self, *args: str) -> None:
        subprocess.run(
            ["tmux", "-L", self.socket, "-f", "/dev/null", *args], env=self.env, check=True
        )

    def command(self, line: str) -> list[str]:
        """The reply to one tmux command (notifications between replies are skipped)."""
        assert self.client.stdin is not None and self.client.stdout is not None
        self.client.stdin.write(line + "\n")
        self.client.stdin.flush()
        reply: list[str] | None = None
        for raw in self.client.stdout:
            text = raw.rstrip("\n")
            if reply is None:
                if text.startswith("%begin"):
                    reply = []
            elif text.startswith(("%end", "%error")):
                return reply
            else:
                reply.append(text)
        raise RuntimeError("the tmux control client went away")

    def screen(self) -> list[str]:
        return self.command("capture-pane -p -t bench")

    def until(self, done: Callable[[list[str]], bool], timeout: float = 120) -> float:
        """Poll the screen until ``done(lines)``; returns when that was seen (perf_counter)."""
        deadline = time.perf_counter() + timeout
        while True:
            lines = self.screen()
            seen = time.perf_counter()
            if done(lines):
                return seen
            if seen > deadline:
                raise AssertionError("timed out; the screen:\n" + "\n".join(lines))

    def launch(self, folder: Path, command: str) -> float:
        """Start ``command`` in ``folder`` in the pane; returns when it was sent."""
        start = time.perf_counter()
        self.command(
            f"respawn-pane -k -t bench -c {shlex.quote(str(folder))} {shlex.quote(command)}"
        )
        return start

    def keys(self, *keys: str, literal: bool = False) -> float:
        start = time.perf_counter()
        flag = " -l" if literal else ""
        self.command(f"send-keys -t bench{flag} " + " ".join(shlex.quote(key) for key in keys))
        return start

    def wait_exit(self) -> None:
        deadline = time.perf_counter() + 60
        while self.command("display-message -p -t bench '#{pane_dead}'") != ["1"]:
            if time.perf_counter() > deadline:
                raise AssertionError("orch-tui did not exit")
            time.sleep(0.02)

    def close(self) -> None:
        self.client.kill()
        self.client.wait()
        subprocess.run(["tmux", "-L", self.socket, "kill-server"], env=self.env, check=False)


def _has(*texts: str) -> Callable[[list[str]], bool]:
    return lambda lines: all(any(text in line for line in lines) for text in texts)


def _list_shown(count: int) -> Callable[[list[str]], bool]:
    """The title counts ``count`` runs and the first rows are painted under the header."""
    states = ("SUCCESS", "FAILED", "REVIEWING")
    return lambda lines: (
        _has(f"{count:,} runs", "Stop reason")(lines)
        and any(state in line for line in lines for state in states)
    )


def bench_launch(
    tmux: TmuxControl, full: Path, empty: Path, repeat: int, builds: dict[str, str]
) -> None:
    """Launch to list visible, 10,000 runs against an empty history, interleaved; each build
    (name -> orch-tui executable) in turn within every repetition."""
    samples: dict[tuple[str, str], list[float]] = {}
    build_index(full / "logs")  # the index as a launch after the first finds it
    cases = [(build, which) for build in builds for which in ("empty", "full")]
    for rep in range(repeat):
        shift = rep % len(cases)
        for build, which in cases[shift:] + cases[:shift]:
            own = full if build == "orch-tui" else own_project(full, build)
            folder, shown = (
                (empty, _has("no runs in")) if which == "empty" else (own, _list_shown(FULL_RUNS))
            )
            start = tmux.launch(folder, f"{shlex.quote(builds[build])} history")
            samples.setdefault((build, which), []).append((tmux.until(shown) - start) * 1000)
            tmux.keys("q")
            tmux.wait_exit()
    print(f"orch-tui history in tmux, launch to list on screen, median of {repeat} interleaved:")
    for build in builds:
        empty_s, full_s = samples[(build, "empty")], samples[(build, "full")]
        empty_ms, full_ms = statistics.median(empty_s), statistics.median(full_s)
        print(f"  {build}: empty history {empty_ms:7.0f} ms   {FULL_RUNS:,} runs {full_ms:7.0f} ms")
        print(f"  {build}: ratio {full_ms / empty_ms:.2f}x (target <= 1.3x)")
        print(f"    samples empty {[round(s) for s in empty_s]}")
        print(f"    samples full  {[round(s) for s in full_s]}")


def type_query(
    tmux: TmuxControl, project: Path, executable: str, runs_of: Path | None = None
) -> list[float]:
    """Launch on ``project``, type :data:`QUERY` into the filter key by key, quit; the ms from
    each key sent to the filtered list on screen: the filter line shows what was typed and
    the title counts what it matches (the count core's search gives, over ``runs_of``: the
    project ``project`` copies, so that this build's index is not made in another's copy)."""
    index = build_index((runs_of or project) / "logs")
    total = len(index)
    titles = []
    for end in range(1, len(QUERY) + 1):
        count = len(RunView(index, query=QUERY[:end]))
        titles.append(f"{total:,} runs" if count == total else f"{count:,} of {total:,} run")
    tmux.launch(project, f"{shlex.quote(executable)} history")
    tmux.until(_list_shown(total))
    tmux.keys("/")
    tmux.until(_has("filter: spec name"))
    latencies = []
    for end, title in enumerate(titles, start=1):
        typed = QUERY[:end]

        def shown(lines: list[str], typed: str = typed, title: str = title) -> bool:
            top = next((n for n, line in enumerate(lines) if "Run history" in line), None)
            counting = f"counting… of {total:,}"  # a common word's first page: counted later
            if top is None or len(lines) <= top + 2:
                return False
            if title not in lines[top] and counting not in lines[top]:
                return False
            filter_line = lines[top + 2]  # under the input's top border
            return typed in filter_line and "filter: spec name" not in filter_line

        start = tmux.keys(typed[-1], literal=True)
        latencies.append((tmux.until(shown) - start) * 1000)
    tmux.keys("Escape")  # the filter had the keys: escape clears it, then q quits
    tmux.until(_has(f"Run history · {total:,} runs"))
    tmux.keys("q")
    tmux.wait_exit()
    return latencies


def bench_keystrokes(
    tmux: TmuxControl, full: Path, small: Path, repeat: int, builds: dict[str, str]
) -> None:
    """Filter keystrokes over 10,000 runs, interleaved with the same over 100 runs; each build
    in turn within every repetition."""
    samples: dict[tuple[str, Path], list[float]] = {}
    cases = [(build, project) for build in builds for project in (full, small)]
    for rep in range(repeat):
        shift = rep % len(cases)
        for build, project in cases[shift:] + cases[:shift]:
            own = project if build == "orch-tui" else own_project(project, build)
            typed = type_query(tmux, own, builds[build], runs_of=project)
            samples.setdefault((build, project), []).extend(typed)
    print(f"filter keystroke in tmux, key sent to filtered list on screen, '{QUERY}' typed")
    print(f"key by key {repeat} times, interleaved (target < 50 ms at {FULL_RUNS:,} runs):")
    for build in builds:
        for project, label in ((full, f"{FULL_RUNS:,} runs"), (small, "100 runs")):
            latencies = samples[(build, project)]
            print(
                f"  {build}: {label:>11}: median {statistics.median(latencies):5.0f} ms, "
                f"max {max(latencies):5.0f} ms  {[round(s) for s in latencies]}"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--data", type=Path, default=Path("/tmp/orch-history-bench"))
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--no-tmux", action="store_true")
    parser.add_argument("--no-core", action="store_true")
    parser.add_argument("--no-launch", action="store_true")
    parser.add_argument(
        "--build",
        action="append",
        default=[],
        metavar="NAME=EXECUTABLE",
        help="another orch-tui executable, run in turn with the installed one (repeatable)",
    )
    args = parser.parse_args()
    sizes = [int(size) for size in args.sizes.split(",")]
    if not args.no_core:
        bench_core(args.data, sizes, args.repeat)
    if args.no_tmux:
        return
    if shutil.which("tmux") is None or shutil.which("orch-tui") is None:
        print("tmux or the installed orch-tui is missing: no terminal timings")
        return
    full = full_project(args.data)
    empty = args.data / "empty" / "project"
    empty.mkdir(parents=True, exist_ok=True)
    builds = {"orch-tui": "orch-tui", **dict(build.split("=", 1) for build in args.build)}
    for build, executable in list(builds.items())[1:]:  # each build's index made, untimed
        for project in (full, small_project(args.data)):
            own = own_project(project, build)
            subprocess.run([executable, "history"], cwd=own, stdout=subprocess.DEVNULL, check=True)
    tmux = TmuxControl()
    try:
        if not args.no_launch:
            bench_launch(tmux, full, empty, args.repeat, builds)
        bench_keystrokes(tmux, full, small_project(args.data), args.repeat, builds)
    finally:
        tmux.close()


if __name__ == "__main__":
    main()
