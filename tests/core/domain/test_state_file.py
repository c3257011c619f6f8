"""A state.json of the wrong shape is refused whole (exit 3, never a traceback), and what it
holds reaches the terminal only with control characters spelt out."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from orch_tui.core.domain.state import RunState, State, StateError, StateStore
from tests.tui.cli.test_cli_commands import SPEC, run, scripted


def saved_state(**changes: Any) -> dict[str, Any]:
    """A valid state.json's fields (a FAILED run), with ``changes`` on top."""
    state = State(run_id="20261121-194630-3fa2", spec_path="spec.md", spec_hash="x", max_retries=3)
    state.state = RunState.FAILED
    return {**state.to_json(), **changes}


BAD_FIELDS: list[tuple[dict[str, Any], str]] = [
    ({"run_id": "../../x"}, "run_id '../../x' is not a run id"),
    ({"run_id": "/tmp/x"}, "run_id '/tmp/x' is not a run id"),
    ({"run_id": ".."}, "run_id '..' is not a run id"),
    ({"run_id": 7}, "run_id is 7, expected a string"),
    ({"usage": "x"}, 'usage is "x", expected an object'),
    ({"usage": {"input_tokens": 1e999}}, "usage.input_tokens is Infinity, expected a whole number"),
    ({"usage": {"output_tokens": -1}}, "usage.output_tokens is -1, expected 0 or more"),
    ({"exit_code": "x"}, 'exit_code is "x", expected a whole number'),
    ({"attempt": True}, "attempt is true, expected a whole number"),
    ({"max_retries": "3"}, 'max_retries is "3", expected a whole number'),
    ({"cost_usd": 1e999}, "cost_usd is Infinity, expected a number of dollars"),
    ({"last_error": ["x"]}, "last_error is list, expected a string"),
    ({"last_test": {"failing": [1]}}, "last_test.failing holds something other than text"),
    ({"question": {"options": []}}, "missing key 'question.text'"),
    ({"workspace": {"path": None}}, "workspace.path is null, expected a string"),
    ({"roles": {"judge": 1}}, "roles.judge is 1, expected an object"),
    ({"created_at": None}, "created_at is null, expected a string"),
]


@pytest.mark.parametrize(("changes", "reason"), BAD_FIELDS)
def test_a_field_of_the_wrong_shape_is_named(tmp_path: Path, changes: dict[str, Any], reason: str):
    path = tmp_path / "state.json"
    path.write_text(json.dumps(saved_state(**changes)))
    with pytest.raises(StateError) as raised:
        StateStore(path).load()
    assert reason in str(raised.value)
    assert "orch-tui reset" in str(raised.value)


def test_a_valid_state_loads_as_saved(tmp_path: Path) -> None:
    path = tmp_path / "state.json"
    fields = saved_state(cost_usd=0.5, exit_code=1)
    path.write_text(json.dumps(fields))
    state = StateStore(path).load()
    assert state is not None and state.to_json() == fields


def test_deeply_nested_json_is_a_corrupt_state_not_a_crash(tmp_path: Path) -> None:
    path = tmp_path / "state.json"
    path.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(StateError):
        StateStore(path).load()


CLI_CASES = [
    {"run_id": "../../outside"},
    {"usage": "x"},
    {"usage": {"input_tokens": 1e999}},
    {"exit_code": "x"},
]


@pytest.mark.parametrize("changes", CLI_CASES)
def test_the_run_and_status_exit_3_naming_state_json(tmp_path: Path, changes: dict[str, Any]):
    (tmp_path / "spec.md").write_text(SPEC, encoding="utf-8")
    text = json.dumps(saved_state(**changes))
    (tmp_path / "state.json").write_text(text, encoding="utf-8")

    for args in (["spec.md", "--auto", *scripted(tmp_path)], ["status"], ["status", "--json"]):
        result = run(tmp_path, *args)
        assert result.returncode == 3, (args, result.stderr)
        assert "Traceback" not in result.stderr and result.stdout == ""
        message = result.stderr.strip()
        assert f"{tmp_path / 'state.json'} is corrupt or unknown" in message, message
        assert "orch-tui reset" in message and "resumes" not in message
    assert (tmp_path / "state.json").read_text(encoding="utf-8") == text
    assert not (tmp_path.parent / "outside").exists()
    assert not (tmp_path / "logs").exists()


def test_history_lists_runs_past_a_damaged_state(tmp_path: Path) -> None:
    (tmp_path / "state.json").write_text(json.dumps(saved_state(usage="x")), encoding="utf-8")

    result = run(tmp_path, "history")

    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr


def test_status_spells_out_control_characters_from_the_run(tmp_path: Path) -> None:
    fields = saved_state(stop_reason="no\x1b[2Kpe\u202e\u200b", last_error="bad\rkey\x9b\ufeff")
    (tmp_path / "state.json").write_text(json.dumps(fields), encoding="utf-8")

    result = run(tmp_path, "status")

    assert result.returncode == 0, result.stderr
    assert not {"\x1b", "\r", "\x9b", "\u202e", "\u200b", "\ufeff"} & set(result.stdout)
    assert "stopped   no\\x1b[2Kpe\\u202e\\u200b" in result.stdout
    assert "error     bad\\rkey\\x9b\\ufeff" in result.stdout
