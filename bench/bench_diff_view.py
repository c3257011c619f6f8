"""Benchmark of the diff view on a 20,000-line file; run by hand, prints medians.

    python bench/bench_diff_view.py [--lines 20000] [--repeat 30]

Measures: building the row model (folded and unfolded), the time to first render of the
widget, the time per page-down and per next-hunk keypress (Pilot round trip, so it includes
Textual's own frame work), the widget's own cost of rendering one cold screenful, and memory.
"""

from __future__ import annotations

import argparse
import asyncio
import resource
import statistics
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from textual.app import App, ComposeResult  # noqa: E402
from textual.binding import Binding  # noqa: E402

from orch_tui.core.domain.proposal import FileChange, HunkDecision  # noqa: E402
from orch_tui.themes import register_themes, theme_variable_defaults  # noqa: E402
from orch_tui.tui.widgets.diff.rows import build_rows  # noqa: E402
from orch_tui.tui.widgets.diff.view import DiffView  # noqa: E402

SIZE = (160, 50)
HUNKS = 30


def make_change(lines: int) -> FileChange:
    """A Python-looking file with HUNKS one-line edits spread evenly through it."""
    old_lines = [
        f"def function_{i}(value):\n" if i % 10 == 0 else f"    total_{i} = value * {i}  # note\n"
        for i in range(lines)
    ]
    new_lines = list(old_lines)
    for n in range(HUNKS):
        at = (n * lines) // HUNKS + 5
        new_lines[at] = new_lines[at].replace("value *", "value +").replace("note", "changed")
    return FileChange("big.py", "".join(old_lines), "".join(new_lines))


def median_ms(samples: list[float]) -> str:
    return f"{statistics.median(samples) * 1000:8.2f} ms"


def timed(action: Callable[[], object], repeat: int) -> list[float]:
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        action()
        samples.append(time.perf_counter() - start)
    return samples


class BenchApp(App[None]):
    BINDINGS = [Binding("]", "next_hunk", "Next hunk")]

    def __init__(self) -> None:
        super().__init__()
        self.animation_level = "none"

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return theme_variable_defaults(self.current_theme)

    def compose(self) -> ComposeResult:
        yield DiffView()

    def on_mount(self) -> None:
        register_themes(self)
        self.theme = "vscode-dark"
        self.query_one(DiffView).focus()

    def action_next_hunk(self) -> None:
        view = self.query_one(DiffView)
        view.cursor_hunk = (view.cursor_hunk + 1) % view.rows.hunk_count


async def bench_widget(change: FileChange, repeat: int, report: Callable[[str], None]) -> None:
    app = BenchApp()
    async with app.run_test(size=SIZE) as pilot:
        view = app.query_one(DiffView)
        decisions = [HunkDecision.UNDECIDED] * len(change.hunks)
        start = time.perf_counter()
        view.show(change, decisions)
        await pilot.pause()
        first = time.perf_counter() - start
        report(f"first render (show + first frame)     {first * 1000:8.2f} ms")

        view.toggle_folds()  # every line on screen: page-down always shows new text
        await pilot.pause()
        height = view.scrollable_content_region.height

        idle = []
        for _ in range(repeat):
            start = time.perf_counter()
            await pilot.press("f12")  # bound to nothing: Pilot's own round trip
            idle.append(time.perf_counter() - start)
        report(f"unbound keypress (Pilot baseline)     {median_ms(idle)}")

        pages = []
        for _ in range(repeat):
            start = time.perf_counter()
            await pilot.press("pagedown")
            pages.append(time.perf_counter() - start)
        report(f"page-down keypress (Pilot round trip) {median_ms(pages)}")

        hunks = []
        for _ in range(repeat):
            start = time.perf_counter()
            await pilot.press("]")
            hunks.append(time.perf_counter() - start)
        report(f"next-hunk keypress (Pilot round trip) {median_ms(hunks)}")

        def cold_screenful() -> None:
            view._line_cache.clear()
            view.scroll_to(y=(view.scroll_y + height * 3) % view.max_scroll_y, animate=False)
            for y in range(height):
                view.render_line(y)

        report(
            f"cold screenful, widget only ({height} rows) {median_ms(timed(cold_screenful, repeat))}"
        )
        report(f"rows rendered so far {len(view._line_cache)} cached of {len(view.rows)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--lines", type=int, default=20_000)
    parser.add_argument("--repeat", type=int, default=30)
    args = parser.parse_args()

    change = make_change(args.lines)
    start = time.perf_counter()
    assert len(change.hunks) == HUNKS
    print(f"{args.lines} lines, {HUNKS} hunks, terminal {SIZE[0]}x{SIZE[1]}")
    print(f"hunks (core, difflib, once)           {(time.perf_counter() - start) * 1000:8.2f} ms")
    print(
        f"build rows, folded                    {median_ms(timed(lambda: build_rows(change, 'split'), args.repeat))}"
    )
    print(
        f"build rows, unfolded                  {median_ms(timed(lambda: build_rows(change, 'split', unfold_all=True), args.repeat))}"
    )

    asyncio.run(bench_widget(change, args.repeat, print))
    # Memory in a second run: tracemalloc slows Python down too much to time under it.
    tracemalloc.start()
    asyncio.run(bench_widget(change, args.repeat, lambda _line: None))
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    print(f"peak Python memory during the widget run {peak / 2**20:6.1f} MiB (tracemalloc)")
    max_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(f"max RSS of the process                {max_rss / 1024:6.1f} MiB")


if __name__ == "__main__":
    main()
