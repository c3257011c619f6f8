"""Proposals, hunks and decisions: what lands for every combination of hunk decisions."""

from __future__ import annotations

import hashlib
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from orch_tui.core.domain.proposal import (
    ChangeKind,
    Decisions,
    FileChange,
    Hunk,
    HunkDecision,
    Proposal,
    effective_proposal,
    resolve,
)

A, R, U = HunkDecision.ACCEPTED, HunkDecision.REJECTED, HunkDecision.UNDECIDED

# Small line alphabets make equal lines (and so several hunks per file) likely; "\r" and "\x0c"
# exercise splitlines' other line breaks, and a final piece without "\n" a missing last newline.
line_pieces = st.sampled_from(["a\n", "b\n", "c\n", "\n", "x = 1\n", "d\r\n", "e\r", "f\x0c", "g"])
texts = st.lists(line_pieces, max_size=25).map("".join) | st.text(max_size=40)
maybe_texts = st.none() | texts
decision_values = st.sampled_from(list(HunkDecision))


@st.composite
def file_changes(draw: st.DrawFn) -> FileChange:
    old = draw(maybe_texts)
    new = draw(texts) if old is None else draw(maybe_texts)
    path = draw(st.sampled_from(["a.py", "pkg/b.py", "tests/test_c.py", "z.txt", "README"]))
    return FileChange(path, old, new)


@st.composite
def proposals(draw: st.DrawFn) -> Proposal:
    changes = draw(st.lists(file_changes(), max_size=4, unique_by=lambda c: c.path))
    return Proposal(draw(st.integers(0, 50)), tuple(changes))


def apply_hunks(change: FileChange, accepted: set[int]) -> list[str]:
    """Reference: splice exactly the accepted hunks into the old lines, last hunk first."""
    lines = list(change.old_lines)
    for hunk in reversed(change.hunks):
        if hunk.index in accepted:
            lines[hunk.old_start : hunk.old_end] = change.new_lines[hunk.new_start : hunk.new_end]
    return lines


# --- hunks -------------------------------------------------------------------------------------


def test_two_changes_apart_are_two_hunks_and_counts_add_up() -> None:
    change = FileChange("m.py", "a\nb\nc\nd\ne\n", "a\nB\nc\nd\ne\nf\n")
    assert change.kind is ChangeKind.MODIFIED
    assert change.hunks == (Hunk(0, 1, 2, 1, 2), Hunk(1, 5, 5, 5, 6))
    assert (change.added, change.removed) == (2, 1)
    assert change.hunks[1].added == 1 and change.hunks[1].removed == 0


def test_added_and_deleted_files_have_one_hunk_over_the_whole_file() -> None:
    added = FileChange("n.py", None, "x\ny")
    deleted = FileChange("d.py", "x\ny\n", None)
    assert added.kind is ChangeKind.ADDED and added.hunks == (Hunk(0, 0, 0, 0, 2),)
    assert deleted.kind is ChangeKind.DELETED and deleted.hunks == (Hunk(0, 0, 2, 0, 0),)


def test_empty_added_file_has_one_zero_length_hunk_that_can_be_rejected() -> None:
    empty = FileChange("pkg/__init__.py", None, "")
    assert empty.kind is ChangeKind.ADDED
    assert empty.hunks == (Hunk(0, 0, 0, 0, 0),)
    assert (empty.added, empty.removed) == (0, 0)
    assert empty.resolve([U]) == ""
    assert empty.resolve([A]) == ""
    assert empty.resolve([R]) is None


def test_empty_file_deleted_can_be_kept() -> None:
    gone = FileChange("e.txt", "", None)
    assert gone.kind is ChangeKind.DELETED
    assert gone.resolve([A]) is None
    assert gone.resolve([R]) == ""


def test_a_modified_file_with_unchanged_text_has_no_hunks() -> None:
    same = FileChange("s.py", "a\n", "a\n")
    assert same.hunks == ()
    assert same.resolve([]) == "a\n"


def test_a_change_needs_a_text_and_a_relative_path() -> None:
    with pytest.raises(ValueError):
        FileChange("x.py", None, None)
    with pytest.raises(ValueError):
        FileChange("/etc/passwd", None, "x")
    with pytest.raises(ValueError):
        FileChange("", None, "x")


def test_large_file_with_few_changes_has_exact_hunks() -> None:
    old_lines = [f"line {i}\n" for i in range(20_000)]
    new_lines = list(old_lines)
    new_lines[10] = "changed\n"
    new_lines[19_000:19_001] = ["one\n", "two\n"]
    change = FileChange("big.py", "".join(old_lines), "".join(new_lines))
    assert change.hunks == (Hunk(0, 10, 11, 10, 11), Hunk(1, 19_000, 19_001, 19_000, 19_002))
    assert change.resolve([R, A]) == "".join(old_lines[:19_000] + new_lines[19_000:])


@given(file_changes())
def test_hunk_ranges_tile_both_files(change: FileChange) -> None:
    old, new = change.old_lines, change.new_lines
    if change.kind is not ChangeKind.MODIFIED:
        assert change.hunks == (Hunk(0, 0, len(old), 0, len(new)),)
        return
    old_pos = new_pos = 0
    for index, hunk in enumerate(change.hunks):
        assert hunk.index == index
        assert hunk.added + hunk.removed > 0
        assert hunk.old_start >= old_pos and hunk.new_start >= new_pos
        if index > 0:  # hunks are separated by at least one unchanged line
            assert hunk.old_start > old_pos
        # the region before the hunk is equal on both sides
        assert old[old_pos : hunk.old_start] == new[new_pos : hunk.new_start]
        old_pos, new_pos = hunk.old_end, hunk.new_end
    assert old[old_pos:] == new[new_pos:]
    assert change.added == sum(h.added for h in change.hunks)
    assert (change.hunks == ()) == (change.old_text == change.new_text)


# --- resolving decisions -----------------------------------------------------------------------


@given(file_changes())
def test_all_accepted_or_undecided_gives_the_new_text(change: FileChange) -> None:
    n = len(change.hunks)
    assert change.resolve([A] * n) == change.new_text
    assert change.resolve([U] * n) == change.new_text
    assert change.resolve([]) == change.new_text


@given(file_changes())
def test_all_rejected_gives_the_old_text(change: FileChange) -> None:
    assert change.resolve([R] * len(change.hunks)) == change.old_text


@given(file_changes(), st.data())
def test_any_subset_equals_applying_exactly_those_hunks(
    change: FileChange, data: st.DataObject
) -> None:
    decisions = data.draw(
        st.lists(decision_values, min_size=len(change.hunks), max_size=len(change.hunks))
    )
    accepted = {i for i, d in enumerate(decisions) if d is not R}
    landed = change.resolve(decisions)
    if change.kind is ChangeKind.MODIFIED:
        assert landed == "".join(apply_hunks(change, accepted))
    elif change.kind is ChangeKind.ADDED:
        assert landed == (change.new_text if accepted else None)
    else:
        assert landed == (None if accepted else change.old_text)


def test_rejecting_one_hunk_keeps_its_old_lines_only() -> None:
    change = FileChange("m.py", "a\nb\nc\nd\ne", "a\nB\nc\nd\nE")
    assert change.resolve([R, A]) == "a\nb\nc\nd\nE"
    assert change.resolve([A, R]) == "a\nB\nc\nd\ne"


def test_too_many_decisions_is_an_error() -> None:
    with pytest.raises(ValueError):
        FileChange("m.py", "a\n", "b\n").resolve([A, A])


# --- proposals ---------------------------------------------------------------------------------


def test_changes_are_sorted_by_path_and_unique() -> None:
    proposal = Proposal(
        1,
        (
            FileChange("b.py", None, "b"),
            FileChange("a.py", "x\n", "y\n"),
            FileChange("c", "", None),
        ),
    )
    assert proposal.files == ("a.py", "b.py", "c")
    assert proposal.file_count == 3
    assert proposal.hunk_count == 3
    assert (proposal.added, proposal.removed) == (2, 1)
    assert proposal.change("b.py") == FileChange("b.py", None, "b")
    assert proposal.change("nope") is None
    with pytest.raises(ValueError):
        Proposal(1, (FileChange("a.py", None, "1"), FileChange("a.py", None, "2")))


def test_is_empty() -> None:
    assert Proposal(0, ()).is_empty
    assert Proposal(0, (FileChange("a", "x", "x"),)).is_empty
    assert not Proposal(0, (FileChange("a", None, ""),)).is_empty


@given(proposals())
def test_digest_ignores_attempt_and_order(proposal: Proposal) -> None:
    again = Proposal(proposal.attempt + 1, tuple(reversed(proposal.changes)))
    assert again.digest() == proposal.digest()
    assert Proposal.from_json(proposal.to_json()).digest() == proposal.digest()


def test_digest_changes_with_any_new_text() -> None:
    base = Proposal(1, (FileChange("a.py", "x\n", "y\n"), FileChange("b.py", None, "z")))
    digests = {
        base.digest(),
        Proposal(1, (FileChange("a.py", "x\n", "y\n"), FileChange("b.py", None, "z\n"))).digest(),
        Proposal(1, (FileChange("a.py", "x\n", "y\n"),)).digest(),
        Proposal(1, (FileChange("a.py", "x\n", None), FileChange("b.py", None, "z"))).digest(),
        Proposal(1, (FileChange("a.py", "x\n", "y\n"), FileChange("c.py", None, "z"))).digest(),
    }
    assert len(digests) == 5
    assert len(base.digest()) == 64


@given(proposals())
def test_the_digest_and_the_change_lines_are_what_json_dumps_makes_of_them(
    proposal: Proposal,
) -> None:
    """Escaped once by hand for both, they stay what json.dumps wrote: a digest in an earlier
    run's proposal.json still matches, and the file's lines are the same bytes."""
    pairs = [[change.path, change.new_text] for change in proposal.changes]
    payload = json.dumps(pairs, ensure_ascii=False, separators=(",", ":"))
    digest = hashlib.sha256(payload.encode("utf-8", "surrogatepass")).hexdigest()
    same = Proposal(proposal.attempt, proposal.changes)
    assert same.change_lines() == [
        json.dumps(change.to_json(), ensure_ascii=False).encode("utf-8")
        for change in proposal.changes
    ]
    assert same.digest() == proposal.digest() == digest


def test_a_digest_hashes_a_text_of_any_character_as_json_dumps_escapes_it() -> None:
    texts = ['q"uote \\ \t\x00\x1f\x7f', "é 中文 😀 \u2028\u2029", "lone \ud800", ""]
    changes = tuple(FileChange(f"p/é{n}.py", None, text) for n, text in enumerate(texts))
    proposal = Proposal(0, (*changes, FileChange("gone.py", "x\n", None)))
    pairs = [[change.path, change.new_text] for change in proposal.changes]
    payload = json.dumps(pairs, ensure_ascii=False, separators=(",", ":"))
    assert proposal.digest() == hashlib.sha256(payload.encode("utf-8", "surrogatepass")).hexdigest()


@given(proposals())
def test_proposal_json_round_trip(proposal: Proposal) -> None:
    as_text = json.dumps(proposal.to_json())
    assert Proposal.from_json(json.loads(as_text)) == proposal
    assert Proposal.from_json(as_text) == proposal


@given(file_changes())
def test_file_change_json_round_trip(change: FileChange) -> None:
    data = json.loads(json.dumps(change.to_json()))
    assert data["kind"] == change.kind.value
    assert FileChange.from_json(data) == change


# --- decisions ---------------------------------------------------------------------------------


def two_file_proposal() -> Proposal:
    return Proposal(
        2,
        (
            FileChange("m.py", "a\nb\nc\nd\ne\n", "a\nB\nc\nd\nE\n"),
            FileChange("new.py", None, "print(1)\n"),
        ),
    )


def test_undecided_decisions_cover_every_hunk() -> None:
    decisions = Decisions.undecided(two_file_proposal())
    assert decisions.hunks == {"m.py": [U, U], "new.py": [U]}
    assert decisions.counts(two_file_proposal()) == (0, 0, 3)


def test_set_and_set_file_and_counts() -> None:
    proposal = two_file_proposal()
    decisions = Decisions.undecided(proposal)
    decisions.set("m.py", 1, R)
    assert decisions.counts(proposal) == (0, 1, 2)
    decisions.set_file("new.py", "rejected")
    decisions.set("m.py", 0, "accepted")
    assert decisions.hunks == {"m.py": [A, R], "new.py": [R]}
    assert decisions.counts(proposal) == (1, 2, 0)
    with pytest.raises(ValueError):
        decisions.set("m.py", -1, A)
    with pytest.raises(ValueError):
        decisions.set("m.py", 0, "maybe")


def test_undecided_lands_as_accepted() -> None:
    proposal = two_file_proposal()
    assert resolve(proposal, Decisions()) == {"m.py": "a\nB\nc\nd\nE\n", "new.py": "print(1)\n"}


def test_resolve_lists_only_paths_that_change() -> None:
    proposal = two_file_proposal()
    decisions = Decisions.undecided(proposal)
    decisions.set("m.py", 0, R)
    decisions.set_file("new.py", R)
    assert resolve(proposal, decisions) == {"m.py": "a\nb\nc\nd\nE\n"}
    decisions.set("m.py", 1, R)
    assert resolve(proposal, decisions) == {}


def test_deleted_file_resolves_to_none() -> None:
    proposal = Proposal(1, (FileChange("old.py", "x\n", None),))
    assert resolve(proposal, Decisions()) == {"old.py": None}


def test_whole_proposal_rejected_lands_nothing() -> None:
    decisions = Decisions(reject_reason="use pathlib")
    assert resolve(two_file_proposal(), decisions) == {}


def test_edit_lands_the_edited_text_and_resets_that_files_decisions() -> None:
    proposal = two_file_proposal()
    decisions = Decisions.undecided(proposal)
    decisions.set_file("m.py", R)
    decisions.set_file("new.py", R)
    decisions.edit("m.py", "a\nb2\nc\nd\ne\nf\ng\n")
    effective = effective_proposal(proposal, decisions)
    assert effective.change("m.py") == FileChange(
        "m.py", "a\nb\nc\nd\ne\n", "a\nb2\nc\nd\ne\nf\ng\n"
    )
    assert effective.change("new.py") == proposal.change("new.py")
    assert decisions.for_file(effective.change("m.py")) == [U, U]
    assert decisions.counts(proposal) == (0, 1, 2)
    assert resolve(proposal, decisions) == {"m.py": "a\nb2\nc\nd\ne\nf\ng\n"}
    decisions.set("m.py", 1, R)
    assert resolve(proposal, decisions) == {"m.py": "a\nb2\nc\nd\ne\n"}


def test_set_file_after_edit_covers_the_new_hunks() -> None:
    proposal = two_file_proposal()
    decisions = Decisions.undecided(proposal)
    decisions.edit("m.py", "A\nb\nC\nd\nE\n")
    decisions.set_file("m.py", A)
    decisions.set("m.py", 1, R)
    change = effective_proposal(proposal, decisions).change("m.py")
    assert change is not None and len(change.hunks) == 3
    assert decisions.for_file(change) == [A, R, A]
    assert resolve(proposal, decisions)["m.py"] == "A\nb\nc\nd\nE\n"


def test_editing_a_deleted_file_keeps_the_edited_text() -> None:
    proposal = Proposal(1, (FileChange("old.py", "x\n", None),))
    decisions = Decisions()
    decisions.edit("old.py", "x\ny\n")
    assert effective_proposal(proposal, decisions).changes[0].kind is ChangeKind.MODIFIED
    assert resolve(proposal, decisions) == {"old.py": "x\ny\n"}


@given(proposals(), st.data())
def test_decisions_json_round_trip_and_resolve_agrees(
    proposal: Proposal, data: st.DataObject
) -> None:
    decisions = Decisions.undecided(proposal)
    for change in proposal.changes:
        for index in range(len(change.hunks)):
            decisions.set(change.path, index, data.draw(decision_values))
        if data.draw(st.booleans()):
            decisions.edit(change.path, data.draw(texts))
    decisions.reject_reason = data.draw(st.none() | st.text(max_size=10))
    restored = Decisions.from_json(json.loads(json.dumps(decisions.to_json())))
    assert restored == decisions
    assert Decisions.from_json(json.dumps(decisions.to_json())) == decisions
    assert resolve(proposal, restored) == resolve(proposal, decisions)
    assert sum(decisions.counts(proposal)) == effective_proposal(proposal, decisions).hunk_count


@given(proposals())
def test_resolve_with_no_decisions_is_the_proposal_minus_no_ops(proposal: Proposal) -> None:
    expected = {c.path: c.new_text for c in proposal.changes if c.new_text != c.old_text}
    assert resolve(proposal, Decisions()) == expected
