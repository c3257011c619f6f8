"""End to end: a test timeout over the maximum is clamped with a warning, and ``--auto``'s last
lines summarise the run (files changed, tests, attempts, cost, time)."""

from __future__ import annotations

import json
import re

import pytest

from tests.support.e2e_support import FAST_CONFIG, assert_clean_exit, attempt_turns

pytestmark = pytest.mark.e2e

SPEC = "# calc\n\nA module `app.py` with `add(a, b)` returning the sum, and pytest tests.\n"
APP = "def add(a, b):\n    return a + b\n"
TEST = "from app import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"


def test_a_long_timeout_is_clamped_and_the_last_lines_summarise_the_run(
    project_factory, fake_server
):
    fake = fake_server(
        attempt_turns(
            "Writing.", [("create", "app.py", APP), ("create", "tests/test_app.py", TEST)]
        )
    )
    config = FAST_CONFIG.replace("timeout_seconds = 60", "timeout_seconds = 900")
    assert config != FAST_CONFIG
    project = project_factory(spec_text=SPEC, fake_url=fake.url, config=config)

    result = project.run_auto()

    assert_clean_exit(result, 0)
    assert "checks.timeout_seconds 900 is over the maximum of 600 s; using 600" in result.stdout
    summary, last = result.stdout.splitlines()[-2:]
    assert re.fullmatch(
        r"summary: 2 files changed · tests: 1 passed · 1 attempt · \$\d+\.\d{4} · \d+s", summary
    ), summary
    assert last.startswith("SUCCESS: ")
    finished = [e for e in project.events() if e["event"] == "run_finished"]
    assert finished[-1]["summary"] == summary.removeprefix("summary: ")
    assert json.loads(project.state_path.read_text())["state"] == "SUCCESS"
