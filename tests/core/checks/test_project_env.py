"""The checks run in the project's own environment: ``.venv`` in the workspace, made by orch-tui
with the project's declared dependencies, or checks.python (DESIGN section 12).

Nothing here reaches the network: the dependencies are wheels built in the test's own folder,
and pip (or uv) is pointed at them alone through the installer's environment variables.
Installing into a venv takes a second or more, so few tests install.
"""

from __future__ import annotations

import base64
import errno
import hashlib
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from orch_tui.core.checks.declarations import DeclarationError, declared_requirements
from orch_tui.core.checks.installer import INSTALL_CHECK, INSTALL_OUTPUT, installer_command
from orch_tui.core.checks.sandbox import resolve_sandbox
from orch_tui.core.checks.trial import run_configured, run_trial
from orch_tui.core.checks.venv import (
    MARKER,
    PROJECT_VENV,
    _put,
    check_python,
    discard_created_venv,
    prepare_env,
    read_marker,
)
from orch_tui.core.config.models import Config
from orch_tui.core.config.paths import ProjectPaths
from orch_tui.core.domain.events import Event, Notice
from orch_tui.core.domain.proposal import FileChange, Proposal
from orch_tui.core.domain.state import StateStore
from orch_tui.core.domain.state_records import WorkspaceRecord
from orch_tui.core.loop.engine import EXIT_SUCCESS
from orch_tui.core.loop.reset import reset_workspace
from orch_tui.core.runlog import layout as runlog
from orch_tui.core.runlog.writer import RunLog
from tests.core.loop.test_engine import GOOD, TEST, fast_config, make_engine
from tests.core.workspace.test_existing_project import make_engine as make_engine_in
from tests.support.scripting import attempt, create, prompt_text, replace

BWRAP = resolve_sandbox("auto")

APP = "from greeting import hello\n\n\ndef greet():\n    return hello() + '!'\n"
APP_TEST = """\
import importlib.util

from app import greet


def test_greet():
    assert greet() == 'hello from greeting!'


def test_none_of_orch_tuis_packages_or_plugins_is_here():
    for name in ('orch_tui', 'textual', 'anthropic', 'hypothesis', 'xdist', 'pytest_timeout'):
        assert importlib.util.find_spec(name) is None, name
"""


def make_wheel(folder: Path, name: str, version: str, code: str) -> Path:
    """A pure-Python wheel of one module ``name`` (built by hand: no build backend, no network)."""
    dist_info = f"{name}-{version}.dist-info"
    files = {
        f"{name}.py": code,
        f"{dist_info}/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n",
        f"{dist_info}/WHEEL": "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\n"
        "Tag: py3-none-any\n",
    }
    record = []
    for path, text in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b"=")
        record.append(f"{path},sha256={digest.decode()},{len(text.encode())}")
    files[f"{dist_info}/RECORD"] = "\n".join([*record, f"{dist_info}/RECORD,,"]) + "\n"
    folder.mkdir(parents=True, exist_ok=True)
    wheel = folder / f"{name}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        for path, text in files.items():
            archive.writestr(path, text)
    return wheel


@pytest.fixture
def local_index(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder of wheels, the only place pip or uv may install from."""
    wheels = tmp_path / "wheels"
    make_wheel(wheels, "greeting", "1.0", "def hello():\n    return 'hello from greeting'\n")
    make_wheel(wheels, "colours", "2.0", "RED = 'red'\n")
    monkeypatch.setenv("PIP_CONFIG_FILE", os.devnull)  # this machine's pip.conf names indexes
    for prefix in ("PIP", "UV"):
        monkeypatch.setenv(f"{prefix}_NO_INDEX", "1")
        monkeypatch.setenv(f"{prefix}_FIND_LINKS", str(wheels))
    monkeypatch.delenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", raising=False)
    return wheels


def project_config() -> Config:
    """The defaults: the project's own .venv, plugin auto-loading left on."""
    return Config()


def folder_requiring(tmp_path: Path, requirements: str) -> Path:
    """A person's folder whose requirements.txt says ``requirements``."""
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "requirements.txt").write_text(requirements)
    return folder


def notices(events: list[Event]) -> list[str]:
    return [event.message for event in events if isinstance(event, Notice)]


def test_a_generated_project_gets_its_dependencies_and_none_of_orch_tuis_packages(
    tmp_path: Path, local_index: Path
) -> None:
    (tmp_path / "spec.md").write_text("# greet\n")
    events: list[Event] = []
    engine, provider = make_engine(
        tmp_path,
        [
            attempt(
                create("requirements.txt", "greetnig==1.0\n"),  # a typo the model must fix
                create("app.py", APP),
                create("tests/test_app.py", APP_TEST),
            ),
            attempt(replace("requirements.txt", "greetnig", "greeting")),
        ],
        config=project_config(),
        events=events,
    )

    assert engine.run() == EXIT_SUCCESS

    workspace = tmp_path / "workspace"
    run = tmp_path / "logs" / engine.state.run_id
    said = notices(events)
    assert sum("creating the project's environment" in line for line in said) == 1
    assert sum("installing dependencies from requirements.txt" in line for line in said) == 2
    first = RunLog(tmp_path / "logs", engine.state.run_id).read_json(0, runlog.REPORT)
    assert [check["name"] for check in first["checks"]] == [INSTALL_CHECK]
    assert first["failing"] == [f"check:{INSTALL_CHECK}"]
    patch_prompt = prompt_text(provider.requests[-1])
    assert "check `dependencies`: installing dependencies from requirements.txt failed" in (
        patch_prompt
    )
    assert "greetnig" in patch_prompt  # the installer's own words reach the model
    assert "greeting" in (run / "attempt-01" / INSTALL_OUTPUT).read_text()
    output = (run / "attempt-01" / runlog.TEST_OUTPUT).read_text()
    assert "2 passed" in output and "plugins:" not in output  # no plugin of orch-tui's loaded
    assert check_python(project_config(), workspace) == str(
        (workspace / PROJECT_VENV / "bin" / "python").absolute()
    )
    assert (workspace / PROJECT_VENV / ".gitignore").read_text() == "*\n"


def test_dependencies_are_installed_again_only_when_their_files_change(
    tmp_path: Path, local_index: Path
) -> None:
    workspace = tmp_path / "mine"
    workspace.mkdir()
    (workspace / "pyproject.toml").write_text(
        '[project]\nname = "mine"\nversion = "0"\ndependencies = ["greeting"]\n'
    )
    reports = tmp_path / "reports"
    said: list[str] = []

    def prepare() -> str:
        env = prepare_env(project_config(), workspace, reports, on_notice=said.append)
        assert env.failure is None, env.failure
        return env.python

    python = prepare()
    assert [line for line in said if "installing" in line] == [
        f"installing dependencies from pyproject.toml into {workspace / PROJECT_VENV} …"
    ]
    said.clear()
    assert prepare() == python and said == []  # nothing changed: no installer at all

    (workspace / "requirements-dev.txt").write_text("colours==2.0\n")
    prepare()
    assert said == [
        "installing dependencies from requirements-dev.txt, pyproject.toml into "
        f"{workspace / PROJECT_VENV} …"
    ]
    installed = (reports / INSTALL_OUTPUT).read_text()
    assert "colours" in installed

    # reset in a person's folder removes the .venv orch-tui made, and says so
    record = WorkspaceRecord(path=str(workspace), default=False, git=None)
    said_by_reset = reset_workspace(ProjectPaths(tmp_path), record, tmp_path / "no-log")
    assert f"removed the {PROJECT_VENV} orch-tui created" in said_by_reset
    assert not (workspace / PROJECT_VENV).exists()
    assert (workspace / "pyproject.toml").is_file()


FAKE_UV = """\
import json, subprocess, sys
args = sys.argv[1:]
with open(sys.argv[0] + ".calls", "a") as calls:
    calls.write(json.dumps(args) + "\\n")
python = args[args.index("--python") + 1]
if args[:2] == ["pip", "install"]:
    rest = args[args.index("--python") + 2 :]
    sys.exit(subprocess.call([sys.executable, "-m", "pip", "--python", python, "install", *rest]))
sys.exit(2)
"""


def fake_uv(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, source: str) -> Path:
    """A stand-in ``uv`` running ``source``, first on the PATH."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    uv = bin_dir / "uv"
    uv.write_text(f"#!{sys.executable}\n{source}")
    uv.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    return uv


def test_uv_installs_when_it_is_on_the_path(
    tmp_path: Path, local_index: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """uv itself may not be here: a stand-in on the PATH that does what uv would, with pip."""
    uv = fake_uv(tmp_path, monkeypatch, FAKE_UV)
    workspace = folder_requiring(tmp_path, "greeting==1.0\n")

    env = prepare_env(project_config(), workspace, tmp_path / "reports")

    assert env.failure is None, env.failure
    calls = [json.loads(line) for line in Path(f"{uv}.calls").read_text().splitlines()]
    assert [call[:2] for call in calls] == [["pip", "install"]]  # the venv is made in-process
    assert calls[0][-1:] == ["greeting==1.0"]  # by name, never "-r file"
    assert {"--no-build", "--no-config"} <= set(calls[0])  # wheels only, no project uv config
    assert "greeting" in (tmp_path / "reports" / INSTALL_OUTPUT).read_text()


def test_a_trial_run_on_a_copy_uses_the_workspaces_environment(
    tmp_path: Path, local_index: Path
) -> None:
    workspace = folder_requiring(tmp_path, "greeting==1.0\n")
    proposal = Proposal(
        0, (FileChange("app.py", None, APP), FileChange("tests/test_app.py", None, APP_TEST))
    )

    outcome = run_trial(project_config(), workspace, proposal, before=None)

    assert outcome.report.passed, outcome.report.summary()
    assert outcome.report.counts["passed"] == 2
    assert not (workspace / "app.py").exists()  # the proposal landed in the copy only
    assert read_marker(workspace)["digest"] == declared_requirements(workspace).digest


def wrapper(path: Path, word: str) -> Path:
    """An interpreter that says ``word`` on stderr, then is this Python."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f'#!/bin/sh\necho {word} >&2\nexec "{sys.executable}" "$@"\n')
    path.chmod(0o755)
    return path


def a_persons_venv(folder: Path) -> Path:
    """A .venv the person made, with pytest in it (as a dist-info folder says)."""
    python = wrapper(folder / PROJECT_VENV / "bin" / "python", "project-venv-python")
    (folder / PROJECT_VENV / "lib" / "python3.11" / "site-packages" / "pytest-8.0.dist-info").mkdir(
        parents=True
    )
    return python


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    folder = tmp_path / "orch"
    folder.mkdir()
    (folder / "spec.md").write_text("# calc\n")
    return folder


def run_once(project: Path, folder: Path, config: Config) -> str:
    engine = make_engine_in(
        project, folder, [attempt(create("calc.py", GOOD), create("tests/test_calc.py", TEST))]
    )
    engine.config = config
    assert engine.run() == EXIT_SUCCESS
    return (project / "logs" / engine.state.run_id / "attempt-00" / "test-output.txt").read_text()


def test_a_persons_own_venv_runs_the_checks_and_is_never_removed(
    project: Path, tmp_path: Path
) -> None:
    folder = tmp_path / "mine"
    a_persons_venv(folder)
    config = fast_config()
    config.checks.python = ""
    config.checks.sandbox = "none"  # the sandbox's /tmp is private: the wrapper's is not in it
    assert "project-venv-python" in run_once(project, folder, config)
    record = StateStore(project / "state.json").load().workspace
    assert "removed" not in reset_workspace(ProjectPaths(project), record, None)
    assert not discard_created_venv(folder) and (folder / PROJECT_VENV / "bin" / "python").exists()


def test_checks_python_overrides_the_interpreter_and_makes_nothing(
    project: Path, tmp_path: Path
) -> None:
    folder = folder_requiring(tmp_path, "no-such-package\n")
    config = fast_config()
    config.checks.sandbox = "none"
    config.checks.python = str(wrapper(tmp_path / "other" / "python", "configured-python"))
    output = run_once(project, folder, config)
    assert "configured-python" in output
    assert not (folder / PROJECT_VENV).exists()  # nothing created, nothing installed


def test_a_venv_without_an_interpreter_is_a_failed_check_not_a_crash(tmp_path: Path) -> None:
    (tmp_path / PROJECT_VENV).mkdir()
    env = prepare_env(project_config(), tmp_path, tmp_path / "reports")
    assert env.failure is not None and not env.failure.passed
    assert env.failure.name == INSTALL_CHECK and "holds no Python interpreter" in str(
        env.failure.error
    )


def test_a_venv_left_half_made_by_a_killed_run_is_made_again(tmp_path: Path) -> None:
    (tmp_path / PROJECT_VENV).mkdir()
    (tmp_path / PROJECT_VENV / MARKER).write_text('{"created": true}')  # killed before python
    env = prepare_env(project_config(), tmp_path, tmp_path / "reports")
    assert env.failure is None, env.failure
    assert read_marker(tmp_path)["seeded"] is True
    assert list((tmp_path / PROJECT_VENV).glob("lib/python*/site-packages/pytest-*.dist-info"))


def seeded_pytest(workspace: Path) -> Path:
    """pytest's ``__init__.py`` in the workspace's ``.venv``."""
    (found,) = (workspace / PROJECT_VENV).glob("lib/python*/site-packages/pytest/__init__.py")
    return found


def test_pytest_is_linked_into_the_venv_and_runs_from_there(tmp_path: Path) -> None:
    """Hard links, where orch-tui's environment and the workspace share a file system: the same
    files, none copied, and the venv's interpreter imports pytest from its own site-packages."""
    env = prepare_env(project_config(), tmp_path, tmp_path / "reports")

    assert env.failure is None, env.failure
    ours = Path(pytest.__file__)
    seeded = seeded_pytest(tmp_path)
    if ours.stat().st_dev == tmp_path.stat().st_dev:
        assert seeded.samefile(ours)
    where = subprocess.run(
        [env.python, "-c", "import pytest; print(pytest.__file__)"],
        capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    assert Path(where) == seeded


def test_pytest_is_copied_where_it_cannot_be_linked_and_nothing_is_written_into_ours(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another file system (EXDEV): copies. A run killed while seeding left links behind; the
    run that finishes the seeding replaces them, never writing through them into orch-tui's
    own pytest."""
    assert prepare_env(project_config(), tmp_path, tmp_path / "reports").failure is None
    ours = Path(pytest.__file__)
    before = ours.stat()
    (tmp_path / PROJECT_VENV / MARKER).write_text('{"created": true}')  # killed mid-seeding

    def cross_device(source: object, target: object) -> None:
        raise OSError(errno.EXDEV, "Invalid cross-device link")

    monkeypatch.setattr(os, "link", cross_device)
    env = prepare_env(project_config(), tmp_path, tmp_path / "reports")

    assert env.failure is None, env.failure
    assert read_marker(tmp_path)["seeded"] is True
    seeded = seeded_pytest(tmp_path)
    assert not seeded.samefile(ours) and seeded.read_bytes() == ours.read_bytes()
    assert seeded.stat().st_mtime_ns == before.st_mtime_ns  # copy2: a .pyc stays valid
    assert ours.stat().st_mtime_ns == before.st_mtime_ns and ours.stat().st_ino == before.st_ino


def test_a_file_a_distribution_lists_but_that_is_gone_is_left_out(tmp_path: Path) -> None:
    """RECORD can name a file since removed (a deleted ``.pyc``): seeding goes on without it."""
    _put(str(tmp_path / "gone.pyc"), str(tmp_path / "seeded.pyc"))

    assert not (tmp_path / "seeded.pyc").exists()


TAMPER = """\
import sys
try:
    with open(sys.argv[1], "a") as seeded:
        seeded.write("# tampered")
    print("WROTE")
except OSError as exc:
    print("DENIED", exc)
"""


@pytest.mark.skipif(not BWRAP.confined, reason=f"bubblewrap cannot run here: {BWRAP.why}")
def test_a_sandboxed_check_cannot_write_through_the_links_into_orch_tuis_pytest(
    tmp_path: Path,
) -> None:
    """The seeded files are orch-tui's own where they are links: the checks see ``.venv``
    read-only, so a test that appends to pytest's source is refused and ours is unchanged."""
    assert prepare_env(project_config(), tmp_path, tmp_path / "reports").failure is None
    seeded, ours = seeded_pytest(tmp_path), Path(pytest.__file__)
    before = ours.read_bytes()
    config = project_config()
    config.checks.sandbox = "bwrap"
    config.checks.test_command = ["{python}", "-c", TAMPER, str(seeded)]

    report = run_configured(config, tmp_path, tmp_path / "reports")

    (check,) = report.checks
    assert "DENIED" in check.output and "WROTE" not in check.output
    assert ours.read_bytes() == before and seeded.read_bytes() == before


def test_declared_requirements_come_from_requirement_files_and_pyproject(tmp_path: Path) -> None:
    assert declared_requirements(tmp_path).args == []
    (tmp_path / "requirements.txt").write_text("requests\n")
    (tmp_path / "requirements-test.txt").write_text("pytest-mock\n")
    (tmp_path / "pyproject.toml").write_text(
        "[project]\n"
        'dependencies = ["attrs>=23"]\n'
        '[project.optional-dependencies]\ntest = ["freezegun"]\ndocs = ["sphinx"]\n'
        '[dependency-groups]\ndev = ["ruff", {include-group = "lint"}]\nlint = ["mypy"]\n'
    )
    declared = declared_requirements(tmp_path)
    assert declared.files == ["requirements-test.txt", "requirements.txt", "pyproject.toml"]
    assert declared.args == [
        "pytest-mock", "requests",
        "attrs>=23", "freezegun", "ruff", "mypy",
    ]  # fmt: skip
    before = declared.digest
    (tmp_path / "requirements.txt").write_text("requests>=2\n")
    assert declared_requirements(tmp_path).digest != before

    (tmp_path / "pyproject.toml").write_text("[project\n")
    with pytest.raises(DeclarationError, match="pyproject.toml cannot be read"):
        declared_requirements(tmp_path)
    (tmp_path / "pyproject.toml").write_text('[project]\ndependencies = "requests"\n')
    with pytest.raises(DeclarationError, match="project.dependencies must be a list"):
        declared_requirements(tmp_path)


@pytest.mark.parametrize(
    ("line", "why"),
    [
        ("-e .", "options are not installed"),
        ("--index-url http://127.0.0.1:9/simple", "options are not installed"),
        ("-r /etc/passwd", "options are not installed"),
        ("pkg @ file:///tmp/pkg", "a direct URL or path"),
        ("pkg @ git+https://example.invalid/pkg.git", "a direct URL or path"),
        ("not a requirement!", "is not a requirement"),
    ],
)
def test_only_requirements_by_name_reach_the_installer(tmp_path: Path, line: str, why: str) -> None:
    """The installer runs outside the sandbox, on files the model or a check may have written:
    an option line, a URL or a path would let it run or fetch code of their choosing."""
    (tmp_path / "requirements.txt").write_text(f"# pinned\nrequests>=2  # http\n{line}\n")
    with pytest.raises(DeclarationError, match=why):
        declared_requirements(tmp_path)
    (tmp_path / "requirements.txt").write_text("requests>=2 ; python_version >= '3'\n")
    assert declared_requirements(tmp_path).args == ['requests>=2; python_version >= "3"']


def test_the_installer_takes_wheels_only() -> None:
    """No sdist's build code runs outside the sandbox: pip is told to take wheels alone."""
    command = installer_command(Path("/nowhere/python"))
    assert command is not None
    assert "--only-binary=:all:" in command or "--no-build" in command


def test_a_workspace_whose_path_venv_refuses_is_a_failed_check_not_a_crash(
    tmp_path: Path,
) -> None:
    """The standard library's venv refuses a path holding the PATH separator (a ``:``): the
    checks fail saying so, and no half-made ``.venv`` is left behind."""
    workspace = tmp_path / "client:project"
    workspace.mkdir()

    env = prepare_env(project_config(), workspace, tmp_path / "reports")

    assert env.failure is not None and env.failure.name == INSTALL_CHECK
    assert "could not create" in str(env.failure.error) and "PATH separator" in str(
        env.failure.error
    )
    assert not (workspace / PROJECT_VENV).exists()


def test_a_venv_that_cannot_be_made_is_a_failed_check_not_a_crash(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A full disk while the environment is prepared: the checks fail with the reason, which
    the model and the person read, instead of the run stopping on a traceback."""

    from orch_tui.core.checks import venv as project_env

    def full_disk(workspace: Path) -> dict[str, object]:
        raise OSError(errno.ENOSPC, "No space left on device", str(workspace / MARKER))

    monkeypatch.setattr(project_env, "read_marker", full_disk)
    workspace = tmp_path / "ws"
    workspace.mkdir()

    env = prepare_env(project_config(), workspace, tmp_path / "reports")

    assert env.failure is not None and env.failure.error
    assert "No space left on device" in env.failure.error


def test_a_module_found_for_checks_python_is_not_looked_for_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Issue 26, item 6: with ``checks.python`` every attempt asked whether coverage is there,
    by starting that interpreter (about 40 ms an attempt); found once, it is taken as there.
    One not found is looked for again: the person may install it meanwhile."""
    from orch_tui.core.checks import seeded_tools

    started: list[list[str]] = []
    real_run = seeded_tools.subprocess.run

    def counting_run(argv: list[str], **kwargs: object) -> object:
        started.append(argv)
        return real_run(argv, **kwargs)  # type: ignore[call-overload]

    monkeypatch.setattr(seeded_tools, "_FOUND", set())
    monkeypatch.setattr(seeded_tools.subprocess, "run", counting_run)

    assert seeded_tools.has_module(sys.executable, "json")
    assert seeded_tools.has_module(sys.executable, "json")
    assert not seeded_tools.has_module(sys.executable, "no_such_module_anywhere")
    assert not seeded_tools.has_module(sys.executable, "no_such_module_anywhere")

    assert len(started) == 3
