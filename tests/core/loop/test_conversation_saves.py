"""The conversation, saved after every model turn: each save encodes only what the turn added,
and each turn's content once.

A turn that writes 200 files carries their texts (4 MB of JSON at 200 files of 450 lines); the
attempt's closing turn used to encode them all again before the proposal reached the review,
and each save held them twice (the message and the turn's record)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from orch_tui.core.loop.review import ReviewAborted, ReviewSession
from orch_tui.core.runlog import layout as runlog
from orch_tui.core.runlog.conversation import turns_with_content
from orch_tui.core.util import atomic
from tests.core.loop.test_engine import GOOD, TEST, make_engine
from tests.support.scripting import attempt, create
from tests.support.spying import calls_to


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "spec.md").write_text("# calc\n\n`calc.add(a, b)` returns the sum.\n")
    return tmp_path


class StopAtReview:
    def review(self, session: ReviewSession) -> None:
        raise ReviewAborted


def run_to_the_first_review(project: Path) -> None:
    """The engine on a two-file generation, stopped as its proposal reaches the review."""
    engine, _ = make_engine(
        project,
        [attempt(create("calc.py", GOOD), create("tests/test_calc.py", TEST))],
        reviewer=StopAtReview(),
    )
    with pytest.raises(ReviewAborted):
        engine.run()


def test_the_closing_turns_save_does_not_encode_the_edits_again(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    encoded = calls_to(monkeypatch, atomic, "_compact")
    run_to_the_first_review(project)

    def carries_the_edits(item: Any) -> bool:
        blocks = item.get("content") if isinstance(item, dict) else None
        return isinstance(blocks, list) and any(
            block.get("input", {}).get("file_text") == GOOD for block in blocks
        )

    # The assistant's message with the edits, once for both saves; the turn's record names
    # that message instead of carrying the edits again (version 1 encoded them twice).
    assert len([item for item in encoded if carries_the_edits(item)]) == 1
    (run,) = [path for path in (project / "logs").iterdir() if path.is_dir()]
    saved = (run / "attempt-00" / runlog.CONVERSATION).read_bytes()
    conversation = json.loads(saved)
    assert [message["role"] for message in conversation["messages"]] == [
        "user",
        "assistant",
        "user",
        "assistant",
    ]
    assert conversation["version"] == 2
    assert [turn["message"] for turn in conversation["turns"]] == [1, 3]
    assert saved.count(json.dumps(GOOD, ensure_ascii=False).encode()) == 1
    assert saved == atomic.json_bytes(conversation)  # the layout of one full encoding
    # What the replay and history read: each turn with its content, as the model sent it.
    turns = turns_with_content(conversation)
    assert [turn["content"] for turn in turns] == [
        conversation["messages"][1]["content"],
        conversation["messages"][3]["content"],
    ]
    assert all(turn["stop_reason"] and "usage" in turn for turn in turns)
