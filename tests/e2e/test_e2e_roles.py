"""End to end: the installed ``orch-tui --auto`` with a verifier, against the local fake API."""

from __future__ import annotations

import json

import pytest

from tests.e2e.test_e2e_auto import ADD_TEST, FIXED_APP, SPEC, generate
from tests.support.e2e_support import FAST_CONFIG, assert_clean_exit, first_requests
from tests.support.fake_anthropic import Turn

pytestmark = pytest.mark.e2e

VERIFIER = "claude-haiku-4-5"
GAP = "sub(a, b) is neither implemented nor tested"
SUB_APP = FIXED_APP + "\n\ndef sub(a, b):\n    return a - b\n"
SUB_TEST = "from app import sub\n\n\ndef test_sub():\n    assert sub(5, 3) == 2\n"


def test_a_verifiers_gaps_send_one_more_round_then_it_passes(project_factory, fake_server):
    fake = fake_server(
        [
            *generate(("app.py", FIXED_APP), ("tests/test_app.py", ADD_TEST)),
            Turn.verdict(GAP),
            *generate(("app.py", SUB_APP), ("tests/test_sub.py", SUB_TEST)),
            Turn.verdict(),
        ]
    )
    config = FAST_CONFIG.replace("[model]\n", f'[model]\nverifier = "{VERIFIER}"\n')
    project = project_factory(spec_text=SPEC, fake_url=fake.url, config=config)

    result = project.run_auto()

    assert_clean_exit(result, 0)
    assert f"verifier: insufficient: {GAP}" in result.stdout
    assert "verifier: sufficient" in result.stdout
    bodies = [request.body for request in fake.requests]
    verifier = [body for body in bodies if body.get("tool_choice")]
    assert len(verifier) == 2
    for body in verifier:
        assert body["model"] == VERIFIER
        assert body["tool_choice"] == {"type": "tool", "name": "verifier_verdict"}
        assert [tool["name"] for tool in body["tools"]] == ["verifier_verdict"]
    coding = first_requests(body for body in bodies if not body.get("tool_choice"))
    assert len(coding) == 2
    assert GAP in json.dumps(coding[1]["messages"][0])
    state = project.state()
    assert state is not None and state["state"] == "SUCCESS" and state["attempt"] == 1
    assert state["roles"]["verifier"]["decision"] == "sufficient"
    decided = [e["decision"] for e in project.events() if e["event"] == "role_decision"]
    assert decided == ["insufficient", "sufficient"]

    exported = project.run("history", "--export", state["run_id"])
    assert_clean_exit(exported, 0)
    assert f"- verifier: insufficient: {GAP}" in exported.stdout
    assert "- verifier: sufficient" in exported.stdout
