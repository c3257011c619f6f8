"""The review keys on a big proposal, in-process with Pilot (run by hand, not by the suite).

    python bench/bench_big_proposal.py [--files 200] [--small 20] [--presses 8] [--rounds 3]
                                       [--profile KEY]

A scripted model rewrites ``--files`` Python files of 450 lines each, 250 lines changed in
10 hunks per file (200 files: 50,000 changed lines), and, in turn, ``--small`` such files.
Each round launches the review app (Textual's Pilot at 160×50) on each proposal in turn and
times:

* app start to the first proposal under review, its diff shown (``wait_for_review``); the
  ratio of the big proposal's to the small one's (target ≤ 1.3×). In-process, with caches the
  earlier launches warmed: ``bench_first_diff.py`` measures it a process a launch, with CPU;
* each review key pressed ``--presses`` times on the big proposal: ``}`` ``{`` ``]`` ``[``
  ``y`` ``n``: the process's CPU from the key to Pilot's return (the key handled and the
  screen refreshed), and the CPU spent in the 0.3 s after it (background lexing and
  painting), per press; target: every key under 20 ms of CPU. ``x``, bound to nothing, is
  Pilot's own round trip, part of every key's figure.

Run it with another build's interpreter (``/tmp/before/bin/python bench/…``) for a before
figure: it imports ``orch_tui`` from whichever is installed. ``--profile KEY`` prints a
cProfile of that key's presses instead.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import os
import pstats
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.support.e2e_support import attempt_turns  # noqa: E402
from tests.support.tui_support import make_tui_project, wait_for_review  # noqa: E402

HUNKS, CHANGED, GAP = 10, 25, 20
KEYS = ["}", "{", "]", "[", "y", "n", "x"]


def texts() -> tuple[str, str]:
    """One file's old and new text: 10 hunks of 25 changed lines, 20 unchanged between."""
    old, new = [], []
    number = 0
    for _hunk in range(HUNKS):
        for _ in range(GAP):
            line = f"    value_{number} = compute({number})  # line {number}\n"
            old.append(line)
            new.append(line)
            number += 1
        for _ in range(CHANGED):
            old.append(f"    value_{number} = compute({number})  # line {number}\n")
            new.append(f"    value_{number} = compute({number} + 1)  # changed\n")
            number += 1
    return "".join(old), "".join(new)


async def one_launch(
    files: int, presses: int, keys: bool, profile: str | None
) -> dict[str, list[float]]:
    old, new = texts()
    paths = [f"pkg/mod_{n:03d}.py" for n in range(files)]
    edits = [("create", path, new) for path in paths]
    root = Path(tempfile.mkdtemp(prefix="orch-bench-big-"))
    project = make_tui_project(root, [attempt_turns("Big.", edits)], seed=dict.fromkeys(paths, old))
    app = project.app()
    times: dict[str, list[float]] = {}
    start = time.perf_counter()
    async with app.run_test(size=(160, 50)) as pilot:
        await wait_for_review(pilot, app)
        times["first diff"] = [(time.perf_counter() - start) * 1000]
        if not keys:
            return times
        await pilot.pause(1.0)
        frames = painted_frames(app.screen)
        profiler = cProfile.Profile()
        for key in KEYS:
            for _ in range(presses):
                frames.clear()
                cpu, wall = time.process_time(), time.perf_counter()
                if key == profile:
                    profiler.enable()
                await pilot.press(key)
                if key == profile:
                    profiler.disable()
                handled = time.process_time()
                if frames:  # the first frame painted after the key: the one showing it
                    times.setdefault(f"{key} screen", []).append((frames[0] - wall) * 1000)
                await pilot.pause(0.3)
                times.setdefault(f"{key} CPU", []).append((handled - cpu) * 1000)
                times.setdefault(f"{key} after", []).append((time.process_time() - handled) * 1000)
        if profile:
            pstats.Stats(profiler).sort_stats("cumulative").print_stats(40)
    return times


def painted_frames(screen: Any) -> list[float]:
    """A list the end time of each frame the screen paints is appended to (cleared by the
    caller before each key)."""
    frames: list[float] = []
    refresh = screen._compositor_refresh

    def timed_refresh() -> None:
        refresh()
        frames.append(time.perf_counter())

    screen._compositor_refresh = timed_refresh
    return frames


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--files", type=int, default=200)
    parser.add_argument("--small", type=int, default=20)
    parser.add_argument("--presses", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--profile", default=None)
    args = parser.parse_args()
    load_start = os.getloadavg()
    results: dict[str, list[float]] = {}
    for round_ in range(args.rounds):
        order = [args.small, args.files] if round_ % 2 == 0 else [args.files, args.small]
        for files in order:
            found = asyncio.run(one_launch(files, args.presses, files == args.files, args.profile))
            for label, values in found.items():
                name = f"{files} files: {label}" if label == "first diff" else label
                results.setdefault(name, []).extend(values)
        print(f"round {round_ + 1} done", file=sys.stderr, flush=True)
    load_end = os.getloadavg()
    print(f"{args.files} vs {args.small} files, {args.rounds} rounds, in turn")
    print("load average at the start {:.1f} {:.1f} {:.1f}, at the end {:.1f} {:.1f} {:.1f}".format(
        *load_start, *load_end))  # fmt: skip
    for label, values in results.items():
        print(
            f"  {label:<22} median {statistics.median(values):7.1f} ms"
            f"  [{min(values):.1f}–{max(values):.1f}]"
        )
    big = statistics.median(results[f"{args.files} files: first diff"])
    small = statistics.median(results[f"{args.small} files: first diff"])
    print(f"  first diff, {args.files} ÷ {args.small} files: {big / small:.2f}x (target <= 1.3x)")


if __name__ == "__main__":
    main()
