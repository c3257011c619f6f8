"""Replaying recorded turns: scripts, past runs, and clear errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from orch_tui.core.providers.base import ModelError, TurnRequest
from orch_tui.core.providers.scripted import RecordingExhausted, ScriptedProvider, ScriptError


def request(attempt: int, assistant_turns: int) -> TurnRequest:
    messages = [{"role": "user", "content": "go"}]
    for _ in range(assistant_turns):
        messages += [{"role": "assistant", "content": []}, {"role": "user", "content": []}]
    return TurnRequest(
        model="m", system=[], tools=[], messages=messages, max_tokens=10, attempt=attempt
    )


def script(tmp_path: Path, data: object) -> Path:
    path = tmp_path / "script.json"
    path.write_text(json.dumps(data))
    return path


def turn(text: str) -> dict:
    return {"content": [{"type": "text", "text": text}], "stop_reason": "end_turn"}


def test_the_turn_is_picked_by_attempt_and_position_so_a_resume_replays_in_place(
    tmp_path: Path,
) -> None:
    provider = ScriptedProvider.from_path(
        script(tmp_path, {"attempts": [[turn("a0t0"), turn("a0t1")], [turn("a1t0")]]})
    )
    streamed: list[str] = []
    assert provider.complete(request(1, 0), streamed.append).content[0]["text"] == "a1t0"
    assert provider.complete(request(0, 1), streamed.append).content[0]["text"] == "a0t1"
    assert "".join(streamed) == "a1t0a0t1"


def test_running_past_the_recording_is_a_model_error(tmp_path: Path) -> None:
    provider = ScriptedProvider.from_path(script(tmp_path, {"attempts": [[turn("only")]]}))
    with pytest.raises(ModelError, match="no turn 1 for attempt 2"):
        provider.complete(request(2, 0), lambda text: None)


def test_running_past_the_recording_says_plainly_that_the_replay_diverged(
    tmp_path: Path,
) -> None:
    provider = ScriptedProvider.from_path(
        script(tmp_path, {"attempts": [[turn("a0t0")], [turn("a1t0")]]})
    )
    with pytest.raises(RecordingExhausted) as past_the_attempts:
        provider.complete(request(2, 0), lambda text: None)
    with pytest.raises(RecordingExhausted) as past_the_turns:
        provider.complete(request(1, 1), lambda text: None)

    assert str(past_the_attempts.value).startswith(
        "the recording has no more turns: this replay diverged because"
    )
    assert "(it records 2 attempts)" in str(past_the_attempts.value)
    assert "no turn 2 for attempt 1 (it records 1 turn for that attempt)" in str(
        past_the_turns.value
    )
    assert "the checks give another result" in str(past_the_turns.value)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ("not json", "not a readable JSON script"),
        ({"turns": []}, '"attempts" list'),
        ({"attempts": [[]]}, "attempt 0 must be a non-empty list"),
        ({"attempts": [[{"stop_reason": "end_turn"}]]}, "malformed turn"),
    ],
)
def test_a_bad_script_is_a_clear_error(tmp_path: Path, data: object, message: str) -> None:
    path = tmp_path / "script.json"
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    with pytest.raises(ScriptError, match=message):
        ScriptedProvider.from_path(path)


def test_a_missing_script_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ScriptError, match="script not found"):
        ScriptedProvider.from_path(tmp_path / "nope.json")


def test_a_run_log_folder_replays_its_attempts(tmp_path: Path) -> None:
    run = tmp_path / "logs" / "run-1"
    for number, text in enumerate(["first", "second"]):
        folder = run / f"attempt-{number:02d}"
        folder.mkdir(parents=True)
        (folder / "conversation.json").write_text(json.dumps({"turns": [turn(text)]}))
    provider = ScriptedProvider.from_path(run)
    assert provider.complete(request(1, 0), lambda text: None).content[0]["text"] == "second"


def test_a_run_log_of_either_conversation_version_replays(tmp_path: Path) -> None:
    """Version 2 names each turn's assistant message; version 1 (no "version") repeats its
    content in the turn: a run logged by an earlier orch-tui still replays."""
    run = tmp_path / "logs" / "run-1"
    old, new = run / "attempt-00", run / "attempt-01"
    old.mkdir(parents=True)
    new.mkdir()
    (old / "conversation.json").write_text(json.dumps({"turns": [turn("first")]}))
    record = {key: value for key, value in turn("second").items() if key != "content"}
    messages = [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": turn("second")["content"]},
    ]
    (new / "conversation.json").write_text(
        json.dumps({"version": 2, "messages": messages, "turns": [{**record, "message": 1}]})
    )
    provider = ScriptedProvider.from_path(run)
    assert provider.complete(request(0, 0), lambda text: None).content[0]["text"] == "first"
    assert provider.complete(request(1, 0), lambda text: None).content[0]["text"] == "second"


def test_a_turn_naming_no_assistant_message_is_a_clear_error(tmp_path: Path) -> None:
    folder = tmp_path / "attempt-00"
    folder.mkdir()
    record = {"version": 2, "messages": [{"role": "user", "content": "go"}]}
    (folder / "conversation.json").write_text(json.dumps({**record, "turns": [{"message": 0}]}))
    with pytest.raises(ScriptError, match="cannot be replayed"):
        ScriptedProvider.from_path(tmp_path)


def test_an_empty_run_log_folder_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ScriptError, match="no recorded attempts"):
        ScriptedProvider.from_path(tmp_path)
