"""Tools orch-tui puts into the project's ``.venv`` the way it puts pytest there: coverage, mutmut.

Into a ``.venv`` orch-tui created, :func:`ensure_tool` links (else copies) orch-tui's own copy
of the tool and what it requires (``core.checks.venv.seed_distribution``, as for pytest): no
network, and the version whose output orch-tui reads. A person's own ``.venv`` is never
written into: the tool runs there only if they installed it. With ``checks.python`` nothing
is installed either: the tool runs if that interpreter has it (:func:`has_module`). Whatever
stops it is returned as a sentence saying why; the caller decides what that costs.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from orch_tui.core.checks.venv import (
    VENV_LOCK,
    has_distribution,
    read_marker,
    seed_distribution,
    site_packages_dir,
)
from orch_tui.core.checks.venv_path import PROJECT_VENV, venv_python
from orch_tui.core.config.models import Config


def ensure_tool(config: Config, workspace: Path, name: str) -> str | None:
    """Make the distribution ``name`` (importable as ``name``) available to the checks'
    interpreter; None when it is, else why not.

    Call after :func:`~core.checks.venv.prepare_env` succeeded (the ``.venv`` exists)."""
    venv = workspace / PROJECT_VENV
    if config.checks.python:
        if has_module(config.checks.python, name):
            return None
        return (
            f"{name} is not installed for checks.python ({config.checks.python}), an "
            "interpreter orch-tui installs nothing into"
        )
    if venv_python(workspace) is None:
        return f"{venv} holds no Python interpreter"
    if has_distribution(workspace, name):
        return None
    if not read_marker(workspace).get("created"):
        return (
            f"{name} is not installed in {venv}, the project's own environment (orch-tui "
            f"writes nothing into it): add {name} to its test dependencies"
        )
    from importlib.metadata import PackageNotFoundError  # 8 ms: only when a tool is seeded

    try:
        with VENV_LOCK:  # venv.py's: one preparation of a .venv at a time
            seed_distribution(site_packages_dir(venv), name)
    except (OSError, PackageNotFoundError) as exc:
        return f"could not put {name} into {venv}: {exc}"
    return None


_FOUND: set[tuple[str, str]] = set()
"""(interpreter, module) pairs found importable in this process: asked again every attempt,
and an interpreter's starting took more of an attempt than all of the engine's own steps."""


def has_module(python: str, module: str) -> bool:
    """Whether ``python`` can import ``module``. Found, never imported, in isolated mode from
    ``/``: nothing of the workspace is on its path, so no file of the model's runs here,
    outside the sandbox. A module found once is taken as still there; one not found is looked
    for again (the person may install it meanwhile)."""
    if (python, module) in _FOUND:
        return True
    probe = f"import importlib.util, sys; sys.exit(importlib.util.find_spec({module!r}) is None)"
    try:
        done = subprocess.run(
            [python, "-I", "-c", probe], cwd="/", capture_output=True, timeout=60, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    if done.returncode == 0:
        _FOUND.add((python, module))
    return done.returncode == 0
