"""A pytest check takes its configuration from the workspace only (issue 25, item 1).

Real pytest in real workspaces, with and without bubblewrap, under a project folder whose
``pyproject.toml`` and ``conftest.py`` would break any check that let them in.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from orch_tui.core.checks.coverage_map import under_coverage, write_coverage_config
from orch_tui.core.checks.pytest_config import EMPTY_CONFIG, pin_config, workspace_config
from orch_tui.core.checks.runner import CheckResult, CheckSpec, run_check
from orch_tui.core.checks.sandbox import NO_SANDBOX, Sandbox, resolve_sandbox
from orch_tui.core.config.models import DEFAULT_TEST_COMMAND

pytestmark = pytest.mark.usefixtures("no_plugin_autoload")
BWRAP = resolve_sandbox("auto")
SANDBOXES = [
    pytest.param(NO_SANDBOX, id="unsandboxed"),
    pytest.param(
        BWRAP,
        id="bwrap",
        marks=pytest.mark.skipif(not BWRAP.confined, reason=f"no bubblewrap: {BWRAP.why}"),
    ),
]

# The repository's own pyproject.toml broke the README's quick start with "-n auto"; a plugin
# that exists nowhere fails the same way everywhere.
HOSTILE_PYPROJECT = '[tool.pytest.ini_options]\naddopts = "-p orch_no_such_plugin -x"\n'
HOSTILE_CONFTEST = (
    "import pytest\n\n\ndef pytest_sessionstart(session):\n"
    '    pytest.exit("the parent conftest.py was loaded", returncode=3)\n'
)


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """A workspace inside a project folder holding a hostile pytest config and conftest."""
    project = tmp_path / "project"
    (project / "workspace" / "tests").mkdir(parents=True)
    (project / "pyproject.toml").write_text(HOSTILE_PYPROJECT)
    (project / "conftest.py").write_text(HOSTILE_CONFTEST)
    (project / "pytest.ini").write_text("[pytest]\naddopts = -p orch_no_such_plugin\n")
    return project / "workspace"


def run_tests(workspace: Path, sandbox: Sandbox, measured: bool = False) -> CheckResult:
    command = list(DEFAULT_TEST_COMMAND)
    if measured:  # as the engine runs it: through the coverage runner
        reports = workspace.parent.parent / "reports"
        wrapped = under_coverage(command, write_coverage_config(workspace, reports))
        assert wrapped is not None
        command = wrapped
    return run_check(
        CheckSpec("tests", command),
        workspace,
        workspace.parent.parent / "reports",
        timeout_s=120,
        max_output_bytes=200_000,
        extra_env_allow=("PYTEST_DISABLE_PLUGIN_AUTOLOAD",),
        sandbox=sandbox,
    )


@pytest.mark.parametrize("measured", [False, True], ids=["plain", "under coverage"])
@pytest.mark.parametrize("sandbox", SANDBOXES)
def test_a_hostile_parent_config_and_conftest_do_not_reach_the_checks(
    workspace: Path, sandbox: Sandbox, measured: bool
) -> None:
    (workspace / "tests/test_ok.py").write_text("def test_one():\n    assert 1 + 1 == 2\n")

    check = run_tests(workspace, sandbox, measured)

    assert check.passed, check.output
    assert [test.id for test in check.tests] == ["tests/test_ok.py::test_one"]
    assert "parent conftest.py was loaded" not in check.output


@pytest.mark.parametrize("sandbox", SANDBOXES)
def test_under_a_hostile_parent_the_workspace_s_own_failures_are_what_fails(
    workspace: Path, sandbox: Sandbox
) -> None:
    (workspace / "tests/test_mixed.py").write_text(
        "def test_good():\n    pass\n\n\ndef test_bad():\n    assert 1 == 2\n"
    )

    check = run_tests(workspace, sandbox)

    assert not check.passed and check.exit_code == 1
    outcomes = {test.id: test.outcome for test in check.tests}
    assert outcomes == {
        "tests/test_mixed.py::test_good": "passed",
        "tests/test_mixed.py::test_bad": "failed",
    }


# Each makes pytest collect check_*.py only: a workspace config that is not used lets the
# failing test_*.py file in.
OWN_CONFIGS = {
    "pytest.ini": "[pytest]\npython_files = check_*.py\n",
    "pyproject.toml": '[tool.pytest.ini_options]\npython_files = ["check_*.py"]\n',
    "tox.ini": "[tox]\nenvlist = py3\n\n[pytest]\npython_files = check_*.py\n",
    "setup.cfg": "[metadata]\nname = x\n\n[tool:pytest]\npython_files = check_*.py\n",
}


@pytest.mark.parametrize("sandbox", SANDBOXES)
@pytest.mark.parametrize("name", sorted(OWN_CONFIGS))
def test_a_workspace_with_its_own_pytest_config_still_uses_it(
    workspace: Path, sandbox: Sandbox, name: str
) -> None:
    (workspace / name).write_text(OWN_CONFIGS[name])
    (workspace / "tests/check_ok.py").write_text("def test_collected():\n    pass\n")
    (workspace / "tests/test_ignored.py").write_text("def test_not_collected():\n    1 / 0\n")

    check = run_tests(workspace, sandbox)

    assert check.passed, check.output
    assert [test.id for test in check.tests] == ["tests/check_ok.py::test_collected"]


def test_the_workspace_s_own_conftest_still_loads(workspace: Path) -> None:
    (workspace / "conftest.py").write_text(
        "import pytest\n\n\n@pytest.fixture\ndef answer():\n    return 42\n"
    )
    (workspace / "tests/test_fixture.py").write_text(
        "def test_answer(answer):\n    assert answer == 42\n"
    )

    check = run_tests(workspace, NO_SANDBOX)

    assert check.passed, check.output


def test_files_without_a_pytest_section_are_not_the_workspace_s_config(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    (tmp_path / "setup.cfg").write_text("[metadata]\nname = x\n")
    (tmp_path / "tox.ini").write_text("[tox]\nenvlist = py3\n")
    assert workspace_config(tmp_path) is None

    (tmp_path / "pytest.ini").write_text("")  # pytest takes pytest.ini even when empty
    assert workspace_config(tmp_path) == tmp_path / "pytest.ini"


def test_pinning_adds_only_what_the_command_does_not_set_and_leaves_other_commands(
    tmp_path: Path,
) -> None:
    root = str(tmp_path.resolve())
    pinned = pin_config(["python", "-m", "pytest", "-q", "tests"], tmp_path)
    assert pinned == [
        "python", "-m", "pytest",
        f"--rootdir={root}", "-c", EMPTY_CONFIG, f"--confcutdir={root}",
        "-q", "tests",
    ]  # fmt: skip

    own = ["pytest", "--rootdir=/elsewhere", "-c", "mine.ini", "--confcutdir", "/x"]
    assert pin_config(own, tmp_path) == own
    assert pin_config(["ruff", "check", "."], tmp_path) == ["ruff", "check", "."]
