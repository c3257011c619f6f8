"""core.review: the session's counts and cached edits, and how ]/[, }/{ and a decision move
the review cursor over a proposal's hunks."""

from __future__ import annotations

from orch_tui.core.domain.proposal import Decisions, FileChange, HunkDecision, Proposal
from orch_tui.core.loop.review import ReviewCursor, ReviewSession

OLD = "a\nb\nc\nd\ne\n"
TWO_HUNKS = "A\nb\nc\nd\nE\n"  # lines 1 and 5 changed: two hunks

PROPOSAL = Proposal(
    0,
    (
        FileChange("a.py", OLD, TWO_HUNKS),
        FileChange("b.py", None, "new\n"),
        FileChange("c.py", OLD, TWO_HUNKS),
    ),
)


def test_positions_list_every_hunk_in_file_order() -> None:
    assert ReviewCursor(PROPOSAL).positions == [(0, 0), (0, 1), (1, 0), (2, 0), (2, 1)]


def test_a_file_without_hunks_still_has_one_stop() -> None:
    unchanged = Proposal(0, (FileChange("x.py", OLD, OLD), FileChange("y.py", None, "y\n")))
    assert ReviewCursor(unchanged).positions == [(0, 0), (1, 0)]


def test_hunk_moves_cross_files_and_stop_at_the_ends() -> None:
    cursor = ReviewCursor(PROPOSAL)
    cursor.previous_hunk()
    assert (cursor.file, cursor.hunk) == (0, 0)
    seen = []
    for _ in range(6):
        cursor.next_hunk()
        seen.append((cursor.file, cursor.hunk))
    assert seen == [(0, 1), (1, 0), (2, 0), (2, 1), (2, 1), (2, 1)]
    cursor.previous_hunk()
    cursor.previous_hunk()
    assert (cursor.file, cursor.hunk) == (1, 0)


def test_file_moves_land_on_the_first_hunk() -> None:
    cursor = ReviewCursor(PROPOSAL, file=0, hunk=1)
    cursor.next_file()
    assert (cursor.file, cursor.hunk) == (1, 0)
    cursor.next_file()
    cursor.next_file()
    assert (cursor.file, cursor.hunk) == (2, 0)
    cursor.hunk = 1
    cursor.previous_file()
    assert (cursor.file, cursor.hunk) == (1, 0)
    cursor.previous_file()
    cursor.hunk = 1
    cursor.previous_file()
    assert (cursor.file, cursor.hunk) == (0, 0)


def test_next_undecided_skips_decided_hunks_and_wraps() -> None:
    decisions = Decisions()
    decisions.set("a.py", 1, HunkDecision.ACCEPTED)
    decisions.set_file("b.py", HunkDecision.REJECTED)
    cursor = ReviewCursor(PROPOSAL)
    assert cursor.next_undecided(decisions)
    assert (cursor.file, cursor.hunk) == (2, 0)
    cursor.hunk = 1
    assert cursor.next_undecided(decisions)  # wraps round to the start
    assert (cursor.file, cursor.hunk) == (0, 0)


def test_next_undecided_reports_when_everything_is_decided() -> None:
    decisions = Decisions()
    for path in ("a.py", "b.py", "c.py"):
        decisions.set_file(path, HunkDecision.ACCEPTED)
    cursor = ReviewCursor(PROPOSAL, file=1)
    assert not cursor.next_undecided(decisions)
    assert (cursor.file, cursor.hunk) == (1, 0)


def test_first_undecided_starts_at_the_top_including_the_first_hunk() -> None:
    cursor = ReviewCursor(PROPOSAL, file=2, hunk=1)
    assert cursor.first_undecided(Decisions())
    assert (cursor.file, cursor.hunk) == (0, 0)
    decisions = Decisions()
    decisions.set("a.py", 0, HunkDecision.REJECTED)
    assert cursor.first_undecided(decisions)
    assert (cursor.file, cursor.hunk) == (0, 1)


def test_first_undecided_with_all_decided_stays_on_the_first_stop() -> None:
    decisions = Decisions()
    for path in ("a.py", "b.py", "c.py"):
        decisions.set_file(path, HunkDecision.REJECTED)
    cursor = ReviewCursor(PROPOSAL, file=2, hunk=1)
    assert not cursor.first_undecided(decisions)
    assert (cursor.file, cursor.hunk) == (0, 0)


def test_select_file_ignores_an_index_out_of_range() -> None:
    cursor = ReviewCursor(PROPOSAL)
    cursor.select_file(2)
    assert (cursor.file, cursor.hunk) == (2, 0)
    cursor.select_file(7)
    assert (cursor.file, cursor.hunk) == (2, 0)


def test_an_empty_proposal_has_no_stops_and_moves_do_nothing() -> None:
    cursor = ReviewCursor(Proposal(0, ()))
    for move in (cursor.next_hunk, cursor.previous_hunk, cursor.next_file, cursor.previous_file):
        move()
    assert cursor.positions == [] and (cursor.file, cursor.hunk) == (0, 0)
    assert not cursor.first_undecided(Decisions())


def test_the_session_counts_decisions_over_the_proposal_as_it_would_land() -> None:
    saved: list[dict[str, object]] = []
    session = ReviewSession(0, PROPOSAL, Decisions(), lambda d: saved.append(d.to_json()))
    assert session.counts() == (0, 0, 5)
    session.decide("a.py", 1, HunkDecision.REJECTED)
    session.decide_file("c.py", HunkDecision.ACCEPTED)
    assert session.counts() == (2, 1, 2)
    # A hand edit makes a.py one hunk again, undecided; the count follows the edited text.
    session.edit("a.py", "A\nb\nc\nd\ne\n")
    assert session.counts() == (2, 0, 2)
    assert len(saved) == 3 and saved[-1]["edits"] == {"a.py": "A\nb\nc\nd\ne\n"}


def test_the_session_computes_the_edited_proposal_once_per_edit() -> None:
    session = ReviewSession(0, PROPOSAL, Decisions(), lambda _d: None, failing_before=["t::x"])
    first = session.effective
    assert first is PROPOSAL and session.effective is first  # no edits: the proposal itself
    session.edit("b.py", "other\n")
    edited = session.effective
    assert edited is not first and session.effective is edited
    assert edited.changes[1].new_text == "other\n"
    assert session.failing_before == ["t::x"]


def test_moves_on_a_big_proposal_walk_the_same_stops_as_the_full_list() -> None:
    """Moves look only at the files beside the cursor: on 300 files (hunks 0 to 3 each) they
    still visit every stop in order, both ways, and find the undecided hunk the full list
    of stops would."""
    texts = [OLD, TWO_HUNKS, "A\nb\nc\nd\ne\n", OLD.replace("c", "C")]
    changes = tuple(
        FileChange(f"f{n:03d}.py", OLD, texts[n % 4] + "x\n" * (n % 3 == 0)) for n in range(300)
    )
    proposal = Proposal(0, changes)
    cursor = ReviewCursor(proposal)
    stops = cursor.positions
    assert len(stops) > 300
    walked = [(cursor.file, cursor.hunk)]
    for _ in stops:
        cursor.next_hunk()
        walked.append((cursor.file, cursor.hunk))
    assert walked[:-1] == stops and walked[-1] == stops[-1]
    back = []
    for _ in stops:
        back.append((cursor.file, cursor.hunk))
        cursor.previous_hunk()
    assert back == stops[::-1] and (cursor.file, cursor.hunk) == stops[0]

    decisions = Decisions()
    for path in proposal.files[:250]:
        decisions.set_file(path, HunkDecision.ACCEPTED)
    decisions.set(proposal.files[260], 0, HunkDecision.REJECTED)
    for start in (stops[0], stops[len(stops) // 2], stops[-1]):
        cursor.file, cursor.hunk = start
        at = stops.index(start)
        expected = next(
            (file, hunk)
            for file, hunk in stops[at + 1 :] + stops[: at + 1]
            if hunk >= len(states := decisions.for_file(changes[file]))
            or states[hunk] is HunkDecision.UNDECIDED
        )
        assert cursor.next_undecided(decisions)
        assert (cursor.file, cursor.hunk) == expected
