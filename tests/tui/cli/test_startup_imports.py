"""What launching a run's review screen imports: only what its first frame and the run need.

Each module left out is time the person waits before anything is on screen, so the history
screens and the requirement parser are imported when first used, never on a run's launch;
nor is a process started just to load a library, nor ``importlib.resources`` (and the zipfile
it loads) to read the themes before the first frame, nor the checks' process module (killing
the running checks on leaving loads it).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from orch_tui.core.domain.state import RunState, State, StateStore

LEFT_OUT = (
    "orch_tui.tui.screens.history",
    "orch_tui.tui.widgets.runs_table",
    "orch_tui.tui.widgets.run_columns",
    "packaging",
    "importlib.resources",
    "orch_tui.core.checks.processes",
)


def _python_says(script: str, cwd: Path) -> str:
    """What ``script``, run by this Python in a process of its own in ``cwd``, prints."""
    result = subprocess.run(
        [sys.executable, "-c", script], cwd=cwd, capture_output=True, text=True, check=True
    )
    return result.stdout


def _loaded(code: str, cwd: Path) -> list[str]:
    """The modules of ``LEFT_OUT`` a fresh interpreter has loaded after running ``code``."""
    script = (
        f"{code}\nimport sys\n"
        f"print('\\n'.join(sorted(m for m in sys.modules if m.startswith({LEFT_OUT!r}))))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script],
        cwd=cwd,
        env={**os.environ, "XDG_STATE_HOME": str(cwd / "state")},  # ui.json: never the user's
        capture_output=True,
        text=True,
        check=True,
    )
    return result.stdout.split()


def test_a_runs_launch_path_imports_no_history_screen_nor_packaging(tmp_path: Path) -> None:
    assert _loaded("import orch_tui.tui.cli.commands, orch_tui.tui.launch", tmp_path) == []


def test_opening_the_history_imports_its_screens(tmp_path: Path) -> None:
    """The check above would pass vacuously if the names were wrong: the same probe sees them
    once the app builds its runs screen."""
    code = (
        "from pathlib import Path\n"
        "from orch_tui.core.config.models import Config\n"
        "from orch_tui.core.config.paths import ProjectPaths\n"
        "from orch_tui.tui.app import OrchApp\n"
        f"OrchApp(ProjectPaths.here(Path({str(tmp_path / 'orchestrator.toml')!r})), Config())"
        "._runs_screen()\n"
        "from orch_tui.core.checks.declarations import _plain_requirement\n"
        "_plain_requirement('pytest>=8', 'requirements.txt')\n"
    )
    loaded = _loaded(code, tmp_path)

    assert "orch_tui.tui.screens.history.runs_list" in loaded
    assert "packaging.requirements" in loaded


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="prctl is Linux's")
def test_loading_prctl_starts_no_process(tmp_path: Path) -> None:
    """Every command imports the process guard: finding libc through ``ctypes.util`` ran
    ``ldconfig -p`` in a child process each time."""
    script = (
        "import subprocess\n"
        "def refused(*args, **kwargs):\n"
        "    raise AssertionError(f'a process was started: {args}')\n"
        "subprocess.Popen = refused\n"
        "from orch_tui.core.checks import process_guard\n"
        "print(process_guard._PRCTL is not None, process_guard.make_non_dumpable())\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True
    )

    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["True", "True"]


HEAVY = (
    "textual",
    "rich",
    "pydantic",
    "anthropic",
    "openai",
    "dotenv",
    "orch_tui.core.loop.engine",
    "orch_tui.core.domain.events",
)


def _heavy_loaded(cwd: Path, argv: list[str]) -> tuple[list[str], str]:
    """The ``HEAVY`` modules ``orch-tui ARGV`` loads in ``cwd``, and what it printed."""
    script = (
        "import sys\n"
        "from orch_tui.tui.cli.commands import main\n"
        "try:\n"
        f"    main({argv!r})\n"
        "except SystemExit:\n"
        "    pass\n"
        f"heavy = {HEAVY!r}\n"
        "print('LOADED', *sorted(m for m in sys.modules if m.split('.')[0] in heavy"
        " or m in heavy))\n"
    )
    stdout = _python_says(script, cwd)
    said, loaded = stdout.split("LOADED", 1)
    return loaded.split(), said


def _project_with_run(root: Path, state: RunState = RunState.INIT) -> State:
    (root / "orchestrator.toml").write_text('[paths]\nworkspace = ""\n[checks]\nsandbox = "none"\n')
    run = State(run_id="20261127-101500-ab12", spec_path="spec.md", spec_hash="x", max_retries=3)
    run.state = state
    StateStore(root / "state.json").save(run)
    return run


@pytest.mark.parametrize(
    "argv",
    [
        ["--version"],
        ["--help"],
        ["status", "--help"],
        ["history", "--help"],
        ["batch", "--help"],
        ["verify", "--help"],
        ["inbox", "--help"],
        ["status"],
        ["status", "--json"],
    ],
)
def test_the_short_commands_load_no_ui_no_config_models_and_no_sdk(
    tmp_path: Path, argv: list[str]
) -> None:
    """``--version``, ``--help`` and ``status`` answer without the UI, the config models, the
    SDKs, the engine or the event set (issue 26): what they would load is time before the
    answer. ``status`` runs on a project with a config and a run in it."""
    _project_with_run(tmp_path)
    loaded, said = _heavy_loaded(tmp_path, argv)
    assert loaded == [], loaded
    assert said.strip()  # it did answer


def test_status_json_carries_a_finished_runs_evidence_without_the_event_set(
    tmp_path: Path,
) -> None:
    """The evidence ``--auto --json`` ends with, and the last attempt's, read as plain JSON."""
    run = _project_with_run(tmp_path, RunState.SUCCESS)
    log = tmp_path / "logs" / run.run_id
    (log / "attempt-00").mkdir(parents=True)
    verdict = {"tests_passed": 3, "added": 1, "rewritten": ["tests/test_a.py::test_a"]}
    finished = {"event": "run_finished", "state": "SUCCESS", "evidence": verdict}
    (log / "events.jsonl").write_text(
        json.dumps({"event": "notice", "message": "run_finished soon"})
        + "\n"
        + json.dumps(finished)
        + "\n"
        + '{"event": "run_fini'  # a torn last line
    )
    attempt = {"attempt": 0, "added": ["tests/test_a.py::test_b"], "uncovered_lines": 2}
    (log / "attempt-00" / "evidence.json").write_text(json.dumps(attempt))

    loaded, said = _heavy_loaded(tmp_path, ["status", "--json"])

    assert loaded == [], loaded
    status = json.loads(said)
    assert (status["evidence"], status["attempt_evidence"]) == (verdict, attempt)


def test_status_still_names_a_misspelt_paths_key(tmp_path: Path) -> None:
    """Reading the config without its models keeps the error a full read gives for the keys
    ``status`` relies on: a typo in where the workspace is would show the wrong run."""
    (tmp_path / "orchestrator.toml").write_text('[paths]\nworkspce = "../elsewhere"\n')
    result = subprocess.run(
        [sys.executable, "-m", "orch_tui.tui.cli", "status"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 1
    assert "unknown key 'paths.workspce'" in result.stderr
    assert "orchestrator.toml" in result.stderr


def test_doctor_validates_with_pydantic_what_the_plain_read_leaves_and_the_probe_sees_it(
    tmp_path: Path,
) -> None:
    """The probe above is not blind: doctor with a provider it must reach over the network (the
    default) and a value the plain read leaves to pydantic (3.0 for an integer, which it
    converts) validates the config with pydantic, and pydantic shows up."""
    (tmp_path / "orchestrator.toml").write_text("[feedback]\nmax_failures = 3.0\n")
    script = (
        "import sys\n"
        "from orch_tui.tui.cli.commands import main\n"
        "main(['doctor'])\n"
        "print('LOADED', 'pydantic' in sys.modules)\n"
    )
    stdout = _python_says(script, tmp_path)
    assert stdout.split("LOADED", 1)[1].split() == ["True"]


SCRIPTED_CONFIG = '[model]\nprovider = "scripted"\n[checks]\nsandbox = "none"\n'


@pytest.mark.parametrize(
    "config",
    [SCRIPTED_CONFIG, '[model]\nprovider = "claude-code"\n', "", SCRIPTED_CONFIG + "[prices]\n"],
)
def test_doctors_local_part_loads_no_ui_no_config_models_and_no_sdk(
    tmp_path: Path, config: str
) -> None:
    """Issue 26: doctor with a provider that needs no API reads a plainly valid config without
    the models (``--provider scripted`` as well as the config's own provider)."""
    (tmp_path / "orchestrator.toml").write_text(config)
    argv = ["doctor"] if config else ["doctor", "--provider", "scripted"]
    loaded, said = _heavy_loaded(tmp_path, argv)
    assert loaded == [], loaded
    assert f"project folder {tmp_path.resolve()} writable" in said


def test_doctor_refuses_a_bad_config_in_the_models_words(tmp_path: Path) -> None:
    """The plain read leaves what it does not take to the models: a misspelt key is named, a
    value the models convert (3.0 for an integer) is taken as a run takes it."""
    config = tmp_path / "orchestrator.toml"
    config.write_text(SCRIPTED_CONFIG + "[loop]\nmax_retrys = 3\n")
    bad = subprocess.run(["orch-tui", "doctor"], cwd=tmp_path, capture_output=True, text=True)
    assert bad.returncode == 1
    assert bad.stdout == ""
    assert f"orch-tui: {config}: unknown key 'loop.max_retrys'" in bad.stderr

    config.write_text(SCRIPTED_CONFIG + "[feedback]\nmax_failures = 3.0\n")
    converted = subprocess.run(["orch-tui", "doctor"], cwd=tmp_path, capture_output=True, text=True)
    assert converted.returncode == 0, converted.stderr
    assert "provider scripted: no key or API needed" in converted.stdout


FRAME_PROBE = """
import json, sys
import orch_tui.tui.cli.spec_run as spec_run
from textual.app import App
from orch_tui.tui.launch import OpeningApp
from orch_tui.tui.screens.loading import LoadingScreen

HEAVY = {heavy!r}
seen = {{}}
frame_mounted = LoadingScreen.on_mount

def on_mount(self):
    frame_mounted(self)
    seen["loaded at the frame"] = sorted(m for m in HEAVY if m in sys.modules)
    sources = self.app.stylesheet.source.values()
    seen["dialog rules at the frame"] = any("#edit-dialog" in css for css, *_ in sources)

LoadingScreen.on_mount = on_mount
app_display = App._display

def display(self, screen, renderable):  # a frame drawn: what Textual holds in a batch is not
    if renderable is not None and not self._batch_count:
        seen.setdefault("first drawn", len(seen))
    app_display(self, screen, renderable)

App._display = display
open_the_run = OpeningApp._open

def opening(self):  # on the opening thread, as it starts
    seen.setdefault("opened", len(seen))
    open_the_run(self)

OpeningApp._open = opening
spec_run.has_terminal = lambda: True  # the review screen's path, without a terminal to draw on
OpeningApp.run = lambda self, *args, **kwargs: App.run(self, headless=True)
from orch_tui.tui.cli.commands import main
code = main(["spec.md"])
seen["loaded at the end"] = sorted(m for m in HEAVY if m in sys.modules)
print("SEEN", json.dumps(seen), code)
"""
AT_THE_FRAME = (
    "orch_tui.core.loop.engine",
    "orch_tui.core.config.models",
    "orch_tui.core.domain.events",
    "orch_tui.core.domain.state",
    "orch_tui.tui.screens.review.screen",
    "pydantic",
    "importlib.metadata",  # the version, read only for --version
    # The commands' shared helpers (the config glance, the lock, the questions) and the keymap
    # check (it walks every screen module with pkgutil): none is needed to paint the frame.
    "orch_tui.tui.cli.shared",
    "orch_tui.core.config.glance",
    "orch_tui.core.workspace.lock",
    "orch_tui.core.domain.asking",
    "orch_tui.tui.keymap",
    "pkgutil",
)


def test_the_review_screens_frame_mounts_before_the_run_is_loaded(tmp_path: Path) -> None:
    """Issue 26: ``orch-tui SPEC`` paints its frame before the config models, the state and the
    engine are imported, and before the dialogs' rules are parsed; they load behind it, once
    it is drawn, and a config error found there still ends the command with the message and
    exit code of the full read."""
    (tmp_path / "spec.md").write_text("# A spec\n\nSomething.\n", encoding="utf-8")
    (tmp_path / "orchestrator.toml").write_text("[loop]\nmax_retrys = 3\n", encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-c", FRAME_PROBE.format(heavy=AT_THE_FRAME)],
        cwd=tmp_path,
        env={**os.environ, "XDG_STATE_HOME": str(tmp_path / "state")},
        capture_output=True,
        text=True,
        timeout=120,
    )

    seen, code = result.stdout.split("SEEN", 1)[1].rsplit(maxsplit=1)
    loaded = json.loads(seen)
    assert loaded["loaded at the frame"] == []
    assert loaded["dialog rules at the frame"] is False  # parsed when a dialog first opens
    assert loaded["first drawn"] < loaded["opened"]  # the opening thread waits for the frame
    assert "orch_tui.core.config.models" in loaded["loaded at the end"]  # the probe sees them
    assert code == "1"
    assert "orchestrator.toml" in result.stderr and "max_retrys" in result.stderr


DIALOGS = (
    "orch_tui.tui.screens.dialogs",
    "orch_tui.tui.screens.plan",
    "textual.widgets._text_area",
    "tree_sitter",
)


def test_the_review_screens_modules_leave_its_dialogs_to_when_one_opens(tmp_path: Path) -> None:
    """Issue 26: the opening thread imports the review screen's modules while the person waits
    for the first diff; its dialogs that load Textual's TextArea (and tree-sitter with it: the
    edit, the feedback, the plan, help and the stops) are imported when one first opens."""
    script = (
        "import sys\n"
        "import orch_tui.tui.launch, orch_tui.tui.cli.run, orch_tui.tui.screens.review.screen\n"
        f"print(*[m for m in {DIALOGS!r} if m in sys.modules], sep=',')\n"
        "import orch_tui.tui.screens.dialogs, orch_tui.tui.screens.plan\n"
        f"print(*[m for m in {DIALOGS!r} if m in sys.modules], sep=',')\n"
    )
    stdout = _python_says(script, tmp_path)
    before, after = stdout.splitlines()
    assert before == ""
    assert after.split(",") == list(DIALOGS)  # the probe sees them once a dialog is loaded


@pytest.mark.parametrize(
    ("config", "probed"), [("", True), ('[checks]\nsandbox = "none"\n', False)]
)
def test_auto_probes_early_only_when_the_config_may_use_bubblewrap(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, config: str, probed: bool
) -> None:
    from orch_tui.core.checks import sandbox
    from orch_tui.tui.cli import spec_run
    from orch_tui.tui.cli.parse import run_parser

    (tmp_path / "orchestrator.toml").write_text(config)
    monkeypatch.chdir(tmp_path)
    calls: list[bool] = []
    monkeypatch.setattr(sandbox, "probe_early", lambda: calls.append(True))
    spec_run._probe_sandbox_early(run_parser().parse_args(["spec.md", "--auto"]))
    assert calls == ([True] if probed else [])


def test_a_headless_runs_modules_leave_the_checks_step_to_after_the_first_request(
    tmp_path: Path,
) -> None:
    """Issue 26: the checks' step, the evidence and sqlite3 (coverage's data) are imported by
    the engine when the checks first run, after the first model request, not at a run's start;
    nor is ``importlib.metadata``, which only making or seeding a ``.venv`` needs, nor the data
    files' describers, which only a run given data files needs, nor the XML parser (the checks'
    JUnit reports) and ``configparser`` (a setup.cfg's or tox.ini's pytest section), nor
    ``socket``, which only a network provider's deadline needs (its SDK loads it), nor
    ``importlib.resources`` with the zipfile it loads (the packaged files are read by path),
    nor ``concurrent.futures`` and ``logging`` (the fsyncs' threads are core/util/worker_threads.py,
    a broken live-output callback's log line imports logging), nor ``secrets`` with ``base64``
    and ``hmac`` (temp names and run ids take ``os.urandom(n).hex()``, what ``token_hex`` is),
    nor the Claude Code provider and its figures' checks (every system prompt names Claude
    Code's tools: they are in core/domain/tools.py), nor ``shlex``, which only a hint that
    names the resuming command needs, nor ``tomllib``, which a config file and the checks'
    reading of the workspace's ``pyproject.toml`` need (a folder without a config starts
    without it), nor the checks' own runs (the configured checks' trial, coverage's settings,
    the venv and its installer) nor the check runner with its JUnit parser, process handling
    and verdicts (a run's start reads a saved report through core/checks/report.py), nor the
    syntax-tree comparison of a test file's hunks, which only the review needs, nor the run
    log's reader and active time, which only a run's summary at its end needs, nor ``hashlib``,
    which loads OpenSSL (the digests before the first request are core/util/digests.py's, its
    BLAKE2b loaded when a file is first outlined),
    nor ``tempfile``, nor the proposal's records with their diffing (``difflib``) and the
    review step, which the model's first answer needs, nor ``queue`` (the fsyncs' threads take
    ``_queue.SimpleQueue``, which is what ``queue.SimpleQueue`` is), nor the secrets' redaction,
    which a model error needs when it is raised, nor the restore with its guard (the note of
    undone attempts for the next prompt is the model step's), nor git's module, which only a
    workspace of the person's own (possibly a work tree) needs, nor the change plan and the
    run context's protocol, which only plan mode's planning uses, nor ``inspect`` with ``ast``,
    ``dis`` and ``tokenize`` (``dataclasses`` reads it for an undocumented plain dataclass's
    docstring only, and the outline of Python files parses with ``ast`` when there is one),
    nor ``random``, which ``tempfile`` loads, nor ``urllib.parse`` with ``ipaddress``, which
    ``pathlib`` reads for ``Path.as_uri`` only."""
    later = (
        "orch_tui.core.loop.checks_step",
        "orch_tui.core.loop.evidence_step",
        "sqlite3",
        "importlib.metadata",
        "orch_tui.core.datafiles.tabular",
        "orch_tui.core.datafiles.json_shape",
        "orch_tui.core.datafiles.xlsx",
        "mimetypes",
        "xml.etree.ElementTree",
        "configparser",
        "socket",
        "importlib.resources",
        "zipfile",
        "concurrent.futures",
        "logging",
        "secrets",
        "base64",
        "hmac",
        "orch_tui.core.providers.claude_code",
        "orch_tui.core.providers.figures",
        "shlex",
        "tomllib",
        "orch_tui.core.checks.trial",
        "orch_tui.core.checks.coverage_env",
        "orch_tui.core.checks.coverage_map",
        "orch_tui.core.checks.venv",
        "orch_tui.core.checks.installer",
        "orch_tui.core.checks.seeded_tools",
        "orch_tui.core.domain.test_weakening",
        "orch_tui.core.domain.test_syntax",
        "orch_tui.core.checks.runner",
        "orch_tui.core.checks.junit",
        "orch_tui.core.checks.processes",
        "orch_tui.core.checks.verdict",
        "orch_tui.core.runlog.reader",
        "orch_tui.core.runlog.active_time",
        "hashlib",
        "_hashlib",
        "_blake2",
        "tempfile",
        "orch_tui.core.domain.proposal",
        "orch_tui.core.domain.unified_diff",
        "orch_tui.core.loop.review_step",
        "difflib",
        "queue",
        "orch_tui.core.providers.redact",
        "orch_tui.core.loop.restore",
        "orch_tui.core.loop.restore_guard",
        "orch_tui.core.workspace.git",
        "orch_tui.core.loop.change_plan",
        "orch_tui.core.loop.context",
        "inspect",
        "ast",
        "dis",
        "tokenize",
        "random",
        "urllib.parse",
        "ipaddress",
    )
    script = (
        "import sys\n"
        "started = set(sys.modules)  # the interpreter's own start: site, an editable finder\n"
        "from orch_tui.core.util.stdlib_first import import_stdlib_first\n"
        "import_stdlib_first()  # as the executable does, first\n"
        "import orch_tui.tui.cli.run, orch_tui.core.loop.engine\n"
        f"print(*[m for m in {later!r} if m in sys.modules and m not in started])\n"
    )
    stdout = _python_says(script, tmp_path)
    assert stdout.split() == []


def _at_first_request(cwd: Path, config: str, probe: str, marker: str) -> str:
    """What ``probe`` (a demo ``--auto`` run whose scripted provider prints and exits at the
    first model request) printed after ``marker``, run in ``cwd`` with ``config`` and no
    Anthropic key."""
    (cwd / "orchestrator.toml").write_text(config)
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
    result = subprocess.run(
        [sys.executable, "-c", probe], cwd=cwd, env=env, capture_output=True, text=True, timeout=120
    )
    assert marker in result.stdout, result.stderr
    return result.stdout.split(marker, 1)[1]


def test_the_patterns_only_a_run_after_its_first_request_uses_are_not_compiled_at_its_start(
    tmp_path: Path,
) -> None:
    """Issue 26: a plan's, a question's, a patch prompt's, a JUnit report's and the replay's
    regular expressions are compiled when first used (core/util/patterns.py), not while a
    headless run's modules load."""
    script = (
        "import re, sys\n"
        "seen = []\n"
        "real = re._compile\n"
        "def compiled(pattern, flags):\n"
        "    seen.append(sys._getframe(2).f_globals.get('__name__', ''))\n"
        "    return real(pattern, flags)\n"
        "re._compile = compiled\n"
        "import orch_tui.tui.cli.run, orch_tui.core.loop.engine\n"
        "print(*sorted(set(seen)))\n"
    )
    stdout = _python_says(script, tmp_path)
    lazy = {
        "orch_tui.core.domain.plan",
        "orch_tui.core.domain.asking",
        "orch_tui.core.attempt.feedback",
        "orch_tui.core.checks.junit",
        "orch_tui.core.providers.scripted",
    }
    assert "orch_tui.core.domain.state" in stdout.split()  # the probe sees our modules
    assert lazy & set(stdout.split()) == set()


AUTO_PROBE = """
import os, sys
from pathlib import Path
import orch_tui.core
from orch_tui.core.providers.scripted import ScriptedProvider

def complete(self, request, on_text):
    print("LOADED", *sorted(m for m in sys.modules if m.split(".")[0] in {heavy!r}), flush=True)
    os._exit(0)

ScriptedProvider.complete = complete
from orch_tui.tui.cli.commands import main
main([str(Path(orch_tui.core.__file__).parent / "demo" / "spec.md"), "--auto"])
"""
PLAIN_CONFIG = (
    '[model]\ntimeout_seconds = 30\n[checks]\nsandbox = "none"\n'
    '[[checks.extra]]\nname = "lint"\ncommand = ["ruff", "check"]\n'
    "[prices.my-model]\ninput = 1\noutput = 2.5\ncache_write = 0\ncache_read = 0.1\n"
)


@pytest.mark.parametrize(
    ("config", "pydantic"),
    [(PLAIN_CONFIG, False), (PLAIN_CONFIG + "[feedback]\nmax_failures = 3.0\n", True)],
)
def test_auto_reaches_its_first_model_request_without_pydantic_on_a_plain_config(
    tmp_path: Path, config: str, pydantic: bool
) -> None:
    """Issue 26: pydantic and building a validator took longer than the rest of ``--auto``'s
    start; a config the plain read vouches for is built without it, up to the first model
    request. The probe is not blind: 3.0 for an integer is left to pydantic, which converts it."""
    heavy = ("pydantic", "pydantic_core", "annotated_types", "anthropic", "openai")
    loaded = _at_first_request(tmp_path, config, AUTO_PROBE.format(heavy=heavy), "LOADED").split()
    if pydantic:
        assert "pydantic" in loaded
    else:
        assert loaded == []


EXECUTABLE_PROBE = """
import os, sys, threading
started = set(sys.modules)  # what the interpreter's own start loaded (site, an editable finder)
import orch_tui.core

def asked(frame, event, arg):  # the scripted provider's first answer: the first model request
    code = frame.f_code
    if event == "call" and code.co_name == "complete" and code.co_filename.endswith("scripted.py"):
        print("LOADED", *[m for m in {modules!r} if m in sys.modules and m not in started])
        os._exit(0)

sys.setprofile(asked)
threading.setprofile(asked)
demo = os.path.join(os.path.dirname(orch_tui.core.__file__), "demo", "spec.md")
sys.argv = ["orch-tui", demo, "--auto"]
from orch_tui.tui.cli.executable import main
main()
"""
AT_FIRST_REQUEST_LATER = (
    "urllib.parse",
    "ipaddress",
    "inspect",
    "ast",
    "dis",
    "tokenize",
    "linecache",
    "tempfile",
    "random",
)


def test_the_executables_auto_reaches_its_first_request_without_inspect_nor_tempfile(
    tmp_path: Path,
) -> None:
    """Issue 26: the ``orch-tui`` executable imports ``dataclasses`` without ``inspect`` (with
    ``ast``, ``dis`` and ``tokenize``) and ``pathlib`` without ``urllib.parse`` (with
    ``ipaddress``: core/util/stdlib_first.py), the outline of a
    workspace's Python files imports ``ast`` only when there is one to parse, and neither the
    trial copies' sweep nor doctor's check of the project folder imports ``tempfile`` with
    ``random``. The probe sees ``dataclasses``, loaded by then; a module the interpreter's own
    start loaded is not ours to leave out (an editable install's finder imports ``pathlib``
    with ``urllib.parse``: this holds for an installed orch-tui, as CI's)."""
    probe = EXECUTABLE_PROBE.format(modules=("dataclasses", *AT_FIRST_REQUEST_LATER))
    loaded = _at_first_request(tmp_path, "", probe, "LOADED").split()
    assert loaded == ["dataclasses"]


RECORDS_PROBE = """
import os, sys
from pathlib import Path
import orch_tui.core
from orch_tui.core.providers.scripted import ScriptedProvider

def compiled(cls, name):
    method = vars(cls).get(name)
    code = getattr(getattr(method, "__wrapped__", method), "__code__", None)
    return code is not None and code.co_filename == "<string>"

def complete(self, request, on_text):
    classes = [
        value
        for module in list(sys.modules.values())
        if module.__name__.startswith("orch_tui")
        for value in vars(module).values()
        if isinstance(value, type) and value.__module__ == module.__name__
        and "__dataclass_fields__" in vars(value)
    ]
    built = [c.__qualname__ for c in classes for n in ("__eq__", "__repr__", "__hash__") if compiled(c, n)]
    guards = [c.__qualname__ for c in classes for n in ("__setattr__", "__delattr__") if compiled(c, n)]
    inits = [c.__qualname__ for c in classes if compiled(c, "__init__")]
    print("CLASSES", len(classes), "INITS", len(inits), "GUARDS", *guards, "COMPILED", *sorted(set(built)), flush=True)
    os._exit(0)

ScriptedProvider.complete = complete
from orch_tui.tui.cli.commands import main
main([str(Path(orch_tui.core.__file__).parent / "demo" / "spec.md"), "--auto"])
"""


def test_auto_compiles_no_dataclass_comparison_repr_or_hash_before_its_first_request(
    tmp_path: Path,
) -> None:
    """Issue 26: ``@dataclass`` compiles each class's ``__eq__``, ``__repr__`` and (frozen)
    ``__hash__`` from source, most of the ~110 classes' build time before ``--auto``'s first
    model request; every one of them is a ``@record`` (core/util/records.py), whose three are
    shared, whose frozen guards are closures and whose ``__init__`` is compiled when the class
    is first made: a third of them by then. The probe sees the classes (their count) and would
    name any ``@dataclass``."""
    printed = _at_first_request(tmp_path, SCRIPTED_CONFIG, RECORDS_PROBE, "CLASSES")
    counted, rest = printed.split("INITS")
    inits, rest = rest.split("GUARDS")
    guards, compiled = rest.split("COMPILED")
    assert int(counted) > 80
    assert 0 < int(inits) < int(counted) / 2  # those the run has made (all ~110 before)
    assert guards.split() == []
    assert compiled.split() == []
