"""The review screen's first frame and readiness against stock Textual and the peers (by hand).

    python bench/bench_first_frame.py [--rounds 8] [--peers codex,claude,aider]
                                      [--build NAME=EXECUTABLE]

Every program is started by ``tmux new-session`` at 120×40, in turn, ``--rounds`` times (the
order reversed every other round), and watched through one tmux control-mode client:

* ``log``: a stock Textual ``Log`` app showing 300 lines (the baseline of issue 26, item 1);
* ``orch-tui``: the installed ``orch-tui spec.md`` on the bundled demo in a fresh folder,
  no API key, so it replays the recording (as a person's first run does);
* ``codex``: Codex CLI from its npm package in ``/tmp/peers`` (``npm install --prefix
  /tmp/peers @openai/codex``; none of it enters the project), logged in with a made-up API
  key and pointed at a local HTTP server on 127.0.0.1 that answers every request;
* ``claude`` and ``aider`` when given in ``--peers`` and installed (Claude Code from npm in
  the same prefix, aider in ``/tmp/peers/aider``), against the same local server.

Four times per launch, from the command sent to tmux:

* first paint: any text on screen;
* frame: the program's own frame is drawn (orch-tui: the header, the panes' borders and the
  footer's keys; the peers: their input prompt; ``log``: its first line);
* content: the content is on screen (orch-tui: the proposal's diff, with its frame; the
  others: their frame);
* ready: the content is on screen and a key sent then is answered (orch-tui: ``s`` hides
  the spec pane; ``log``: ``end`` shows the last line; the peers: a typed ``x`` shows in their
  prompt).

Prints medians with their spread and the ratios of medians: orch-tui's frame ÷ ``log``'s
first paint (target ≤ 1.3×) and orch-tui's ready ÷ codex's ready (target ≤ 1.0×), with the
machine's load average before and after.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from bench_review_keys import Tmux, wait_until  # noqa: E402

SIZE = (120, 40)
PEERS = Path("/tmp/peers")
DEMO_SPEC = ROOT / "core" / "demo" / "spec.md"
DIFF_LINE = "from wordstats import count_words"
FAKE_KEY = "sk-ant-bench-0000000000000000000000000000"

LOG_APP = """
from textual.app import App
from textual.widgets import Log


class Bench(App):
    def compose(self):
        log = Log(highlight=False)
        log.write_lines(f"line {n:04d} of the log" for n in range(1, 301))
        yield log


Bench().run()
"""

Screen = list[str]


def text(screen: Screen) -> str:
    return "\n".join(screen)


def typed(line: str, prompt: str) -> bool:
    """The prompt's line shows the ``x`` typed (after a space, sometimes a no-break one)."""
    return line.startswith(prompt) and line[len(prompt) :].strip().startswith("x")


@dataclass
class Program:
    """How to start one program and what on its screen means frame and ready."""

    name: str
    argv: Callable[[Path], list[str]]
    frame: Callable[[Screen], bool]
    ready: Callable[[Screen], bool]
    key: str
    answered: Callable[[Screen], bool]
    folder: Callable[[Path], None] = lambda _folder: None


class AnyRequest(BaseHTTPRequestHandler):
    """The peers' API at start-up: an empty model list for a GET, an error for anything else."""

    def do_GET(self) -> None:  # noqa: N802 - the stdlib's name
        self._send(200, {"object": "list", "data": []})

    def do_POST(self) -> None:  # noqa: N802
        self._send(500, {"error": {"message": "the benchmark's server answers no request"}})

    def do_HEAD(self) -> None:  # noqa: N802
        self._send(200, {})

    def _send(self, status: int, body: dict[str, object]) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: object) -> None:
        pass


def orch_tui_program(name: str, executable: str, state: Path) -> Program:
    def argv(_folder: Path) -> list[str]:
        return ["env", "-u", "ANTHROPIC_API_KEY", f"XDG_STATE_HOME={state}", executable, "spec.md"]

    def frame(screen: Screen) -> bool:
        return bool(screen) and "orch-tui" in screen[0] and "Quit" in text(screen[-3:])

    def folder(path: Path) -> None:
        shutil.copy(DEMO_SPEC, path / "spec.md")

    return Program(
        name,
        argv,
        frame,
        ready=lambda s: frame(s) and DIFF_LINE in text(s) and "─ Spec" in text(s),
        key="s",
        answered=lambda s: "─ Spec" not in text(s),
        folder=folder,
    )


def log_program(app: Path) -> Program:
    return Program(
        "log",
        lambda _folder: [sys.executable, str(app)],
        frame=lambda s: "line 0001" in text(s),
        ready=lambda s: "line 0001" in text(s),
        key="End",
        answered=lambda s: "line 0300" in text(s),
    )


def codex_program(home: Path, url: str) -> Program:
    codex = PEERS / "node_modules" / ".bin" / "codex"
    codex_home = home / ".codex"
    codex_home.mkdir(parents=True, exist_ok=True)
    env = [f"HOME={home}", f"CODEX_HOME={codex_home}", f"OPENAI_API_KEY={FAKE_KEY}"]
    subprocess.run(
        ["env", *env, str(codex), "login", "--with-api-key"],
        input=FAKE_KEY,
        text=True,
        capture_output=True,
        check=True,
    )

    def folder(path: Path) -> None:
        subprocess.run(["git", "init", "-q", str(path)], check=True)
        (codex_home / "config.toml").write_text(
            "check_for_update_on_startup = false\n"
            'model_provider = "bench"\nmodel = "gpt-5"\n'
            f'[model_providers.bench]\nname = "bench"\nbase_url = "{url}/v1"\n'
            'env_key = "OPENAI_API_KEY"\nwire_api = "responses"\n'
            "[tui]\nscreen_reader_detection_done = true\n"
            f'[projects."{path}"]\ntrust_level = "trusted"\n'
        )

    return Program(
        "codex",
        lambda _folder: ["env", *env, str(codex)],
        frame=lambda s: "Ask Codex" in text(s),
        ready=lambda s: "Ask Codex" in text(s),
        key="x",
        answered=lambda s: "› x" in text(s),
        folder=folder,
    )


def claude_program(home: Path, url: str) -> Program:
    claude = PEERS / "node_modules" / ".bin" / "claude"
    home.mkdir(parents=True, exist_ok=True)
    env = [
        f"HOME={home}",
        f"ANTHROPIC_API_KEY={FAKE_KEY}",
        f"ANTHROPIC_BASE_URL={url}",
        "DISABLE_AUTOUPDATER=1",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
    ]

    def folder(path: Path) -> None:
        # Claude Code writes this file too: keep what it wrote, trust every folder of the run.
        settings_file = home / ".claude.json"
        settings = json.loads(settings_file.read_text()) if settings_file.exists() else {}
        settings.update(
            hasCompletedOnboarding=True,
            theme="dark",
            customApiKeyResponses={"approved": [FAKE_KEY[-20:]], "rejected": []},
        )
        settings.setdefault("projects", {})[str(path)] = {
            "hasTrustDialogAccepted": True,
            "hasCompletedProjectOnboarding": True,
        }
        settings_file.write_text(json.dumps(settings))

    return Program(
        "claude",
        lambda _folder: ["env", *env, str(claude)],
        frame=lambda s: any(line.startswith("❯") for line in s),
        ready=lambda s: any(line.startswith("❯") for line in s),
        key="x",
        answered=lambda s: any(typed(line, "❯") for line in s),
        folder=folder,
    )


def aider_program(home: Path, url: str) -> Program:
    aider = PEERS / "aider" / "bin" / "aider"
    home.mkdir(parents=True, exist_ok=True)
    argv = [
        "env", f"HOME={home}", str(aider), "--no-git", "--model", "openai/bench",
        "--openai-api-base", f"{url}/v1", "--openai-api-key", FAKE_KEY, "--no-check-update",
        "--no-show-model-warnings", "--no-analytics", "--no-show-release-notes",
    ]  # fmt: skip
    return Program(
        "aider",
        lambda _folder: argv,
        frame=lambda s: any(line.startswith(">") for line in s),
        ready=lambda s: any(line.startswith(">") for line in s),
        key="x",
        answered=lambda s: any(typed(line, ">") for line in s),
    )


def launch(tmux: Tmux, program: Program, folder: Path, times: dict[str, list[float]]) -> None:
    folder.mkdir(parents=True)
    program.folder(folder)
    name = f"{program.name}-{uuid.uuid4().hex[:6]}"
    start = time.perf_counter()
    tmux.start(name, folder, program.argv(folder), SIZE)
    try:
        paint = wait_until(tmux, name, lambda s: any(line.strip() for line in s), start, 60)
        frame = wait_until(tmux, name, program.frame, start, 60)
        content = wait_until(tmux, name, program.ready, start, 60)
        tmux.command(f"send-keys -t {name} {program.key}")
        ready = wait_until(tmux, name, program.answered, start, 60)
    finally:
        tmux.kill(name)
    for label, value in (
        ("first paint", paint),
        ("frame", frame),
        ("content", content),
        ("ready", ready),
    ):
        times.setdefault(label, []).append(value)


def stop_daemons(marker: str) -> None:
    """Codex leaves an app-server daemon running for its next launch: stop the ones this run
    started (their command line names our CODEX_HOME), each by its pid."""
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            command = (proc / "cmdline").read_bytes()
        except OSError:
            continue
        if marker.encode() in command:
            try:
                os.kill(int(proc.name), 15)
            except OSError:
                pass


def report(results: dict[str, dict[str, list[float]]], load: tuple[float, float]) -> None:
    print(f"\nload average {load[0]:.2f} before, {load[1]:.2f} after · medians (ms), spread")
    medians: dict[str, dict[str, float]] = {}
    for name, times in results.items():
        medians[name] = {label: statistics.median(values) for label, values in times.items()}
        cells = "  ".join(
            f"{label} {medians[name][label] * 1000:5.0f} "
            f"({min(values) * 1000:.0f}-{max(values) * 1000:.0f})"
            for label, values in times.items()
        )
        print(f"{name:<10} {cells}")
    log = medians.get("log", {}).get("first paint")
    codex = medians.get("codex", {}).get("ready")
    for name in results:
        if name in ("log", "codex", "claude", "aider"):
            continue
        mine = medians[name]
        if log:
            print(
                f"{name}: frame ÷ log's first paint {mine['frame'] / log:.2f}× (target ≤ 1.3×); "
                f"first paint ÷ log's {mine['first paint'] / log:.2f}×"
            )
        if codex:
            print(f"{name}: ready ÷ codex's ready {mine['ready'] / codex:.2f}× (target ≤ 1.0×)")
            print(f"{name}: content (the diff) ÷ codex's ready {mine['content'] / codex:.2f}×")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--peers", default="codex", help="comma-separated: codex,claude,aider")
    parser.add_argument("--build", action="append", default=[], metavar="NAME=EXECUTABLE")
    args = parser.parse_args()
    executable = shutil.which("orch-tui")
    if executable is None:
        sys.exit("orch-tui is not on PATH: activate the venv it is installed in")
    root = Path(tempfile.mkdtemp(prefix="orch-bench-frame-"))
    # Codex refuses some set-up under the temporary folder and says so on screen: its home
    # lives outside it.
    homes = Path(tempfile.mkdtemp(prefix="orch-bench-frame-", dir="/var/tmp"))
    server = ThreadingHTTPServer(("127.0.0.1", 0), AnyRequest)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}"
    (root / "log_app.py").write_text(LOG_APP)
    programs = [log_program(root / "log_app.py")]
    programs.append(orch_tui_program("orch-tui", executable, root / "state"))
    for build in args.build:
        name, path = build.split("=", 1)
        programs.append(orch_tui_program(name, path, root / f"state-{name}"))
    makers = {"codex": codex_program, "claude": claude_program, "aider": aider_program}
    for peer in filter(None, args.peers.split(",")):
        programs.append(makers[peer](homes / peer, url))
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
    env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    tmux = Tmux(env)
    results: dict[str, dict[str, list[float]]] = {}
    load_before = os.getloadavg()[0]
    try:
        for round_ in range(args.rounds):
            order = programs if round_ % 2 == 0 else programs[::-1]
            for program in order:
                folder = root / f"{program.name}-{round_}"
                try:
                    launch(tmux, program, folder, results.setdefault(program.name, {}))
                except TimeoutError as exc:  # counted out, said, and the run goes on
                    print(f"round {round_ + 1}: {program.name} timed out: {exc}", file=sys.stderr)
            print(f"round {round_ + 1} done", file=sys.stderr)
    finally:
        tmux.close()
        server.shutdown()
        stop_daemons(str(homes))
    report(results, (load_before, os.getloadavg()[0]))
    shutil.rmtree(root, ignore_errors=True)
    shutil.rmtree(homes, ignore_errors=True)


if __name__ == "__main__":
    main()
