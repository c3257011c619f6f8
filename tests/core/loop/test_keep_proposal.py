"""The proposal kept for review: the work done on it before the review can start, counted.

At 200 files of 450 lines every pass over the proposal's texts costs milliseconds the
person waits for before the first diff."""

from __future__ import annotations

import hashlib
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from orch_tui.core.domain import proposal as proposal_module
from orch_tui.core.domain.proposal import Proposal
from orch_tui.core.loop.review import ReviewAborted
from orch_tui.core.util import atomic
from tests.core.loop.test_conversation_saves import StopAtReview
from tests.core.loop.test_engine import GOOD, TEST, make_engine
from tests.support.scripting import attempt, create


def test_the_new_proposal_is_hashed_once_before_its_review(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Saving it (its digest in proposal.json) and looking for an identical earlier proposal
    both need the digest; the proposal's texts are hashed once for both."""
    (tmp_path / "spec.md").write_text("# calc\n\n`calc.add(a, b)` returns the sum.\n")
    hashed: list[int] = []

    def sha256(data: bytes) -> Any:
        hashed.append(len(data))
        return hashlib.sha256(data)

    monkeypatch.setattr(proposal_module, "hashlib", SimpleNamespace(sha256=sha256))
    engine, _ = make_engine(
        tmp_path,
        [attempt(create("calc.py", GOOD), create("tests/test_calc.py", TEST))],
        reviewer=StopAtReview(),
    )
    with pytest.raises(ReviewAborted):
        engine.run()
    assert len(hashed) == 1


def test_the_new_texts_are_escaped_once_for_proposal_json_and_its_digest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The digest escaped every new text as JSON, then proposal.json's encoding did it again:
    3.8 MB twice at 200 files. The file's bytes are as json_bytes lays out to_json()."""
    (tmp_path / "spec.md").write_text("# calc\n\n`calc.add(a, b)` returns the sum.\n")
    escaped: list[str] = []
    escape = proposal_module._json_string

    def counted(text: str) -> str:
        escaped.append(text)
        return escape(text)

    monkeypatch.setattr(proposal_module, "_json_string", counted)
    encoded: list[Any] = []
    compact = atomic._compact

    def compacted(data: Any) -> str:
        encoded.append(data)
        return compact(data)

    monkeypatch.setattr(atomic, "_compact", compacted)
    engine, _ = make_engine(
        tmp_path,
        [attempt(create("calc.py", GOOD), create("tests/test_calc.py", TEST))],
        reviewer=StopAtReview(),
    )
    with pytest.raises(ReviewAborted):
        engine.run()
    assert (escaped.count(GOOD), escaped.count(TEST)) == (1, 1)
    assert not [data for data in encoded if isinstance(data, dict) and "new_text" in data]
    (saved,) = (tmp_path / "logs").glob("*/attempt-00/proposal.json")
    proposal = Proposal.from_json(saved.read_bytes())
    assert saved.read_bytes() == atomic.json_bytes(proposal.to_json())
