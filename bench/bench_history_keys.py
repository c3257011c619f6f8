"""The history filter's keys in-process at 100,000 runs (run by hand, not by the suite).

    python bench/bench_history_keys.py [--logs DIR] [--repeat 2] [--rounds 2]
                                       [--build NAME=PYTHONPATH] [--keys tag0042]
    valgrind --tool=callgrind --collect-atstart=no --toggle-collect=functools_reduce \\
        python bench/bench_history_keys.py --search-only [--word tag00] [--repeat 3]

Over the cloned runs ``bench_history_scale.py`` makes (``--logs``), the runs screen in a
bare app at 160×50 (Pilot), once the folder check is done: ``tag0042`` (or ``--keys``, e.g.
``zq``, a rare word of two characters) typed into the filter key by key, ``--repeat`` times;
for each key the process's CPU from Pilot's press to the screen refreshed. With ``--build``,
each build named runs in turn with this one, ``--rounds`` times, as a process of its own
whose ``PYTHONPATH`` (a folder holding ``orch_tui/core``, ``orch_tui/tui`` and
``orch_tui/themes``, e.g. links into a copy of an earlier tree) comes before the installed
package, over its own copy of the logs' project (``build_logs.own_project``: the logs
hard-linked, its own index, made on its first launch). Prints each build's CPU per key,
medians over its launches.

``--callgrind-from N`` (under ``valgrind --tool=callgrind --instr-atstart=no``, one launch,
``--child --repeat 1``) counts the instructions of the keys from the ``N``-th of ``tag0042`` on,
from each press to its screen painted: ``callgrind_control`` switches the instrumentation on
before them and off after, so the count holds none of the start-up, whatever the load:

    valgrind --tool=callgrind --instr-atstart=no python bench/bench_history_keys.py \
        --child --repeat 1 --callgrind-from 4     # tag00, tag004, tag0042

``--search-only`` times no screen: it opens the index, then ``--repeat`` times types
``--word`` but its last character after an empty filter, then the last character inside
``functools.reduce`` (each a view of the index counted and its first screenful read), so that callgrind (``--toggle-collect``) counts
the instructions of that key's search alone, whatever the machine's load.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import time
from functools import reduce
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.build_logs import own_project  # noqa: E402

KEYS = "tag0042"


def search_only(logs: Path, word: str, repeat: int) -> None:
    from orch_tui.core.history.index import recorded_then_checked
    from orch_tui.core.history.run_query import RunView

    index = list(recorded_then_checked(logs))[-1]
    for _ in range(repeat):
        RunView(index)[:40]
        RunView(index, query=word[:-1])[:40]
        found = reduce(lambda _a, _b: len(RunView(index, query=word)[:40]), [0, 1])
    print(f"{word}: {found} runs")


def _callgrind(switch: str) -> None:
    """Switch valgrind's instrumentation of this process on or off (``callgrind_control``)."""
    subprocess.run(["callgrind_control", "-i", switch, str(os.getpid())], capture_output=True)


async def keys_in_process(
    logs: Path, repeat: int, counted_from: int | None = None, typed: str = KEYS
) -> list[list[float]]:
    from textual.app import App

    from orch_tui.themes import DEFAULT_THEME, register_themes, theme_variable_defaults
    from orch_tui.tui.screens.history.runs_list import RunsScreen

    class Host(App[None]):
        def get_theme_variable_defaults(self) -> dict[str, str]:
            return theme_variable_defaults(self.current_theme)

        def on_mount(self) -> None:
            register_themes(self)
            self.theme = DEFAULT_THEME
            self.push_screen(RunsScreen(logs, logs.parent / "state.json"))

    app = Host()
    rounds: list[list[float]] = []
    async with app.run_test(size=(160, 50)) as pilot:
        deadline = time.monotonic() + 300
        while not (isinstance(app.screen, RunsScreen) and app.screen.loaded):
            await asyncio.sleep(0.05)
            if time.monotonic() > deadline:
                raise SystemExit("the runs screen never finished loading")
        await asyncio.sleep(2.0)  # settled: the check done, the filter's texts laid out
        for _ in range(repeat):
            await pilot.press("slash")
            await pilot.pause()
            keys = []
            for number, key in enumerate(typed):
                if number == counted_from:
                    _callgrind("on")
                start = time.process_time()
                await pilot.press(key)
                await pilot.pause()
                keys.append(round((time.process_time() - start) * 1000, 1))
            if counted_from is not None:
                _callgrind("off")
            rounds.append(keys)
            await pilot.press("escape")
            await pilot.pause()
            await asyncio.sleep(0.3)
    return rounds


def one_launch(path: str, logs: Path, repeat: int, typed: str) -> list[list[float]]:
    env = dict(os.environ)
    if path:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [path, env.get("PYTHONPATH", "")]))
    command = [sys.executable, __file__, "--child", "--logs", str(logs), "--repeat", str(repeat)]
    command += ["--keys", typed]
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=True)
    return json.loads(done.stdout.splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    default_logs = Path("/tmp/orch-history-bench/clones-100000/logs")
    parser.add_argument("--logs", type=Path, default=default_logs)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--build", action="append", default=[], metavar="NAME=PYTHONPATH")
    parser.add_argument("--search-only", action="store_true")
    parser.add_argument("--word", default="tag00")
    parser.add_argument("--keys", default=KEYS, help="the word typed key by key")
    parser.add_argument("--callgrind-from", type=int, default=None, metavar="N")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.search_only:
        search_only(args.logs, args.word, args.repeat)
        return
    if args.child:
        keys = asyncio.run(keys_in_process(args.logs, args.repeat, args.callgrind_from, args.keys))
        print(json.dumps(keys))
        return
    builds = [("this", ""), *(tuple(build.split("=", 1)) for build in args.build)]
    logs = {name: own_project(args.logs.parent, name) / "logs" for name, _path in builds[1:]}
    logs["this"] = args.logs
    per_key: dict[str, list[list[float]]] = {name: [] for name, _path in builds}
    for _ in range(args.rounds):
        for name, path in builds:
            load = os.getloadavg()[0]
            rounds = one_launch(path, logs[name], args.repeat, args.keys)
            print(f"{name} (load {load:.1f}): {rounds}", flush=True)
            per_key[name].extend(rounds)
    for name, rounds in per_key.items():
        medians = [statistics.median(keys) for keys in zip(*rounds, strict=True)]
        shown = ", ".join(f"{args.keys[: n + 1]} {ms:.1f}" for n, ms in enumerate(medians))
        print(f"{name}: median CPU per key, ms: {shown}")


if __name__ == "__main__":
    main()
