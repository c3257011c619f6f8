"""Times the history browser over 1,000 synthetic runs (run by hand, not by the test suite).

    python bench/bench_history.py [--runs 1000]

Prints, in milliseconds: listing with no index (first open), with a fresh index, with one
stale entry; filtering (a spec-text query typed key by key, and a run id); sorting; loading
one run and exporting it; and in the TUI (headless, beside a 10-run baseline): the runs list
mounted and painted, a cursor move, a keystroke in the filter, and opening a run.
Target: listing under 300 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.synthetic_runs import write_synthetic_runs  # noqa: E402
from core import runlog  # noqa: E402
from core.history import (  # noqa: E402
    export_markdown,
    filter_runs,
    list_runs,
    load_run,
    sort_runs,
)
from core.history_index import INDEX_NAME  # noqa: E402


def timed(label: str, action: Callable[[], object], repeat: int = 5) -> float:
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        action()
        samples.append((time.perf_counter() - start) * 1000)
    best, median = min(samples), statistics.median(samples)
    print(f"{label:<44} best {best:8.1f} ms   median {median:8.1f} ms")
    return median


def bench_core(logs: Path, ids: list[str]) -> None:
    def cold() -> None:
        (logs / INDEX_NAME).unlink(missing_ok=True)
        list_runs(logs)

    timed("list, no index (rebuilt from the logs)", cold, repeat=3)
    list_runs(logs)
    timed("list, fresh index", lambda: list_runs(logs))
    events = logs / ids[500] / runlog.EVENTS

    def one_stale() -> None:
        with events.open("a") as handle:
            handle.write(json.dumps({"event": "notice", "at": "2026-01-01T00:00:00Z"}) + "\n")
        list_runs(logs)

    timed("list, one stale entry", one_stale)
    runs = list_runs(logs)

    def typed(query: str) -> Callable[[], None]:
        def run() -> None:
            for end in range(1, len(query) + 1):
                filter_runs(runs, query[:end], logs)

        return run

    timed("filter 'tag0500' typed key by key (7 calls)", typed("tag0500"))
    timed("filter by run id", lambda: filter_runs(runs, ids[700], logs))
    timed("filter matching nothing", lambda: filter_runs(runs, "zzzz", logs))
    timed("sort by cost", lambda: sort_runs(runs, "cost", True))
    timed("load one run", lambda: load_run(logs, ids[500]))
    timed("export one run to Markdown", lambda: export_markdown(logs, ids[500]))


async def tui_timings(logs: Path) -> dict[str, float]:
    """Milliseconds for: mounting the runs list, a cursor move, a filter keystroke, opening."""
    from textual.app import App

    from themes import DEFAULT_THEME, register_themes, theme_variable_defaults
    from tui.screens.history import RunScreen, RunsScreen

    class Host(App[None]):
        def get_theme_variable_defaults(self) -> dict[str, str]:
            return theme_variable_defaults(self.current_theme)

        def on_mount(self) -> None:
            register_themes(self)
            self.theme = DEFAULT_THEME

    timings: dict[str, float] = {}
    app = Host()
    async with app.run_test(size=(160, 50)) as pilot:
        start = time.perf_counter()
        await app.push_screen(RunsScreen(logs, logs.parent / "state.json"))
        await pilot.pause()
        timings["runs list mounted and painted"] = (time.perf_counter() - start) * 1000
        start = time.perf_counter()
        for _ in range(20):
            await pilot.press("down")
        timings["one cursor move (mean of 20)"] = (time.perf_counter() - start) * 50
        await pilot.press("slash")
        start = time.perf_counter()
        for key in "tag05":
            await pilot.press(key)
        timings["one filter keystroke (mean of 5)"] = (time.perf_counter() - start) * 200
        await pilot.press("escape")
        await pilot.pause()
        start = time.perf_counter()
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, RunScreen)
        timings["open a run"] = (time.perf_counter() - start) * 1000
    return timings


def bench_tui(logs: Path, baseline_logs: Path) -> None:
    """Pilot's own round trip is tens of ms per key, so a 10-run list is timed as a baseline."""
    big = asyncio.run(tui_timings(logs))
    small = asyncio.run(tui_timings(baseline_logs))
    print(f"{'TUI (headless, Pilot)':<44} {'1,000 runs':>12} {'10 runs':>12}")
    for label, value in big.items():
        print(f"  {label:<42} {value:9.1f} ms {small[label]:9.1f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        logs = Path(folder) / "logs"
        start = time.perf_counter()
        ids = write_synthetic_runs(logs, args.runs)
        print(f"generated {args.runs} runs in {time.perf_counter() - start:.1f} s")
        bench_core(logs, ids)
        baseline = Path(folder) / "baseline" / "logs"
        write_synthetic_runs(baseline, 10)
        bench_tui(logs, baseline)


if __name__ == "__main__":
    main()
