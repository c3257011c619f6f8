"""The coverage runner on Python 3.12 and later: coverage's ``sysmon`` core, each test's lines
still its own (``core.checks.coverage_runner``).

The runner runs under a newer interpreter found on this machine (on PATH, or pyenv's), in a
``.venv`` it made and orch-tui seeded with pytest and coverage as a run does; orch-tui itself
reads the data. Skipped where there is no Python 3.12 or later.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from orch_tui.core.checks.coverage_map import CoverageMap, read_coverage, write_coverage_config
from orch_tui.core.checks.coverage_runner import sysmon_usable
from orch_tui.core.checks.venv import seed_distribution

CALC = """\
def total(n):
    acc = 0
    for i in range(n):
        acc += i
    return acc
"""
TESTS = """\
import sys

from calc import total


def test_one():
    assert total(3) == 3


def test_two():
    assert total(4) == 6


def test_measured_by_sysmon():
    tools = {sys.monitoring.get_tool(tool) for tool in range(6)}
    assert "coverage.py" in tools, tools
"""
ONE, TWO, SYSMON = (
    f"tests/test_calc.py::{name}" for name in ("test_one", "test_two", "test_measured_by_sysmon")
)


def newer_python() -> str | None:
    """A Python 3.12 or later on this machine that runs, or None."""
    candidates = [f"python3.{minor}" for minor in range(20, 11, -1)]
    pyenv = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv")) / "versions"
    candidates += [str(p) for p in sorted(pyenv.glob("3.1[2-9]*/bin/python3"), reverse=True)]
    for candidate in candidates:
        try:
            found = subprocess.run(
                [candidate, "-c", "import sys; print(sys.version_info >= (3, 12))"],
                capture_output=True,
                text=True,
                timeout=30,
            )
        except OSError:
            continue
        if found.returncode == 0 and found.stdout.strip() == "True":
            return candidate
    return None


def test_sysmon_only_where_it_keeps_per_test_lines() -> None:
    assert sysmon_usable((3, 12), (7, 12))
    assert sysmon_usable((3, 14), (8, 0))
    assert not sysmon_usable((3, 11), (7, 17))  # no sys.monitoring
    assert not sysmon_usable((3, 13), (7, 11))  # loses lines after a context switch


def test_on_a_newer_python_sysmon_measures_and_each_test_keeps_its_lines(tmp_path: Path) -> None:
    python = newer_python()
    if python is None:
        pytest.skip("no Python 3.12 or later on this machine")
    workspace = tmp_path / "workspace"
    (workspace / "tests").mkdir(parents=True)
    (workspace / "calc.py").write_text(CALC)
    (workspace / "tests" / "test_calc.py").write_text(TESTS)
    (workspace / "pytest.ini").write_text("[pytest]\npythonpath = .\n")
    venv = tmp_path / "venv"
    subprocess.run([python, "-m", "venv", "--without-pip", str(venv)], check=True)
    (site_packages,) = venv.glob("lib/python3.*/site-packages")
    seed_distribution(site_packages, "pytest")
    seed_distribution(site_packages, "coverage")
    reports = tmp_path / "reports"
    config = write_coverage_config(workspace, reports)

    ran = subprocess.run(
        [str(venv / "bin" / "python"), str(config.with_name("coverage_runner.py")), str(config)]
        + ["-q", "-p", "no:cacheprovider"],
        cwd=workspace,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"},
    )

    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "3 passed" in ran.stdout
    cmap = read_coverage(reports, workspace)
    assert isinstance(cmap, CoverageMap), cmap
    for line in (2, 3, 4, 5):  # the loop's lines: reported again for the second test
        assert cmap.tests_for("calc.py", line) == {ONE, TWO}, line
    assert SYSMON not in set().union(*cmap.files["calc.py"].executed.values())
