"""coverage.py in the project's ``.venv``, put there the way pytest is (``core.checks.venv``).

Into a ``.venv`` orch-tui created, :func:`ensure_coverage` links (else copies) orch-tui's own
coverage and what it requires, like pytest: no network, and the coverage whose data files
orch-tui reads. A person's own ``.venv`` is never written into: coverage runs there only if
they installed it. With ``checks.python`` nothing is installed either: coverage runs if that
interpreter has it (:func:`has_coverage`). Whatever stops it is a
:class:`~core.checks.coverage_map.CoverageUnavailable` with the reason: the tests then run
without coverage, and the run never fails for it.

The seeding itself is ``core.checks.venv.seed_distribution``, the same as pytest's.
"""

from __future__ import annotations

import importlib.metadata
import subprocess
from pathlib import Path

from orch_tui.core.checks.coverage_map import (
    CoverageUnavailable,
    under_coverage,
    write_coverage_config,
)
from orch_tui.core.checks.venv import (
    PROJECT_VENV,
    VENV_LOCK,
    has_distribution,
    read_marker,
    seed_distribution,
    site_packages_dir,
    venv_python,
)
from orch_tui.core.config.models import Config

COVERAGE = "coverage"


def ensure_coverage(config: Config, workspace: Path) -> CoverageUnavailable | None:
    """Make coverage importable by the checks' interpreter; None when it is, else why not.

    Call after :func:`~core.checks.venv.prepare_env` succeeded (the ``.venv`` exists)."""
    venv = workspace / PROJECT_VENV
    if config.checks.python:
        if has_coverage(config.checks.python):
            return None
        return CoverageUnavailable(
            f"coverage is not installed for checks.python ({config.checks.python}), an "
            "interpreter orch-tui installs nothing into"
        )
    if venv_python(workspace) is None:
        return CoverageUnavailable(f"{venv} holds no Python interpreter")
    if has_distribution(workspace, COVERAGE):
        return None
    if not read_marker(workspace).get("created"):
        return CoverageUnavailable(
            f"coverage is not installed in {venv}, the project's own environment (orch-tui "
            "writes nothing into it): add coverage to its test dependencies"
        )
    try:
        with VENV_LOCK:  # venv.py's: one preparation of a .venv at a time
            seed_distribution(site_packages_dir(venv), COVERAGE)
    except (OSError, importlib.metadata.PackageNotFoundError) as exc:
        return CoverageUnavailable(f"could not put coverage into {venv}: {exc}")
    return None


def has_coverage(python: str) -> bool:
    """Whether ``python`` can import coverage. Found, never imported, in isolated mode from
    ``/``: nothing of the workspace is on its path, so no file of the model's runs here,
    outside the sandbox."""
    probe = "import importlib.util, sys; sys.exit(importlib.util.find_spec('coverage') is None)"
    try:
        done = subprocess.run(
            [python, "-I", "-c", probe], cwd="/", capture_output=True, timeout=60, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0


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
