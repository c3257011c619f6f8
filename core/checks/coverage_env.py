"""coverage.py in the project's ``.venv``, put there the way pytest is (``core.checks.venv``).

Into a ``.venv`` orch-tui created, :func:`ensure_coverage` links (else copies) orch-tui's own
coverage and what it requires, like pytest: no network, and the coverage whose data files
orch-tui reads. A person's own ``.venv`` is never written into: coverage runs there only if
they installed it. With ``checks.python`` nothing is installed either. Whatever stops it is a
:class:`~core.checks.coverage_map.CoverageUnavailable` with the reason: the tests then run
without coverage, and the run never fails for it.

Reuses ``core.checks.venv``'s seeding primitives as they are (its ``_seed`` knows only pytest;
a ``name`` parameter there would make this module's loop unnecessary).
"""

from __future__ import annotations

import importlib.metadata
import os
from pathlib import Path

from orch_tui.core.checks.coverage_map import (
    CoverageUnavailable,
    under_coverage,
    write_coverage_config,
)
from orch_tui.core.checks.venv import (
    _LOCK,
    PROJECT_VENV,
    _has_distribution,
    _put,
    _requirement_closure,
    _site_packages,
    read_marker,
    venv_python,
)
from orch_tui.core.config.models import Config

COVERAGE = "coverage"


def ensure_coverage(config: Config, workspace: Path) -> CoverageUnavailable | None:
    """Make coverage importable by the checks' interpreter; None when it is, else why not.

    Call after :func:`~core.checks.venv.prepare_env` succeeded (the ``.venv`` exists)."""
    venv = workspace / PROJECT_VENV
    if config.checks.python:
        return CoverageUnavailable(
            "checks.python names an interpreter orch-tui installs nothing into"
        )
    if venv_python(workspace) is None:
        return CoverageUnavailable(f"{venv} holds no Python interpreter")
    if _has_distribution(workspace, COVERAGE):
        return None
    if not read_marker(workspace).get("created"):
        return CoverageUnavailable(
            f"coverage is not installed in {venv}, the project's own environment (orch-tui "
            "writes nothing into it): add coverage to its test dependencies"
        )
    try:
        with _LOCK:  # venv.py's: one preparation of a .venv at a time
            seed_distribution(_site_packages(venv), COVERAGE)
    except (OSError, importlib.metadata.PackageNotFoundError) as exc:
        return CoverageUnavailable(f"could not put coverage into {venv}: {exc}")
    return None


def with_coverage(
    config: Config,
    workspace: Path,
    report_dir: Path,
    command: list[str],
    venv_of: Path | None = None,
) -> tuple[list[str], CoverageUnavailable | None]:
    """The test ``command`` to run in ``workspace``: under coverage when it can be (the settings
    written into ``report_dir``), else as it was, with the reason, so the tests still run.

    ``venv_of``: the folder whose ``.venv`` runs the tests when it is not ``workspace`` (a
    trial runs in a copy with the workspace's environment, ``project`` in ``run_configured``).
    """
    problem = ensure_coverage(config, venv_of or workspace)
    if problem is not None:
        return command, problem
    wrapped = under_coverage(command, write_coverage_config(workspace, report_dir))
    if wrapped is None:
        return command, CoverageUnavailable("the test command is not `{python} -m pytest ...`")
    return wrapped, None


def seed_distribution(site_packages: Path, name: str) -> None:
    """Put the installed distribution ``name`` and what it requires into ``site_packages``,
    each file hard-linked where the file system allows, else copied (``venv._put``); console
    scripts and files outside the distribution's folder are left out."""
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
