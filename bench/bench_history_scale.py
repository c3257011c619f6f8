"""The history browser at 100,000 runs, as a person starts it (run by hand, not by the suite).

    python bench/bench_history_scale.py [--data /tmp/orch-history-bench] [--runs 100000]
                                        [--small 1000] [--repeat 5] [--build NAME=EXECUTABLE]

The installed ``orch-tui history`` in tmux (160×50, one control-mode client polling the
screen) over ``--runs`` cloned runs (``bench_history.cloned_logs``: made once into
``--data``, minutes for 100,000), over ``--small`` runs, and over an empty history, launched
in turn ``--repeat`` times (the order rotates every repetition), index fresh. For each launch:

* launch to the list on screen (the title counts the runs and rows are painted);
* the process's CPU (``/proc``: the pane's process and its children) at that moment, and
  what it spends after it, in the 1.5 s that follow (background work: the folder check,
  laying out the filter's texts);
* its peak resident memory (``VmHWM``) before it quits;
* over the ``--runs`` history only: ``tag0042`` typed into the filter key by key, each key
  from being sent to the filtered list on screen (as ``bench_history.py`` measures it).

Prints medians and spreads, the ratio of the launch to the empty history's, and the CPU per
run above the empty history's at ``--small`` and ``--runs`` runs and their ratio (flat cost
per run: ≤ 1.2). Targets (issue 26): launch ≤ 1.5× the empty history, background ≤ 100 ms,
peak < 120 MB, every keystroke < 25 ms. ``--build`` runs another executable in turn with the
installed one, each over its own copy of the project (``build_logs.own_project``: the logs
hard-linked, its own index), so builds of any index versions run in turn.
"""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.bench_history import (  # noqa: E402
    QUERY,
    TmuxControl,
    _has,
    _list_shown,
    cloned_logs,
)
from bench.build_logs import own_project  # noqa: E402
from orch_tui.core.history.index import build_index  # noqa: E402
from orch_tui.core.history.run_query import RunView  # noqa: E402

BACKGROUND_S = 1.5
TICKS = os.sysconf("SC_CLK_TCK")


def _tree(pid: int) -> list[int]:
    """``pid`` and its descendants."""
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        found.append(current)
        try:
            children = Path(f"/proc/{current}/task/{current}/children").read_text().split()
        except OSError:
            continue
        todo += [int(child) for child in children]
    return found


def cpu_ms(pid: int) -> float:
    """User + system CPU of ``pid`` and its descendants, in ms."""
    total = 0
    for each in _tree(pid):
        try:
            fields = Path(f"/proc/{each}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])  # utime, stime
    return total * 1000 / TICKS


def peak_mb(pid: int) -> float:
    """The largest ``VmHWM`` among ``pid`` and its descendants, in MB."""
    peaks = [0.0]
    for each in _tree(pid):
        try:
            status = Path(f"/proc/{each}/status").read_text()
        except OSError:
            continue
        for line in status.splitlines():
            if line.startswith("VmHWM:"):
                peaks.append(int(line.split()[1]) / 1024)
    return max(peaks)


def pane_pid(tmux: TmuxControl) -> int:
    return int(tmux.command('display-message -p -t bench "#{pane_pid}"')[0])


def in_step(tmux: TmuxControl) -> None:
    """Read the control client's replies up to a marker: the attach's reply and the first
    command's can come as two blocks, and every reply after would be the one before."""
    assert tmux.client.stdin is not None and tmux.client.stdout is not None
    tmux.client.stdin.write('display-message -p "in-step"\n')
    tmux.client.stdin.flush()
    for raw in tmux.client.stdout:
        if raw.rstrip("\n") == "in-step":
            break
    for raw in tmux.client.stdout:  # the marker's %end
        if raw.startswith(("%end", "%error")):
            return


def wait_exit(tmux: TmuxControl) -> None:
    deadline = time.perf_counter() + 60
    while tmux.command('display-message -p -t bench "#{pane_dead}"') != ["1"]:
        if time.perf_counter() > deadline:
            raise AssertionError("orch-tui did not exit")
        time.sleep(0.02)


def launch_once(
    tmux: TmuxControl, folder: Path, executable: str, count: int, typing: bool
) -> dict[str, float | list[float]]:
    shown = _has("no runs in") if count == 0 else _list_shown(count)
    start = tmux.launch(folder, f"{shlex.quote(executable)} history")
    seen = tmux.until(shown)
    pid = pane_pid(tmux)
    at_list = cpu_ms(pid)
    time.sleep(BACKGROUND_S)
    after = cpu_ms(pid)
    sample: dict[str, float | list[float]] = {
        "launch": (seen - start) * 1000,
        "cpu at list": at_list,
        "cpu after list": after - at_list,
    }
    if typing:
        sample["keys"] = type_keys(tmux, count)
    sample["peak"] = peak_mb(pid)
    tmux.keys("q")
    wait_exit(tmux)
    return sample


def titles(logs: Path) -> list[str]:
    """What the title says after each key of :data:`QUERY` (the count core's search gives)."""
    index = build_index(logs)
    total = len(index)
    counts = [len(RunView(index, query=QUERY[:end])) for end in range(1, len(QUERY) + 1)]
    return [f"{total:,} runs" if n == total else f"{n:,} of {total:,} run" for n in counts]


TITLES: list[str] = []


def type_keys(tmux: TmuxControl, total: int) -> list[float]:
    """:data:`QUERY` typed key by key; ms from each key sent to its filtered list on screen."""
    tmux.keys("/")
    tmux.until(_has("filter: spec name"))
    latencies = []
    for end, title in enumerate(TITLES, start=1):
        typed = QUERY[:end]

        def filtered(lines: list[str], typed: str = typed, title: str = title) -> bool:
            top = next((n for n, line in enumerate(lines) if "Run history" in line), None)
            if top is None or len(lines) <= top + 2:
                return False
            counted = title in lines[top] or f"counting… of {total:,}" in lines[top]
            return typed in lines[top + 2] and counted  # a common word's count comes later

        start = tmux.keys(typed[-1], literal=True)
        latencies.append((tmux.until(filtered) - start) * 1000)
    tmux.keys("Escape")
    tmux.until(_has(f"Run history · {total:,} runs"))
    return latencies


def spread(values: list[float]) -> str:
    return f"median {statistics.median(values):7.1f}  [{min(values):.1f}–{max(values):.1f}]"


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--data", type=Path, default=Path("/tmp/orch-history-bench"))
    parser.add_argument("--runs", type=int, default=100_000)
    parser.add_argument("--small", type=int, default=1_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--build", action="append", default=[], metavar="NAME=EXECUTABLE")
    args = parser.parse_args()
    if shutil.which("tmux") is None or shutil.which("orch-tui") is None:
        sys.exit("tmux or the installed orch-tui is missing")
    builds = {"orch-tui": "orch-tui", **dict(build.split("=", 1) for build in args.build)}
    projects = {0: args.data / "empty" / "project"}
    projects[0].mkdir(parents=True, exist_ok=True)
    TITLES[:] = titles(cloned_logs(args.data, args.runs))
    for count in (args.small, args.runs):
        projects[count] = cloned_logs(args.data, count).parent
    folders = {
        (build, count): project
        if build == "orch-tui" or count == 0
        else own_project(project, build)
        for build in builds
        for count, project in projects.items()
    }
    for (build, count), folder in folders.items():  # the index made (or checked) by the build
        if count:
            subprocess.run(
                [builds[build], "history"], cwd=folder, stdout=subprocess.DEVNULL, check=True
            )
    cases = [(build, count) for build in builds for count in projects]
    samples: dict[tuple[str, int], list[dict[str, float | list[float]]]] = {}
    load_start = os.getloadavg()
    tmux = TmuxControl()
    in_step(tmux)
    try:
        for rep in range(args.repeat):
            shift = rep % len(cases)
            for build, count in cases[shift:] + cases[:shift]:
                sample = launch_once(
                    tmux, folders[(build, count)], builds[build], count, typing=count == args.runs
                )
                samples.setdefault((build, count), []).append(sample)
            print(f"repetition {rep + 1} done", file=sys.stderr, flush=True)
    finally:
        tmux.close()
    load_end = os.getloadavg()
    print(f"orch-tui history in tmux, {args.repeat} launches of each, interleaved")
    print("load average at the start {:.1f} {:.1f} {:.1f}, at the end {:.1f} {:.1f} {:.1f}".format(
        *load_start, *load_end))  # fmt: skip
    for build in builds:
        medians: dict[tuple[int, str], float] = {}
        for count in projects:
            runs = samples[(build, count)]
            print(f"{build}, {count:,} runs:")
            for label in ("launch", "cpu at list", "cpu after list", "peak"):
                values = [float(s[label]) for s in runs]  # type: ignore[arg-type]
                medians[(count, label)] = statistics.median(values)
                unit = "MB" if label == "peak" else "ms"
                print(f"  {label:<16}{spread(values)} {unit}")
            if count == args.runs:
                keys = [k for s in runs for k in s["keys"]]  # type: ignore[union-attr]
                print(f"  {'filter key':<16}{spread(keys)} ms  ({len(keys)} keys)")
        empty = medians[(0, "launch")]
        print(f"  launch ÷ empty: {args.small:,} runs {medians[(args.small, 'launch')] / empty:.2f}x, "
              f"{args.runs:,} runs {medians[(args.runs, 'launch')] / empty:.2f}x (target <= 1.5x)")  # fmt: skip
        per_run = {
            count: (medians[(count, "cpu at list")] + medians[(count, "cpu after list")]
                    - medians[(0, "cpu at list")] - medians[(0, "cpu after list")]) / count
            for count in (args.small, args.runs)
        }  # fmt: skip
        ratio = (
            f"{per_run[args.runs] / per_run[args.small]:.2f}"
            if per_run[args.small] > 0
            else f"n/a (no CPU above the empty history's at {args.small:,} runs)"
        )
        print(f"  CPU per run above the empty history: {args.small:,} runs "
              f"{per_run[args.small] * 1000:.1f} µs, {args.runs:,} runs {per_run[args.runs] * 1000:.1f} µs,"
              f" ratio {ratio} (target <= 1.2)")  # fmt: skip


if __name__ == "__main__":
    main()
