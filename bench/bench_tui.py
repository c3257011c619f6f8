"""Benchmark of the whole review app; run by hand from the repo root, prints the figures.

    python bench/bench_tui.py [--lines 20000] [--repeat 30] [--no-tmux]

Measures, against the targets of the TUI issue:

* first paint: in-process (``OrchApp`` created → first frame, Pilot) and, when tmux is
  installed, the installed ``orch-tui spec.md`` as a person starts it (process start → the
  header on screen, read with ``capture-pane``), interpreter start-up and imports included;
* showing a proposal that modifies a 20,000-line file (40 hunks): the proposal posted to the
  review screen → the frame that shows it (hunks computed, file list and diff laid out);
* the time per ``]`` (next hunk) and per page down (unfolded, animations off; the default
  animated page down is timed once on its own) on that proposal: the Pilot round trip, and
  that minus the round trip of an unbound key (Pilot's own cost of a key and a frame);
* the peak resident memory of the process.

It also saves the review screen of the small calc project as ``bench/review-screen.png``
(an SVG from ``save_screenshot``, converted with ``rsvg-convert``).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from orch_tui.core.domain.proposal import Decisions, Proposal  # noqa: E402
from orch_tui.core.loop.review import ReviewSession  # noqa: E402
from orch_tui.tui.messages import ReviewRequested  # noqa: E402
from orch_tui.tui.widgets.diff.view import DiffView  # noqa: E402
from tests.support.e2e_support import attempt_turns, child_env  # noqa: E402
from tests.support.tui_support import (  # noqa: E402
    CONFIG_TEXT,
    FIRST_ATTEMPT,
    TmuxTui,
    make_tui_project,
    wait_for_review,
    wait_for_trial,
)

SIZE = (160, 50)
HUNKS = 40
TARGETS = {"first paint": 1.0, "large proposal shown": 0.5, "keypress": 0.050, "memory": 200}


def big_file(lines: int) -> str:
    return "".join(
        f"def function_{i}(value):\n" if i % 10 == 0 else f"    total_{i} = value * {i}  # note\n"
        for i in range(lines)
    )


def big_edits(lines: int) -> list[tuple[str, str, str, str]]:
    """HUNKS one-line replacements spread evenly through the big file."""
    step = lines // HUNKS
    edits = []
    for k in range(HUNKS):
        i = k * step + 5
        old = f"    total_{i} = value * {i}  # note\n"
        edits.append(("str_replace", "big.py", old, old.replace("value *", "value **")))
    return edits


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms"


async def first_paint_in_process(root: Path) -> float:
    project = make_tui_project(root / "paint")
    start = time.perf_counter()
    app = project.app()
    async with app.run_test(size=SIZE) as pilot:
        elapsed = time.perf_counter() - start
        await pilot.press("q")
    return elapsed


def first_paint_in_tmux(root: Path) -> float | None:
    if shutil.which("tmux") is None or shutil.which("orch-tui") is None:
        return None
    project = make_tui_project(root / "tmux", config_text=CONFIG_TEXT)
    env = child_env(None, key=None)
    tui = TmuxTui(project.root, env, SIZE)
    try:
        start = time.perf_counter()
        tui.start(
            ["orch-tui", "spec.md", "--provider", "scripted", "--script", str(project.script)]
        )
        tui.wait_for("orch-tui · run", timeout=30)
        return time.perf_counter() - start
    finally:
        tui.close()


async def large_proposal(root: Path, lines: int, repeat: int) -> dict[str, object]:
    project = make_tui_project(
        root / "large",
        [attempt_turns("Large edit.", big_edits(lines))],
        seed={"big.py": big_file(lines)},
    )
    app = project.app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_review(pilot, app)
        # A fresh copy of the proposal (nothing cached), posted as the engine posts it.
        data = project.log_json(0, "proposal.json")
        session = ReviewSession(0, Proposal.from_json(data), Decisions(), lambda _d: None)
        start = time.perf_counter()
        screen.post_message(ReviewRequested(session))
        while screen.session is not session:
            await asyncio.sleep(0)
        await pilot.pause()  # the frame that shows it
        shown = time.perf_counter() - start
        diff = screen.query_one(DiffView)
        assert diff.change is not None and len(diff.change.old_lines) == lines
        await wait_for_trial(pilot, screen)  # its checks would compete for the CPU
        await pilot.press("z")  # unfold: page down walks all 20,000 lines
        animated = time.perf_counter()
        await pilot.press("pagedown")  # Textual animates page down by default
        animated = time.perf_counter() - animated
        app.animation_level = "none"
        timings: dict[str, list[float]] = {"]": [], "pagedown": [], "x": []}
        for key in timings:
            for _ in range(repeat):
                if key == "]" and diff.cursor_hunk >= HUNKS - 1:
                    await pilot.press("{")
                start = time.perf_counter()
                await pilot.press(key)
                timings[key].append(time.perf_counter() - start)
        await pilot.press("q")
    return {"shown": shown, "animated": animated, **timings}


async def screenshot(root: Path, out: Path) -> None:
    project = make_tui_project(root / "shot", [FIRST_ATTEMPT])
    app = project.app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_review(pilot, app)
        await pilot.press("y")
        await wait_for_trial(pilot, screen)
        await pilot.pause()
        svg = root / "review-screen.svg"
        app.save_screenshot(str(svg.name), path=str(svg.parent))
        await pilot.press("q")
    subprocess.run(["rsvg-convert", str(svg), "-o", str(out)], check=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=20_000)
    parser.add_argument("--repeat", type=int, default=30)
    parser.add_argument("--no-tmux", action="store_true")
    args = parser.parse_args()
    os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    with tempfile.TemporaryDirectory(prefix="orch-bench-") as tmp:
        root = Path(tmp)
        paint = asyncio.run(first_paint_in_process(root))
        paint_tmux = None if args.no_tmux else first_paint_in_tmux(root)
        large = asyncio.run(large_proposal(root, args.lines, args.repeat))
        shot = ROOT / "bench" / "review-screen.png"
        if shutil.which("rsvg-convert"):
            asyncio.run(screenshot(root, shot))
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    baseline = statistics.median(large["x"])  # type: ignore[arg-type]
    keys = {key: statistics.median(large[key]) for key in ("]", "pagedown")}  # type: ignore[arg-type]
    worst = {key: max(large[key]) for key in ("]", "pagedown")}  # type: ignore[arg-type]
    rows = [
        ("first paint (in-process)", ms(paint), paint < TARGETS["first paint"]),
    ]
    if paint_tmux is not None:
        rows.append(
            ("first paint (orch-tui in tmux)", ms(paint_tmux), paint_tmux < TARGETS["first paint"])
        )
    shown = float(large["shown"])  # type: ignore[arg-type]
    rows += [
        (f"{args.lines:,}-line proposal shown", ms(shown), shown < TARGETS["large proposal shown"]),
        ("page down, animated, until it settles", ms(float(large["animated"])), True),  # type: ignore[arg-type]
        ("unbound key (Pilot's own round trip)", ms(baseline), True),
        *(
            (
                f"key {key}: round trip median / max",
                f"{ms(keys[key])} / {ms(worst[key])}",
                keys[key] < TARGETS["keypress"],
            )
            for key in keys
        ),
        *(
            (
                f"key {key}: minus Pilot's round trip",
                ms(keys[key] - baseline),
                keys[key] - baseline < TARGETS["keypress"],
            )
            for key in keys
        ),
        ("peak memory (RSS)", f"{peak_mb:.0f} MB", peak_mb < TARGETS["memory"]),
    ]
    for name, value, ok in rows:
        print(f"{name:<40} {value:>22}  {'ok' if ok else 'OVER TARGET'}")
    print(f"screenshot: {shot}")


if __name__ == "__main__":
    main()
