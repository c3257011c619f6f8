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

import hashlib
import importlib.metadata
import json
import os
import re
import shutil
import sys
import threading
import tomllib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from orch_tui.core.checks.runner import CheckResult, CheckSpec, run_check
from orch_tui.core.checks.sandbox import NO_SANDBOX
from orch_tui.core.config.models import Config, is_secret_env_name
from orch_tui.core.util.atomic import write_json_atomic, write_text_atomic

PROJECT_VENV = ".venv"
MARKER = ".orch-deps"
"""In ``.venv``: whether orch-tui created it, and the digest of what was last installed."""

INSTALL_CHECK = "dependencies"
"""The name of the installation when it fails, as a check in the report."""

INSTALL_OUTPUT = "install-output.txt"
"""The installer's output, beside the attempt's reports."""

TEST_GROUPS = ("test", "tests", "testing", "dev")
"""Optional-dependency extras and dependency groups of pyproject.toml installed for the tests."""

SEED = "pytest"
"""Copied from orch-tui's environment into a ``.venv`` it creates, with what it requires."""

_INSTALLER_ENV_PREFIXES = ("PIP_", "UV_")
_INSTALLER_ENV_NAMES = frozenset(
    {
        "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY",
        "SSL_CERT_FILE", "SSL_CERT_DIR", "REQUESTS_CA_BUNDLE", "XDG_CACHE_HOME", "XDG_CONFIG_HOME",
    }
)  # fmt: skip
# One preparation at a time: the engine's checks and a trial run of the review screen may
# both reach for the same .venv.
_LOCK = threading.Lock()


class DeclarationError(Exception):
    """A file that declares dependencies cannot be read; the message says which and why."""


@dataclass(frozen=True)
class Declared:
    """What a project declares: the files (for people) and the installer's arguments."""

    files: list[str]
    args: list[str]
    digest: str


@dataclass(frozen=True)
class ProjectEnv:
    """The interpreter the checks run with, or the failed check that stops them."""

    python: str
    failure: CheckResult | None = None


def venv_python(workspace: Path) -> Path | None:
    """The interpreter of ``workspace/.venv`` (POSIX or Windows layout), if there is one."""
    for relative in ("bin/python", "Scripts/python.exe"):
        candidate = workspace / PROJECT_VENV / relative
        if candidate.is_file():
            return candidate
    return None


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
        return ProjectEnv(sys.executable, _failed([], problem))


def _prepare(
    config: Config,
    workspace: Path,
    report_dir: Path,
    on_output: Callable[[str], None] | None,
    on_notice: Callable[[str], None] | None,
    running: Path | None,
) -> ProjectEnv:
    say = on_notice or (lambda _message: None)
    with _LOCK:
        marker = read_marker(workspace)
        if venv_python(workspace) is None or (marker.get("created") and not marker.get("seeded")):
            problem = _make_venv(workspace, marker, say)
            if problem is not None:
                return ProjectEnv(sys.executable, _failed([], problem))
            marker = read_marker(workspace)
        python = venv_python(workspace)
        assert python is not None
        interpreter = str(python.absolute())
        try:
            declared = declared_requirements(workspace)
        except DeclarationError as exc:
            return ProjectEnv(interpreter, _failed([], str(exc)))
        missing_pytest = not _has_distribution(workspace, SEED)
        if marker.get("digest") != declared.digest or missing_pytest:
            what = [f"dependencies from {', '.join(declared.files)}"] if declared.files else []
            what += [SEED] if missing_pytest else []  # a person's venv without it
            if what:
                args = [*declared.args, *([SEED] if missing_pytest else [])]
                installing = Installing(" and ".join(what), args, report_dir, running)
                failure = _install(config, workspace, interpreter, installing, say, on_output)
                if failure is not None:
                    return ProjectEnv(interpreter, failure)
            _write_marker(workspace, {**marker, "digest": declared.digest})
        return ProjectEnv(interpreter)


def declared_requirements(workspace: Path) -> Declared:
    """The dependencies ``workspace`` declares, as installer arguments, and their digest.

    The installer runs outside the sandbox with the network on, and the model (or a check) can
    write these files: only plain requirements by name pass (``name[extra] >= 1 ; marker``).
    Option lines (``-e .``, ``-r``, ``--index-url``) and direct URLs or paths are refused, so
    nothing but a published wheel can be installed (see :func:`installer_command`).
    """
    requirement_files = sorted(
        path.name for path in workspace.glob("requirements*.txt") if path.is_file()
    )
    args: list[str] = []
    files = list(requirement_files)
    digest = hashlib.sha256()
    for name in requirement_files:
        try:
            data = (workspace / name).read_bytes()
        except OSError as exc:
            raise DeclarationError(f"{name} cannot be read: {exc.strerror or exc}") from None
        digest.update(name.encode() + b"\0" + data + b"\0")
        args += [_plain_requirement(line, name) for line in _requirement_lines(data, name)]
    pyproject = workspace / "pyproject.toml"
    if pyproject.is_file():
        try:
            data = pyproject.read_bytes()
        except OSError as exc:
            raise DeclarationError(
                f"pyproject.toml cannot be read: {exc.strerror or exc}"
            ) from None
        digest.update(b"pyproject.toml\0" + data)
        listed = _pyproject_requirements(data)
        if listed:
            files.append("pyproject.toml")
            args += [_plain_requirement(entry, "pyproject.toml") for entry in listed]
    return Declared(files, args, digest.hexdigest())


def _requirement_lines(data: bytes, name: str) -> list[str]:
    """The requirement lines of a requirements file: comments and blank lines left out."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise DeclarationError(f"{name} is not UTF-8 text") from None
    lines = (re.sub(r"(^|\s)#.*$", "", line).strip() for line in text.splitlines())
    return [line for line in lines if line]


def _plain_requirement(text: str, where: str) -> str:
    """``text`` as a requirement by name, or a DeclarationError saying why it is refused."""
    if text.startswith("-"):
        raise DeclarationError(
            f"{where}: {text!r}: options are not installed by orch-tui (the installer runs "
            "outside the sandbox); list packages by name, with versions"
        )
    from packaging.requirements import InvalidRequirement, Requirement  # start-up stays lean

    try:
        requirement = Requirement(text)
    except InvalidRequirement as exc:
        raise DeclarationError(f"{where}: {text!r} is not a requirement: {exc}") from None
    if requirement.url:
        raise DeclarationError(
            f"{where}: {text!r}: a direct URL or path is not installed by orch-tui (the "
            "installer runs outside the sandbox); name a published package instead"
        )
    return str(requirement)


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
    try:
        _seed(_site_packages(venv))
    except (OSError, importlib.metadata.PackageNotFoundError) as exc:
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


def _site_packages(venv: Path) -> Path:
    """Where a venv made with this interpreter keeps its packages."""
    if os.name == "nt":
        return venv / "Lib" / "site-packages"
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    return venv / "lib" / version / "site-packages"


def _seed(site_packages: Path) -> None:
    """Put :data:`SEED` and what it requires from orch-tui's environment into ``site_packages``:
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
    for dist in _requirement_closure(SEED):
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


def _requirement_closure(name: str) -> Iterator[importlib.metadata.Distribution]:
    """The installed distribution ``name`` and, recursively, those it requires here."""
    from packaging.requirements import Requirement  # only when a venv is made: start-up stays lean

    seen: set[str] = set()
    queue = [name]
    while queue:
        wanted = _canonical(queue.pop())
        if wanted in seen:
            continue
        seen.add(wanted)
        dist = importlib.metadata.distribution(wanted)
        yield dist
        for line in dist.requires or ():
            requirement = Requirement(line)
            if requirement.marker is None or requirement.marker.evaluate({"extra": ""}):
                queue.append(requirement.name)


def _canonical(name: str) -> str:
    return name.lower().replace("_", "-").replace(".", "-")


def _has_distribution(workspace: Path, name: str) -> bool:
    """Whether the venv has ``name`` installed (a ``*.dist-info`` folder for it)."""
    venv = workspace / PROJECT_VENV
    for pattern in ("lib/python*/site-packages/*.dist-info", "Lib/site-packages/*.dist-info"):
        for info in venv.glob(pattern):
            if _canonical(info.name.split("-", 1)[0]) == _canonical(name):
                return True
    return False


def _write_marker(workspace: Path, data: dict[str, Any]) -> None:
    write_json_atomic(workspace / PROJECT_VENV / MARKER, data, durable=False)


# -- declared dependencies --------------------------------------------------------------------


def _pyproject_requirements(data: bytes) -> list[str]:
    """``[project]`` dependencies plus the test extras and dependency groups, as listed."""
    try:
        document = tomllib.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise DeclarationError(f"pyproject.toml cannot be read: {exc}") from None
    project = document.get("project")
    project = project if isinstance(project, dict) else {}
    found = _strings(project.get("dependencies", []), "project.dependencies")
    extras = project.get("optional-dependencies")
    groups = document.get("dependency-groups")
    for name in TEST_GROUPS:
        if isinstance(extras, dict) and name in extras:
            found += _strings(extras[name], f"project.optional-dependencies.{name}")
        if isinstance(groups, dict) and name in groups:
            found += _group(groups, name, set())
    return list(dict.fromkeys(found))


def _group(groups: dict[str, Any], name: str, seen: set[str]) -> list[str]:
    """A PEP 735 dependency group, its ``include-group`` entries expanded."""
    if name in seen or name not in groups or not isinstance(groups[name], list):
        raise DeclarationError(f"pyproject.toml: dependency-groups.{name} is not a list")
    seen.add(name)
    found: list[str] = []
    for entry in groups[name]:
        if isinstance(entry, dict) and isinstance(entry.get("include-group"), str):
            found += _group(groups, entry["include-group"], seen)
        else:
            found += _strings([entry], f"dependency-groups.{name}")
    return found


def _strings(value: Any, key: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise DeclarationError(f"pyproject.toml: {key} must be a list of requirement strings")
    return list(value)


# -- installing -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Installing:
    """One installation: ``what`` for people, the installer's ``args``, where its output goes."""

    what: str
    args: list[str]
    report_dir: Path
    running: Path | None


def _install(
    config: Config,
    workspace: Path,
    python: str,
    installing: Installing,
    say: Callable[[str], None],
    on_output: Callable[[str], None] | None,
) -> CheckResult | None:
    """Run the installer; the failed check when it fails, else None."""
    installer = installer_command(Path(python))
    if installer is None:
        return _failed(
            installing.args,
            f"cannot install {installing.what}: orch-tui's environment has no pip (22.3 or "
            "later) and uv is not on the PATH; install one of them",
        )
    say(f"installing {installing.what} into {workspace / PROJECT_VENV} …")
    result = run_check(
        CheckSpec(INSTALL_CHECK, [*installer, *installing.args]),
        workspace,
        installing.report_dir,
        timeout_s=config.checks.timeout_seconds,
        max_output_bytes=config.checks.max_output_bytes,
        extra_env_allow=installer_env_names(),
        on_output=on_output,
        sandbox=NO_SANDBOX,  # it needs the network; it installs only what the files declare
        running=installing.running,
    )
    installing.report_dir.mkdir(parents=True, exist_ok=True)
    write_text_atomic(installing.report_dir / INSTALL_OUTPUT, result.output, durable=False)
    if result.passed:
        return None
    result.error = result.error or (
        f"installing {installing.what} failed (exit code {result.exit_code}); "
        "the installer's output says why"
    )
    return result


def installer_command(python: Path) -> list[str] | None:
    """The command that installs into ``python``'s environment: uv, else orch-tui's pip."""
    uv = shutil.which("uv")
    if uv is not None:
        # --no-build: wheels only, so no package's build code runs outside the sandbox;
        # --no-config: no uv.toml or [tool.uv] of the project's redirects the install.
        return [uv, "pip", "install", "--no-config", "--no-build", "--python", str(python)]
    try:
        version = importlib.metadata.version("pip")
    except importlib.metadata.PackageNotFoundError:
        return None
    found = re.match(r"(\d+)\.(\d+)", version)
    if found is None or (int(found[1]), int(found[2])) < (22, 3):  # --python came in pip 22.3
        return None
    return [
        sys.executable,
        "-m",
        "pip",
        "--python",
        str(python),
        "--disable-pip-version-check",
        "install",
        "--only-binary=:all:",  # wheels only: no package's build code runs outside the sandbox
    ]


def installer_env_names() -> list[str]:
    """The variables of ours the installer gets besides the checks' allowlist: pip's and uv's
    settings (an index, a proxy, certificates), never one that may hold an API key."""
    return sorted(
        name
        for name in os.environ
        if (name.startswith(_INSTALLER_ENV_PREFIXES) or name.upper() in _INSTALLER_ENV_NAMES)
        and not is_secret_env_name(name)
    )


def _failed(command: list[str], error: str) -> CheckResult:
    return CheckResult(INSTALL_CHECK, command, None, False, 0.0, "", 0, [], error)
