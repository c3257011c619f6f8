"""Times the history browser over 1,000 synthetic runs (run by hand, not by the test suite).

    python bench/bench_history.py [--runs 1000]

Prints, in milliseconds: listing with no index (first open), with a fresh index, with one
stale entry; filtering (a spec-text query typed key by key, and a run id); sorting; loading
one run and exporting it; and in the TUI (headless, beside a 10-run baseline that shows
Pilot's own overhead): the runs list mounted and painted, a cursor move, a keystroke in the
filter, and opening a run, each the median of several sessions.
Targets: listing, and the runs list painted, under 300 ms.
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
from orch_tui.core import runlog  # noqa: E402
from orch_tui.core.history import (  # noqa: E402
    export_markdown,
    filter_runs,
    list_runs,
    load_run,
    sort_runs,
)
from orch_tui.core.history_index import INDEX_NAME  # noqa: E402


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


class Stopwatch:
    """Wall-clock and CPU milliseconds since ``start``, per ``count`` repetitions.

    Pilot waits for the app to go idle after each key, so wall time includes its own waiting;
    CPU time is the work the app did.
    """

    def start(self) -> None:
        self.wall, self.cpu = time.perf_counter(), time.process_time()

    def stop(self, count: int = 1) -> tuple[float, float]:
        wall = (time.perf_counter() - self.wall) * 1000 / count
        return wall, (time.process_time() - self.cpu) * 1000 / count


async def tui_timings(logs: Path) -> dict[str, tuple[float, float]]:
    """(wall, CPU) ms for: mounting the runs list, a cursor move, a filter keystroke, opening."""
    from textual.app import App

    from orch_tui.themes import DEFAULT_THEME, register_themes, theme_variable_defaults
    from orch_tui.tui.screens.history import RunScreen, RunsScreen

    class Host(App[None]):
        def get_theme_variable_defaults(self) -> dict[str, str]:
            return theme_variable_defaults(self.current_theme)

        def on_mount(self) -> None:
            register_themes(self)
            self.theme = DEFAULT_THEME

    timings: dict[str, tuple[float, float]] = {}
    watch = Stopwatch()
    app = Host()
    async with app.run_test(size=(160, 50)) as pilot:
        watch.start()
        await app.push_screen(RunsScreen(logs, logs.parent / "state.json"))
        await pilot.pause()
        timings["runs list mounted and painted"] = watch.stop()
        watch.start()
        for _ in range(20):
            await pilot.press("down")
        timings["one cursor move (mean of 20)"] = watch.stop(20)
        await pilot.press("slash")
        watch.start()
        for key in "tag05":  # "t", "ta" and "tag" still match every run
            await pilot.press(key)
        timings["one filter keystroke (mean of 5)"] = watch.stop(5)
        await pilot.press("escape")
        await pilot.pause()
        watch.start()
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, RunScreen)
        timings["open a run"] = watch.stop()
    return timings


def median_timings(logs: Path, sessions: int) -> dict[str, tuple[float, float]]:
    """The median wall and CPU time of each TUI timing over ``sessions`` fresh app sessions."""
    samples = [asyncio.run(tui_timings(logs)) for _ in range(sessions)]
    return {
        label: (
            statistics.median(s[label][0] for s in samples),
            statistics.median(s[label][1] for s in samples),
        )
        for label in samples[0]
    }


def bench_tui(logs: Path, baseline_logs: Path, runs: int, sessions: int) -> None:
    """Pilot's own round trip is tens of ms per key, so a 10-run list is timed as a baseline."""
    big = median_timings(logs, sessions)
    small = median_timings(baseline_logs, sessions)
    print(f"TUI (headless, Pilot), medians of {sessions} sessions, wall / CPU ms")
    print(f"  {'':<36} {f'{runs:,} runs':>15} {'10 runs':>15} {'difference':>15}")
    for label, (wall, cpu) in big.items():
        base_wall, base_cpu = small[label]
        print(
            f"  {label:<36} {wall:7.1f} /{cpu:6.1f} {base_wall:7.1f} /{base_cpu:6.1f}"
            f" {wall - base_wall:+7.1f} /{cpu - base_cpu:+6.1f}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1000)
    parser.add_argument("--sessions", type=int, default=5, help="TUI sessions per timing")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        logs = Path(folder) / "logs"
        start = time.perf_counter()
        ids = write_synthetic_runs(logs, args.runs)
        print(f"generated {args.runs} runs in {time.perf_counter() - start:.1f} s")
        bench_core(logs, ids)
        baseline = Path(folder) / "baseline" / "logs"
        write_synthetic_runs(baseline, 10)
        bench_tui(logs, baseline, args.runs, args.sessions)


if __name__ == "__main__":
    main()
