"""A big proposal's first diff against a small one's, builds in turn (run by hand).

    python bench/bench_first_diff.py [--files 200] [--small 20] [--rounds 10]
                                     [--build NAME=PYTHON ...] [--collector-from-start]

The proposals are ``bench_big_proposal.py``'s: a scripted model rewrites ``--files`` (then
``--small``) Python files of 450 lines, 250 lines changed in 10 hunks each (200 files: 50,000
changed lines). Each launch is a process of its own (as a person's is), started with the
build's interpreter (``--build before=/tmp/old/bin/python``, repeatable; the interpreter
running this script is ``this``), and the launches go in turn: every round runs each build on
each size, the order reversed every other round.

A launch imports the app first, then times from Pilot starting the app (160×50, in-process)
to the end of the first frame the review screen paints with the proposal's diff in it. The
garbage collector runs as under the ``orch-tui`` executable: off while the launch imports
and sets up, then what exists is frozen and the collector turned on
(``cli.executable.start_collecting``), so a full collection walks what the launch made, not
Textual's and the engine's modules (~50 ms each at 200 files). Builds from 2026-11-28 11:00
on turn it on once the review screen has drawn its first diff, which the review screen does
here as under the executable; for an earlier build, whose executable turned it on as the run
opened, the launch turns it on before the app starts. ``--collector-from-start`` keeps it
on from the process's start, nothing frozen, as the figures before 2026-11-28 05:00 were
measured.

* wall: that frame's end;
* CPU: the process's CPU time (the UI thread and the engine's, which share the interpreter
  lock, so it is steadier than wall time on a loaded machine);
* UI: the UI thread's own CPU time; and "proposal": wall time until the engine handed the
  proposal to the screen (the rest is the screen showing it).

Prints, for each build and measure, the median and range of each size, the ratio of medians
(target ≤ 1.3×, issue 26 item 4), and the median and range of the per-round ratios (each round's
200-file launch ÷ the same round's 20-file launch), with the machine's load average.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import inspect
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
MEASURES = ("wall", "cpu", "ui", "proposal")


def launch(files: int, collector_from_start: bool = False) -> dict[str, float]:
    """One launch on a ``files``-file proposal, in this process; returns its times in ms."""
    if not collector_from_start:
        gc.disable()  # as the executable's main() does
    sys.path.insert(0, str(ROOT))
    sys.path.insert(0, str(ROOT / "bench"))
    from bench_big_proposal import texts

    from orch_tui.tui.bridge import TuiReviewer
    from orch_tui.tui.cli.executable import start_collecting
    from orch_tui.tui.launch import OpeningApp
    from orch_tui.tui.screens.review.screen import ReviewScreen
    from orch_tui.tui.widgets.diff.view import DiffView
    from tests.support.e2e_support import attempt_turns
    from tests.support.tui_support import make_tui_project, wait_for

    marks: dict[str, float] = {}
    refresh = ReviewScreen._compositor_refresh

    def timed_refresh(screen: ReviewScreen) -> None:
        refresh(screen)
        if "frame" not in marks and screen.session is not None:
            if screen.query_one(DiffView).change is not None:
                marks["frame"] = time.perf_counter()
                marks["cpu"] = time.process_time()
                marks["ui"] = time.thread_time()

    review = TuiReviewer.review

    def timed_review(reviewer: TuiReviewer, session: Any) -> None:
        marks["proposal"] = time.perf_counter()
        review(reviewer, session)

    ReviewScreen._compositor_refresh = timed_refresh  # type: ignore[method-assign]
    TuiReviewer.review = timed_review  # type: ignore[method-assign]
    old, new = texts()
    paths = [f"pkg/mod_{n:03d}.py" for n in range(files)]
    root = Path(tempfile.mkdtemp(prefix="orch-bench-first-diff-"))
    project = make_tui_project(
        root,
        [attempt_turns("Big.", [("create", path, new) for path in paths])],
        seed=dict.fromkeys(paths, old),
    )
    app = project.app()
    if "start_collecting()" in inspect.getsource(OpeningApp._open):
        start_collecting()  # as the build's executable did (nothing when on already)

    async def run() -> dict[str, float]:
        wall, cpu, ui = time.perf_counter(), time.process_time(), time.thread_time()
        async with app.run_test(size=(160, 50)) as pilot:
            await wait_for(pilot, lambda: "frame" in marks, "the first diff", timeout=120)
        return {
            "wall": (marks["frame"] - wall) * 1000,
            "cpu": (marks["cpu"] - cpu) * 1000,
            "ui": (marks["ui"] - ui) * 1000,
            "proposal": (marks["proposal"] - wall) * 1000,
        }

    try:
        return asyncio.run(run())
    finally:
        shutil.rmtree(root, ignore_errors=True)  # 200 files' run logs: ~20 MB a launch


def run_launch(python: str, files: int, collector_from_start: bool) -> dict[str, float]:
    env = {**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    flags = ["--collector-from-start"] if collector_from_start else []
    done = subprocess.run(
        [python, __file__, "--launch", str(files), *flags],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    if done.returncode != 0:
        sys.exit(f"{python} --launch {files} failed:\n{done.stderr}")
    result: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def spread(values: list[float]) -> str:
    return f"{statistics.median(values):7.0f} [{min(values):.0f}–{max(values):.0f}]"


def report(
    results: dict[str, dict[int, list[dict[str, float]]]], big: int, small: int, rounds: int
) -> None:
    for build, sizes in results.items():
        print(f"\n{build}: {rounds} rounds, ms, median [range]")
        for measure in MEASURES:
            bigs = [launch[measure] for launch in sizes[big]]
            smalls = [launch[measure] for launch in sizes[small]]
            ratios = [b / s for b, s in zip(bigs, smalls, strict=True)]
            print(
                f"  {measure:<9} {small:>4} files {spread(smalls)}   {big} files {spread(bigs)}"
                f"   ratio of medians {statistics.median(bigs) / statistics.median(smalls):.2f}×"
                f"   per round {statistics.median(ratios):.2f}× [{min(ratios):.2f}–{max(ratios):.2f}]"
            )
    names = list(results)
    for other in names[1:]:
        for measure in ("wall", "cpu"):
            mine = statistics.median(launch[measure] for launch in results[names[0]][big])
            theirs = statistics.median(launch[measure] for launch in results[other][big])
            print(f"{names[0]} ÷ {other}, {big} files, {measure}: {mine / theirs:.2f}×")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--files", type=int, default=200)
    parser.add_argument("--small", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--build", action="append", default=[], metavar="NAME=PYTHON")
    parser.add_argument(
        "--collector-from-start",
        action="store_true",
        help="the garbage collector on from the start, nothing frozen (the earlier figures)",
    )
    parser.add_argument("--launch", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.launch:
        print(json.dumps(launch(args.launch, args.collector_from_start)))
        return
    builds = {"this": sys.executable, **dict(build.split("=", 1) for build in args.build)}
    plan = [(name, files) for name in builds for files in (args.small, args.files)]
    results: dict[str, dict[int, list[dict[str, float]]]] = {
        name: {args.small: [], args.files: []} for name in builds
    }
    load_start = os.getloadavg()
    for round_ in range(args.rounds):
        for name, files in plan if round_ % 2 == 0 else plan[::-1]:
            results[name][files].append(run_launch(builds[name], files, args.collector_from_start))
        print(f"round {round_ + 1} done, load {os.getloadavg()[0]:.1f}", file=sys.stderr)
    load_end = os.getloadavg()
    print(f"{args.files} vs {args.small} files, each launch a process, builds and sizes in turn")
    print(
        "collector: "
        + ("on from the start" if args.collector_from_start else "as the executable's")
    )
    print("load average at the start {:.1f} {:.1f} {:.1f}, at the end {:.1f} {:.1f} {:.1f}".format(
        *load_start, *load_end))  # fmt: skip
    report(results, args.files, args.small, args.rounds)


if __name__ == "__main__":
    main()
