"""What a project declares it depends on: ``requirements*.txt`` at its root, and the
``[project]`` dependencies, test extras and dependency groups of ``pyproject.toml``.

The installer runs outside the sandbox with the network on, so only plain requirements by name
pass, and what a check wrote never reaches it: :func:`snapshot` before the checks and
:func:`put_back` after them undo any declaration file a check created, changed or removed.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

from orch_tui.core.util.digests import sha256
from orch_tui.core.util.records import record

TEST_GROUPS = ("test", "tests", "testing", "dev")
"""Optional-dependency extras and dependency groups of pyproject.toml installed for the tests."""


class DeclarationError(Exception):
    """A file that declares dependencies cannot be read; the message says which and why."""


@record(frozen=True)
class Declared:
    """What a project declares: the files (for people) and the installer's arguments."""

    files: list[str]
    args: list[str]
    digest: str


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
    digest = sha256()
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


# -- declared dependencies --------------------------------------------------------------------


def _pyproject_requirements(data: bytes) -> list[str]:
    """``[project]`` dependencies plus the test extras and dependency groups, as listed."""
    import tomllib  # when the checks first run, not at every run's start

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


def _declaration_names(workspace: Path) -> list[str]:
    names = [path.name for path in workspace.glob("requirements*.txt")]
    return sorted({*names, "pyproject.toml"})


def snapshot(workspace: Path) -> dict[str, bytes]:
    """The declaration files of ``workspace`` as they are now (regular files only), by name."""
    found: dict[str, bytes] = {}
    for name in _declaration_names(workspace):
        path = workspace / name
        if path.is_file() and not path.is_symlink():
            found[name] = path.read_bytes()
    return found


def put_back(workspace: Path, before: dict[str, bytes]) -> list[str]:
    """Undo what happened to the declaration files since :func:`snapshot` gave ``before``:
    remove those created, rewrite those changed or removed. Returns their names."""
    from orch_tui.core.util.atomic import write_bytes_atomic  # doctor reads, never writes

    undone = []
    for name in sorted({*_declaration_names(workspace), *before}):
        path = workspace / name
        now = path.read_bytes() if path.is_file() and not path.is_symlink() else None
        if now == before.get(name) and not (path.is_symlink() and name not in before):
            continue
        undone.append(name)
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        elif path.is_symlink() or path.exists():
            path.unlink()
        if name in before:
            write_bytes_atomic(path, before[name], durable=False)
    return undone
