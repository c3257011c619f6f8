"""The review screen in a real terminal against stock Textual; run by hand, prints ratios.

    python bench/bench_review_keys.py [--lines 20000] [--repeat 3] [--keys 5] [--no-tdv]
                                      [--only log,orch-tui,ours,tdv] [--build NAME=EXECUTABLE]

Four programs show the same file in tmux (160×50), each launched ``--repeat`` times, in
alternating order, and each key pressed ``--keys`` times per launch:

* ``log``: a stock Textual ``Log`` showing the proposed file (the baseline);
* ``orch-tui``: the installed ``orch-tui spec.md`` on a scripted proposal that makes 40
  one-line edits to that file and one to a small second file;
* ``tdv``: textual-diff-view's ``DiffView`` on the same two texts, run with
  ``/tmp/tdv/bin/python`` (skipped with a message when that throwaway venv is missing; it is
  AGPL and never a dependency: ``python3 -m venv /tmp/tdv && /tmp/tdv/bin/pip install
  textual-diff-view``); ``ours``: our ``DiffView`` widget alone in the same tiny app.

Every program is a separate process started by ``tmux new-session``. Times are wall times as
a person feels them: from the command sent to tmux until ``capture-pane`` shows the change
(polled through one tmux control-mode client, so a poll costs well under a millisecond):

* launch to first paint (any text on screen) and launch to the diff (the first edited line;
  for ``log`` its first line) visible;
* each review key, from ``send-keys`` to the screen below the header changed (the header's
  clock ticks by itself): ``]`` ``[`` ``}`` ``{`` page down and ``v`` on the folded diff, then
  ``z`` (unfold) and page down, ``]``, ``[`` and ``v`` again. The baseline apps bind the same
  keys to a scroll of the same distance (a hunk's spacing for ``]``/``[``: 8 folded rows, or
  lines ÷ 40 unfolded; a page for the others; ``v`` is tdv's own split/unified toggle).

``--build before=/tmp/old/bin/orch-tui`` (repeatable) adds another orch-tui executable, run on
the same proposal in turn with the others, so two builds are compared within one run.

Ratios are of medians over all repetitions: orch-tui ÷ log (targets ≤ 1.5× launch to diff,
≤ 1.2× first paint and every key) and tdv ÷ ours / tdv ÷ orch-tui (targets ≥ 10× first paint,
≥ 2× every key).
"""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.support.e2e_support import attempt_turns, child_env  # noqa: E402
from tests.support.tui_support import make_tui_project  # noqa: E402

SIZE = (160, 50)
HUNKS = 40
TDV_PYTHON = Path("/tmp/tdv/bin/python")
SMALL_OLD = "def small():\n    return 1\n"

BASELINE_APP = '''
import sys
from pathlib import Path
from textual.app import App
from textual.binding import Binding

KIND, OLD, NEW, HUNK_LINES = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])


class Bench(App):
    """``]``/``[`` scroll a hunk's spacing, the other review keys a page; ``z`` unfolds."""

    BINDINGS = [
        Binding("right_square_bracket", "move(1)"),
        Binding("left_square_bracket", "move(-1)"),
        Binding("right_curly_bracket", "page(1)"),
        Binding("left_curly_bracket", "page(-1)"),
        Binding("v", "toggle"),
        Binding("z", "unfold"),
        Binding("pagedown", "page(1)", priority=True),
    ]

    def __init__(self):
        super().__init__()
        self.animation_level = "none"
        self.spacing = 8  # rows between two hunks folded: 3 context, the change, 3, a fold
        self.flip = -1

    def compose(self):
        if KIND == "log":
            from textual.widgets import Log
            log = Log(highlight=False)
            log.write_lines(Path(NEW).read_text().splitlines())
            yield log
        elif KIND == "tdv":
            from textual.containers import VerticalScroll
            yield VerticalScroll(id="box")
        else:
            from orch_tui.tui.widgets.diff.view import DiffView
            yield DiffView()

    async def on_mount(self):
        target = self.target
        if KIND == "tdv":
            from textual_diff_view import DiffView
            self.view = await DiffView.load(OLD, NEW)
            await target.mount(self.view)
        elif KIND == "ours":
            from orch_tui.core.domain.proposal import FileChange
            from orch_tui.themes import register_themes
            register_themes(self)
            self.theme = "vscode-dark"
            change = FileChange("big.py", Path(OLD).read_text(), Path(NEW).read_text())
            target.show(change, [])
        target.focus()

    def get_theme_variable_defaults(self):
        if KIND == "ours":
            from orch_tui.themes import theme_variable_defaults
            return theme_variable_defaults(self.current_theme)
        return super().get_theme_variable_defaults()

    @property
    def target(self):
        return self.screen.focus_chain[0] if self.screen.focus_chain else self.screen.children[0]

    def scroll_by(self, rows):
        """Scroll by ``rows``; past either end, go round to the other (a short diff ends)."""
        target = self.target
        y, end = round(target.scroll_y), round(target.max_scroll_y)
        new = y + rows
        if new > end:
            new = 0 if y >= end else end
        elif new < 0:
            new = end if y <= 0 else 0
        target.scroll_to(y=new, animate=False)

    def action_move(self, sign):
        self.scroll_by(sign * self.spacing)

    def action_page(self, sign):
        self.scroll_by(sign * self.target.scrollable_content_region.height)

    def action_toggle(self):
        if KIND == "tdv":
            self.view.split = not self.view.split
        elif KIND == "ours":
            self.target.diff_layout = "unified" if self.target.diff_layout == "split" else "split"
        else:
            self.flip = -self.flip
            self.action_page(self.flip)

    def action_unfold(self):
        self.spacing = HUNK_LINES
        if KIND == "ours":
            self.target.toggle_folds()


Bench().run()
'''


class Tmux:
    """One tmux server of our own, driven through a control-mode client (``tmux -C``)."""

    def __init__(self, env: dict[str, str]) -> None:
        self.env = {k: v for k, v in env.items() if k not in ("COLUMNS", "LINES", "TMUX")}
        self.socket = f"orch-bench-{uuid.uuid4().hex[:12]}"
        base = ["tmux", "-L", self.socket, "-f", "/dev/null"]
        subprocess.run(
            [*base, "new-session", "-d", "-s", "ctl", "-x", "80", "-y", "24", "sleep 100000"],
            env=self.env,
            check=True,
        )
        self.control = subprocess.Popen(
            [*base, "-C", "attach", "-t", "ctl"],
            env=self.env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            bufsize=1,
        )
        self._read_block()  # the (empty) reply to the attach itself
        self.command("refresh-client -f no-output")
        self.command("set-option -g status off")
        self.command("set-option -g remain-on-exit on")  # a crashed app leaves its traceback

    def command(self, line: str) -> list[str]:
        """Run one tmux command through the control client; returns its output lines."""
        assert self.control.stdin is not None and self.control.stdout is not None
        self.control.stdin.write(line + "\n")
        self.control.stdin.flush()
        output = self._read_block()
        if output is None:
            raise RuntimeError(f"tmux {line!r} failed")
        return output

    def _read_block(self) -> list[str] | None:
        """The lines of the next reply (None for an error), skipping notifications."""
        assert self.control.stdout is not None
        output: list[str] = []
        inside = False
        for raw in self.control.stdout:
            text = raw.rstrip("\n")
            if not inside:
                inside = text.startswith("%begin")
                continue
            if text.startswith(("%end", "%error")):
                return None if text.startswith("%error") else output
            output.append(text)
        raise RuntimeError("the tmux control client ended")

    def start(self, name: str, folder: Path, argv: list[str], size: tuple[int, int] = SIZE) -> None:
        shell = shlex.quote(" ".join(shlex.quote(part) for part in argv))
        width, height = size
        self.command(
            f"new-session -d -s {name} -x {width} -y {height} -c {shlex.quote(str(folder))} {shell}"
        )

    def screen(self, name: str) -> list[str]:
        return self.command(f"capture-pane -p -t {name}")

    def kill(self, name: str) -> None:
        self.command(f"kill-session -t {name}")

    def close(self) -> None:
        subprocess.run(
            ["tmux", "-L", self.socket, "kill-server"], env=self.env, capture_output=True
        )
        self.control.wait(timeout=10)
        folder = Path(self.env.get("TMUX_TMPDIR") or "/tmp") / f"tmux-{os.getuid()}"
        (folder / self.socket).unlink(missing_ok=True)


POLL_S = 0.002


def wait_until(
    tmux: Tmux, name: str, done: Callable[[list[str]], bool], start: float, timeout: float = 120
) -> float:
    """Seconds from ``start`` (a ``perf_counter`` time) until ``done(screen)``, polling."""
    while True:
        screen = tmux.screen(name)
        if done(screen):
            return time.perf_counter() - start
        if time.perf_counter() - start > timeout:
            raise TimeoutError(f"{name}: nothing after {timeout} s:\n" + "\n".join(screen))
        time.sleep(POLL_S)


def body(screen: list[str]) -> list[str]:
    return screen[1:]  # the first row is orch-tui's header, whose clock ticks by itself


def settle(tmux: Tmux, name: str, quiet: float = 0.3) -> list[str]:
    """Wait until the screen below the header stays the same for ``quiet`` seconds."""
    last, since = body(tmux.screen(name)), time.perf_counter()
    while time.perf_counter() - since < quiet:
        time.sleep(0.02)
        now = body(tmux.screen(name))
        if now != last:
            last, since = now, time.perf_counter()
    return last


def press(tmux: Tmux, name: str, key: str) -> float:
    """Seconds from ``send-keys`` to a changed screen (below the header)."""
    before = settle(tmux, name)
    start = time.perf_counter()
    tmux.command(f"send-keys -t {name} {shlex.quote(key)}")
    return wait_until(tmux, name, lambda screen: body(screen) != before, start, timeout=20)


KEY_PLAN: list[tuple[str, str, int]] = [
    # (label, tmux key, times): folded first, then unfolded after z.
    ("]", "]", 1),
    ("[", "[", 1),
    ("}", "}", 1),
    ("{", "{", 1),
    ("pagedown", "PageDown", 1),
    ("v", "v", 1),
    ("z", "z", 0),
    ("pagedown unfolded", "PageDown", 1),
    ("] unfolded", "]", 1),
    ("[ unfolded", "[", 1),
    ("v unfolded", "v", 1),
]


def run_keys(tmux: Tmux, name: str, per_key: int, times: dict[str, list[float]]) -> None:
    for label, key, measured in KEY_PLAN:
        if not measured:  # z: the baseline apps change nothing on screen
            tmux.command(f"send-keys -t {name} {shlex.quote(key)}")
            settle(tmux, name)
            continue
        if label in ("}", "{"):
            continue  # measured in pairs below
        for _ in range(per_key):
            times.setdefault(label, []).append(press(tmux, name, key))
        if label == "[":
            for _ in range(per_key):  # } then { back to the big file
                times.setdefault("}", []).append(press(tmux, name, "}"))
                times.setdefault("{", []).append(press(tmux, name, "{"))


def big_texts(lines: int) -> tuple[str, str, list[tuple[str, str, str, str]]]:
    old = [
        f"def function_{i}(value):\n" if i % 10 == 0 else f"    total_{i} = value * {i}  # note\n"
        for i in range(lines)
    ]
    new = list(old)
    edits = []
    step = lines // HUNKS
    for k in range(HUNKS):
        i = k * step + 5
        new[i] = old[i].replace("value *", "value **")
        edits.append(("str_replace", "big.py", old[i], new[i]))
    return "".join(old), "".join(new), edits


def launch(
    tmux: Tmux,
    kind: str,
    folder: Path,
    argv: list[str],
    diff_text: str,
    per_key: int,
    results: dict[str, dict[str, list[float]]],
) -> None:
    name = f"{kind}-{uuid.uuid4().hex[:6]}"
    start = time.perf_counter()
    tmux.start(name, folder, argv)
    try:
        paint = wait_until(tmux, name, lambda s: any(line.strip() for line in s), start)
        shown = wait_until(tmux, name, lambda s: any(diff_text in line for line in s), start)
        times = results.setdefault(kind, {})
        times.setdefault("first paint", []).append(paint)
        times.setdefault("diff visible", []).append(shown)
        if per_key:
            run_keys(tmux, name, per_key, times)
    finally:
        tmux.kill(name)


def ratio(medians: dict[str, float], a: str, b: str) -> str:
    return f"{medians[a] / medians[b]:9.2f}×" if a in medians and b in medians else " " * 10


def report(results: dict[str, dict[str, list[float]]], lines: int) -> None:
    labels = ["first paint", "diff visible"] + [label for label, _, n in KEY_PLAN if n]
    kinds = [kind for kind in ("log", "orch-tui", "ours", "tdv") if kind in results]
    builds = [kind for kind in results if kind not in kinds]
    print(f"\n{lines:,} lines · medians (ms) · ratios of medians")
    head = "".join(f"{kind:>12}" for kind in kinds)
    print(f"{'':<20}{head}   orch/log   tdv/ours   tdv/orch")
    for label in labels:
        medians = {
            kind: statistics.median(results[kind][label])
            for kind in kinds
            if results[kind].get(label)
        }
        cells = "".join(
            f"{medians[kind] * 1000:12.1f}" if kind in medians else f"{'-':>12}" for kind in kinds
        )
        ratios = " ".join(
            ratio(medians, a, b)
            for a, b in (("orch-tui", "log"), ("tdv", "ours"), ("tdv", "orch-tui"))
        )
        print(f"{label:<20}{cells} {ratios}")
    for build in builds:
        print(f"\n{build} (another orch-tui build, in turn with the others)")
        for label in labels:
            if not results[build].get(label) or not results.get("log", {}).get(label):
                continue
            median = statistics.median(results[build][label])
            log = statistics.median(results["log"][label])
            line = f"{label:<20}{median * 1000:12.1f}   ÷ log {median / log:5.2f}×"
            if results.get("orch-tui", {}).get(label):
                mine = statistics.median(results["orch-tui"][label])
                line += f"   orch-tui ÷ {build} {mine / median:5.2f}×"
            print(line)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=20_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--keys", type=int, default=5, help="presses of each key per launch")
    parser.add_argument("--no-tdv", action="store_true")
    parser.add_argument("--only", default="", help="comma-separated subset: log,orch-tui,ours,tdv")
    parser.add_argument(
        "--build",
        action="append",
        default=[],
        metavar="NAME=EXECUTABLE",
        help="another orch-tui executable to run in turn with the others",
    )
    args = parser.parse_args()
    builds = dict(build.split("=", 1) for build in args.build)
    if shutil.which("orch-tui") is None:
        sys.exit("orch-tui is not on PATH: activate the venv it is installed in")
    kinds = ["log", "orch-tui", "ours", "tdv"]
    if args.no_tdv or not TDV_PYTHON.exists():
        if not args.no_tdv:
            print(f"{TDV_PYTHON} is missing: textual-diff-view is not measured (see the docstring)")
        kinds.remove("tdv")
    if args.only:
        kinds = [kind for kind in kinds if kind in args.only.split(",")]
    kinds += builds
    old, new, edits = big_texts(args.lines)
    first_edit = edits[0][3].strip()
    with tempfile.TemporaryDirectory(prefix="orch-bench-keys-") as tmp:
        root = Path(tmp)
        (root / "old.py").write_text(old)
        (root / "new.py").write_text(new)
        app = root / "baseline_app.py"
        app.write_text(BASELINE_APP)
        env = child_env(None, key=None)
        env["XDG_STATE_HOME"] = str(root / "state")  # v's remembered layout stays in here
        env["PYTHONPATH"] = str(ROOT)
        tmux = Tmux(env)
        results: dict[str, dict[str, list[float]]] = {}
        try:
            for repetition in range(args.repeat):
                order = kinds if repetition % 2 == 0 else kinds[::-1]
                for kind in order:
                    project_root = root / f"{kind}-{repetition}"
                    if kind == "orch-tui" or kind in builds:
                        project = make_tui_project(
                            project_root,
                            [attempt_turns("Large edit.", [*edits, small_edit()])],
                            seed={"big.py": old, "small.py": SMALL_OLD},
                        )
                        argv = [
                            builds.get(kind, "orch-tui"), "spec.md", "--provider", "scripted",
                            "--script", str(project.script),
                        ]  # fmt: skip
                    else:
                        project_root.mkdir()
                        python = str(TDV_PYTHON) if kind == "tdv" else sys.executable
                        argv = [
                            python, str(app), kind, str(root / "old.py"), str(root / "new.py"),
                            str(args.lines // HUNKS),
                        ]  # fmt: skip
                    shown = "def function_0(value):" if kind == "log" else first_edit
                    launch(tmux, kind, project_root, argv, shown, args.keys, results)
                    print(f"repetition {repetition + 1}: {kind} done", file=sys.stderr)
        finally:
            tmux.close()
    report(results, args.lines)


def small_edit() -> tuple[str, str, str, str]:
    return ("str_replace", "small.py", "return 1", "return 2")


if __name__ == "__main__":
    os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    main()
