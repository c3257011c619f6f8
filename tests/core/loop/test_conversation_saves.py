"""The conversation, saved after every model turn: each save encodes only what the turn added.

A turn that writes 200 files carries their texts (8 MB of JSON at 200 files of 450 lines); the
attempt's closing turn used to encode them all again before the proposal reached the review."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from orch_tui.core.loop.review import ReviewAborted, ReviewSession
from orch_tui.core.runlog import layout as runlog
from orch_tui.core.util import atomic
from tests.core.loop.test_engine import GOOD, TEST, make_engine
from tests.support.scripting import attempt, create


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "spec.md").write_text("# calc\n\n`calc.add(a, b)` returns the sum.\n")
    return tmp_path


class StopAtReview:
    def review(self, session: ReviewSession) -> None:
        raise ReviewAborted


def test_the_closing_turns_save_does_not_encode_the_edits_again(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    encoded: list[Any] = []
    compact = atomic._compact

    def counted(data: Any) -> str:
        encoded.append(data)
        return compact(data)

    monkeypatch.setattr(atomic, "_compact", counted)
    engine, _ = make_engine(
        project,
        [attempt(create("calc.py", GOOD), create("tests/test_calc.py", TEST))],
        reviewer=StopAtReview(),
    )
    with pytest.raises(ReviewAborted):
        engine.run()

    def carries_the_edits(item: Any) -> bool:
        blocks = item.get("content") if isinstance(item, dict) else None
        return isinstance(blocks, list) and any(
            block.get("input", {}).get("file_text") == GOOD for block in blocks
        )

    # The assistant's message with the edits and its turn's record, once each for both saves.
    assert len([item for item in encoded if carries_the_edits(item)]) == 2
    (run,) = [path for path in (project / "logs").iterdir() if path.is_dir()]
    saved = (run / "attempt-00" / runlog.CONVERSATION).read_bytes()
    conversation = json.loads(saved)
    assert [message["role"] for message in conversation["messages"]] == [
        "user",
        "assistant",
        "user",
        "assistant",
    ]
    assert len(conversation["turns"]) == 2
    assert saved == atomic.json_bytes(conversation)  # the layout of one full encoding
