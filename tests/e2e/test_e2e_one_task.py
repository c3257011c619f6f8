"""End to end: ``orch-tui SPEC --auto --task ID`` refused without a plan, before anything runs."""

from __future__ import annotations

import pytest

from tests.support.e2e_support import assert_clean_exit

pytestmark = pytest.mark.e2e


def test_task_without_a_plan_is_a_clear_error_and_writes_nothing(project_factory, fake_server):
    fake = fake_server([])
    project = project_factory(spec_text="# calc\n\n`calc.add`.\n", fake_url=fake.url)

    result = project.run_auto("--task", "t2")

    assert_clean_exit(result, 1)
    assert "--task t2 runs one task of an approved plan" in result.stderr
    assert "start it with --plan first" in result.stderr
    assert fake.requests == [] and not project.state_path.exists()
