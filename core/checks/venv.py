"""The project's own Python environment: ``.venv`` in the workspace (DESIGN section 12).

Checks never run in orch-tui's own environment, where its packages and pytest plugins would
load into the project's tests and the project's own dependencies would be missing. Before the
checks, :func:`prepare_env`:

- creates ``.venv`` in the workspace when there is none, with the interpreter running orch-tui
  (the standard library's ``venv``, in this process, without pip), and puts orch-tui's own
  pytest into it (pytest and what it needs: no network, and the pytest whose reports orch-tui
  reads), hard-linked where the file system allows, else copied;
- installs the dependencies the project declares (``requirements*.txt`` at its root,
  ``[project]`` dependencies and the test extras and groups of ``pyproject.toml``) with
  ``uv pip`` or orch-tui's pip, outside the sandbox where the network is allowed, and again
  whenever those files change (their digest is kept in ``.venv/.orch-deps``). The project
  itself is not installed: its code is imported from the workspace, so a trial run on a copy
  tests the copy.

``checks.python`` names an interpreter that is used as it is: nothing is created or installed.
An installation that fails is a failed check named ``dependencies`` whose output the model
reads, never an exception.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from orch_tui.core.checks.declarations import DeclarationError, declared_requirements
from orch_tui.core.checks.installer import Installing, failed_install, install
from orch_tui.core.checks.runner import CheckResult
from orch_tui.core.checks.venv_path import PROJECT_VENV, venv_python
from orch_tui.core.util.atomic import write_json_atomic, write_text_atomic
from orch_tui.core.util.records import record

if TYPE_CHECKING:
    from importlib.metadata import Distribution

    from orch_tui.core.config.models import Config

MARKER = ".orch-deps"
"""In ``.venv``: whether orch-tui created it, and the digest of what was last installed."""

SEED = "pytest"
"""Copied from orch-tui's environment into a ``.venv`` it creates, with what it requires."""

# One preparation at a time: the engine's checks and a trial run of the review screen may
# both reach for the same .venv.
VENV_LOCK = threading.Lock()


@record(frozen=True)
class ProjectEnv:
    """The interpreter the checks run with, or the failed check that stops them."""

    python: str
    failure: CheckResult | None = None


def check_python(config: Config, workspace: Path) -> str:
    """The interpreter ``{python}`` stands for: ``checks.python``, else the workspace's
    ``.venv`` (which :func:`prepare_env` creates when it is missing)."""
    if config.checks.python:
        return config.checks.python
    found = venv_python(workspace)
    return str((found or workspace / PROJECT_VENV / "bin" / "python").absolute())


def prepare_env(
    config: Config,
    workspace: Path,
    report_dir: Path,
    *,
    on_output: Callable[[str], None] | None = None,
    on_notice: Callable[[str], None] | None = None,
    running: Path | None = None,
) -> ProjectEnv:
    """Make the project's environment ready for the checks (see the module's docstring).

    ``on_notice`` hears what is being done (creating, installing) before it starts;
    ``on_output`` gets the installer's output live; ``running``: where its process group is
    recorded while it runs (``leftovers``).
    """
    if config.checks.python:
        return ProjectEnv(config.checks.python)
    try:
        return _prepare(config, workspace, report_dir, on_output, on_notice, running)
    except OSError as exc:  # a full disk, a folder it may not write: a failed check, no crash
        where = f"{exc.filename}: " if exc.filename else ""
        problem = f"cannot prepare {workspace / PROJECT_VENV}: {where}{exc.strerror or exc}"
        return ProjectEnv(sys.executable, failed_install([], problem))


def _prepare(
    config: Config,
    workspace: Path,
    report_dir: Path,
    on_output: Callable[[str], None] | None,
    on_notice: Callable[[str], None] | None,
    running: Path | None,
) -> ProjectEnv:
    say = on_notice or (lambda _message: None)
    with VENV_LOCK:
        marker = read_marker(workspace)
        if venv_python(workspace) is None or (marker.get("created") and not marker.get("seeded")):
            problem = _make_venv(workspace, marker, say)
            if problem is not None:
                return ProjectEnv(sys.executable, failed_install([], problem))
            marker = read_marker(workspace)
        python = venv_python(workspace)
        assert python is not None
        interpreter = str(python.absolute())
        try:
            declared = declared_requirements(workspace)
        except DeclarationError as exc:
            return ProjectEnv(interpreter, failed_install([], str(exc)))
        missing_pytest = not has_distribution(workspace, SEED)
        if marker.get("digest") != declared.digest or missing_pytest:
            what = [f"dependencies from {', '.join(declared.files)}"] if declared.files else []
            what += [SEED] if missing_pytest else []  # a person's venv without it
            if what:
                args = [*declared.args, *([SEED] if missing_pytest else [])]
                installing = Installing(" and ".join(what), args, report_dir, running)
                failure = install(config, workspace, interpreter, installing, say, on_output)
                if failure is not None:
                    return ProjectEnv(interpreter, failure)
            _write_marker(workspace, {**marker, "digest": declared.digest})
        return ProjectEnv(interpreter)


def read_marker(workspace: Path) -> dict[str, Any]:
    """``.venv/.orch-deps`` as a dict (empty when missing or unreadable)."""
    try:
        data = json.loads((workspace / PROJECT_VENV / MARKER).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def discard_created_venv(workspace: Path) -> bool:
    """Remove ``workspace/.venv`` if orch-tui created it (never a person's own); True if it did."""
    venv = workspace / PROJECT_VENV
    if not read_marker(workspace).get("created") or venv.is_symlink():
        return False
    shutil.rmtree(venv)
    return True


# -- creating ---------------------------------------------------------------------------------


def _make_venv(workspace: Path, marker: dict[str, Any], say: Callable[[str], None]) -> str | None:
    """Create ``.venv`` (unless only its pytest is missing) and put pytest into it; returns
    what went wrong, or None.

    The marker is written before the interpreter and ``seeded`` after pytest, so a run killed
    half-way finds a ``.venv`` it knows as its own and finishes or remakes it.
    """
    venv = workspace / PROJECT_VENV
    if venv_python(workspace) is None:
        if venv.exists() or venv.is_symlink():
            if not marker.get("created"):
                return (
                    f"{venv} exists but holds no Python interpreter: remove it (orch-tui then "
                    "creates it), or name an interpreter in checks.python"
                )
            shutil.rmtree(venv)  # ours, left half-made
        problem = _create_venv(venv, say)
        if problem is not None:
            shutil.rmtree(venv, ignore_errors=True)
            return problem
    from importlib.metadata import PackageNotFoundError  # 8 ms: only when a venv is made

    try:
        seed_distribution(site_packages_dir(venv))
    except (OSError, PackageNotFoundError) as exc:
        return f"could not put pytest into {venv}: {exc}"
    _write_marker(workspace, {"created": True, "seeded": True})
    return None


def _create_venv(venv: Path, say: Callable[[str], None]) -> str | None:
    """Make ``venv`` with the interpreter behind this one, in this process: 2 ms, where
    ``python -m venv`` in a child took 40 ms on the demo's first check."""
    import venv as venv_module  # only when a venv is made: start-up stays lean

    say(f"creating the project's environment {venv}")
    venv.mkdir()
    write_json_atomic(venv / MARKER, {"created": True}, durable=False)
    try:
        venv_module.EnvBuilder(with_pip=False, symlinks=os.name != "nt").create(venv)
    except (OSError, ValueError) as exc:  # ValueError: a path holding ":", the PATH separator
        return f"could not create {venv}: {exc}"
    if venv_python(venv.parent) is None:
        return f"could not create {venv}: it holds no Python interpreter"
    ignore = venv / ".gitignore"  # as uv and Python 3.13 write it: git never lists the venv
    if not ignore.exists():
        write_text_atomic(ignore, "*\n", durable=False)
    return None


def site_packages_dir(venv: Path) -> Path:
    """Where a venv made with this interpreter keeps its packages."""
    if os.name == "nt":
        return venv / "Lib" / "site-packages"
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    return venv / "lib" / version / "site-packages"


def seed_distribution(site_packages: Path, name: str = SEED) -> None:
    """Put the distribution ``name`` (:data:`SEED` by default) and what it requires from orch-tui's environment into ``site_packages``:
    each file hard-linked where the file system allows, else copied (see :func:`_put`).
    Console scripts are left out: the checks run ``python -m pytest``.

    A link shares the file with orch-tui's own environment, so nothing may write through it:
    sandboxed checks see ``.venv`` read-only; pip and uv replace files, never write into them;
    and an unsandboxed check could write orch-tui's own file directly anyway, a link giving no
    right the file's owner and mode do not.

    Plain ``os`` calls on strings, each folder made once: pathlib objects, a ``stat`` and a
    ``mkdir`` for each of pytest's 950 files cost as much as the links themselves.
    """
    made: set[str] = set()
    for dist in _requirement_closure(name):
        for file in dist.files or ():
            if file.parts[0] == "..":
                continue
            target = os.path.join(site_packages, file)
            folder = os.path.dirname(target)
            if folder not in made:
                os.makedirs(folder, exist_ok=True)
                made.add(folder)
            _put(str(dist.locate_file(file)), target)


def _put(source: str, target: str) -> None:
    """``source`` at ``target``: a hard link (20 ms for pytest's files, where copies took
    105 ms), else a copy (another file system, a file the kernel will not link for this user).
    A file already at ``target``, a link left by a killed seeding, is replaced, never written
    into; a file the distribution lists that is gone is left out."""
    try:
        os.link(source, target)
        return
    except FileNotFoundError:
        return
    except OSError:
        pass
    try:
        os.unlink(target)
    except FileNotFoundError:
        pass
    try:
        os.link(source, target)
    except OSError:
        shutil.copy2(source, target)


def _requirement_closure(name: str) -> Iterator[Distribution]:
    """The installed distribution ``name`` and, recursively, those it requires here."""
    from importlib.metadata import distribution  # only when a venv is made: start-up stays lean

    from packaging.requirements import Requirement

    seen: set[str] = set()
    queue = [name]
    while queue:
        wanted = _canonical(queue.pop())
        if wanted in seen:
            continue
        seen.add(wanted)
        dist = distribution(wanted)
        yield dist
        for line in dist.requires or ():
            requirement = Requirement(line)
            if requirement.marker is None or requirement.marker.evaluate({"extra": ""}):
                queue.append(requirement.name)


def _canonical(name: str) -> str:
    return name.lower().replace("_", "-").replace(".", "-")


def has_distribution(workspace: Path, name: str) -> bool:
    """Whether the venv has ``name`` installed (a ``*.dist-info`` folder for it)."""
    venv = workspace / PROJECT_VENV
    for pattern in ("lib/python*/site-packages/*.dist-info", "Lib/site-packages/*.dist-info"):
        for info in venv.glob(pattern):
            if _canonical(info.name.split("-", 1)[0]) == _canonical(name):
                return True
    return False


def _write_marker(workspace: Path, data: dict[str, Any]) -> None:
    write_json_atomic(workspace / PROJECT_VENV / MARKER, data, durable=False)
