"""Pin a pytest check's configuration to the workspace: nothing of its parent folders counts.

Left alone, pytest walks up from the workspace for a config file (``pytest.ini``,
``pyproject.toml``, ``tox.ini``, ``setup.cfg``) and loads every ``conftest.py`` above its rootdir.
A workspace under a repository whose ``pyproject.toml`` says ``addopts = "-n auto"`` then asks the
project's venv for a plugin it does not have, and a parent ``conftest.py`` runs in every check.
:func:`pin_config` adds, right after ``pytest`` in the command, whichever of these the command
does not set itself (each exists in pytest 8.0, the lowest pytest orch-tui allows):

- ``--rootdir=<workspace>``: node ids relative to the workspace;
- ``-c <file>``: the workspace's own config file when it has one, else ``/dev/null`` (an empty
  config: pytest then looks for no other);
- ``--confcutdir=<workspace>``: no ``conftest.py`` above the workspace is loaded.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

RUNNER_NAME = "coverage_runner.py"
"""The coverage runner (this package's ``coverage_runner``), as copied into a check's reports
folder: a command starting it runs pytest."""

EMPTY_CONFIG = "/dev/null"

_CONFIG_FILES = ("pytest.ini", ".pytest.ini", "pyproject.toml", "tox.ini", "setup.cfg")


def is_pytest(command: Sequence[str]) -> bool:
    """Whether ``command`` runs pytest (``pytest ...``, ``py.test ...``, ``python -m pytest``)."""
    return _pytest_position(command) is not None


def pin_config(command: Sequence[str], workspace: Path) -> list[str]:
    """``command`` with the options that pin pytest's configuration to ``workspace`` (see the
    module's docstring); any other command unchanged."""
    position = _pytest_position(command)
    if position is None:
        return list(command)
    root = str(workspace.resolve())
    given = set(command)
    added: list[str] = []
    if not _sets(given, "--rootdir"):
        added.append(f"--rootdir={root}")
    if not (_sets(given, "--config-file") or "-c" in given):
        found = workspace_config(workspace)
        added += ["-c", str(found.resolve()) if found is not None else EMPTY_CONFIG]
    if not _sets(given, "--confcutdir"):
        added.append(f"--confcutdir={root}")
    return [*command[: position + 1], *added, *command[position + 1 :]]


def workspace_config(workspace: Path) -> Path | None:
    """The config file pytest would take from ``workspace`` itself, in pytest's own order:
    ``pytest.ini`` (even empty), ``.pytest.ini``, then ``pyproject.toml``, ``tox.ini`` and
    ``setup.cfg`` when they hold a pytest section."""
    for name in _CONFIG_FILES:
        path = workspace / name
        if path.is_file() and _holds_pytest_section(path):
            return path
    return None


def _holds_pytest_section(path: Path) -> bool:
    if path.name in ("pytest.ini", ".pytest.ini"):
        return True
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return True  # unreadable: pytest says what is wrong with it, better than a silent skip
    if path.name == "pyproject.toml":
        import tomllib  # when the checks first run, not at every run's start

        try:
            tool = tomllib.loads(text).get("tool")
        except tomllib.TOMLDecodeError:
            return True
        return isinstance(tool, dict) and "pytest" in tool
    import configparser  # only for a setup.cfg or tox.ini: not at every run's start

    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read_string(text, source=str(path))
    except configparser.Error:
        return True
    return parser.has_section("pytest" if path.name == "tox.ini" else "tool:pytest")


def _sets(given: set[str], option: str) -> bool:
    return option in given or any(arg.startswith(f"{option}=") for arg in given)


def _pytest_position(command: Sequence[str]) -> int | None:
    """The index of the argument naming pytest, or None when the command is not pytest.

    Under coverage (``PYTHON coverage_runner.py RCFILE ARGS``) pytest's arguments follow the
    settings file, which stands in for it."""
    if command and Path(command[0]).name.startswith(("pytest", "py.test")):
        return 0
    if len(command) >= 3 and Path(command[1]).name == RUNNER_NAME:
        return 2
    for index, (arg, following) in enumerate(zip(command, command[1:], strict=False)):
        if arg == "-m" and following == "pytest":
            return index + 1
    return None
