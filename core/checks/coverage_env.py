"""coverage.py in the project's ``.venv``, put there the way pytest is (``core.checks.venv``).

:func:`ensure_coverage` puts orch-tui's own coverage there (``core.checks.seeded_tools``: no
network, and the coverage whose data files orch-tui reads; never into a person's own
``.venv``). Whatever stops it is a :class:`~core.checks.coverage_map.CoverageUnavailable` with
the reason: the tests then run without coverage, and the run never fails for it.
"""

from __future__ import annotations

from pathlib import Path

from orch_tui.core.checks.coverage_map import (
    CoverageUnavailable,
    under_coverage,
    write_coverage_config,
)
from orch_tui.core.checks.seeded_tools import ensure_tool
from orch_tui.core.config.models import Config

COVERAGE = "coverage"


def ensure_coverage(config: Config, workspace: Path) -> CoverageUnavailable | None:
    """Make coverage importable by the checks' interpreter; None when it is, else why not.

    Call after :func:`~core.checks.venv.prepare_env` succeeded (the ``.venv`` exists)."""
    problem = ensure_tool(config, workspace, COVERAGE)
    return None if problem is None else CoverageUnavailable(problem)


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
