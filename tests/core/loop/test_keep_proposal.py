"""The proposal kept for review: the work done on it before the review can start, counted.

At 200 files of 450 lines every pass over the proposal's texts costs milliseconds the
person waits for before the first diff."""

from __future__ import annotations

from pathlib import Path

import pytest

from orch_tui.core.domain import proposal as proposal_module
from orch_tui.core.domain.proposal import Proposal
from orch_tui.core.util import atomic
from tests.core.loop.test_conversation_saves import run_to_the_first_review
from tests.core.loop.test_engine import GOOD, TEST
from tests.support.spying import calls_to


def test_the_new_proposal_is_hashed_once_before_its_review(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Saving it (its digest in proposal.json) and looking for an identical earlier proposal
    both need the digest; the proposal's texts are hashed once for both."""
    (tmp_path / "spec.md").write_text("# calc\n\n`calc.add(a, b)` returns the sum.\n")
    hashed = calls_to(monkeypatch, proposal_module, "sha256_hex")
    run_to_the_first_review(tmp_path)
    assert len(hashed) == 1


def test_the_new_texts_are_escaped_once_for_proposal_json_and_its_digest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The digest escaped every new text as JSON, then proposal.json's encoding did it again:
    3.8 MB twice at 200 files. The file's bytes are as json_bytes lays out to_json()."""
    (tmp_path / "spec.md").write_text("# calc\n\n`calc.add(a, b)` returns the sum.\n")
    escaped = calls_to(monkeypatch, proposal_module, "_json_string")
    encoded = calls_to(monkeypatch, atomic, "_compact")
    run_to_the_first_review(tmp_path)
    assert (escaped.count(GOOD), escaped.count(TEST)) == (1, 1)
    assert not [data for data in encoded if isinstance(data, dict) and "new_text" in data]
    (saved,) = (tmp_path / "logs").glob("*/attempt-00/proposal.json")
    proposal = Proposal.from_json(saved.read_bytes())
    assert saved.read_bytes() == atomic.json_bytes(proposal.to_json())
