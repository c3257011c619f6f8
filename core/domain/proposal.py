"""Proposals: the file changes of one attempt, their hunks, and the person's decisions on them.

A hunk is one contiguous block of changed lines (one non-equal difflib opcode over lines
split on "\\n" only, as git splits them, so hunks and the saved patch agree), not a git ``@@``
block: two changes a few lines apart are two hunks, decided separately. Undecided hunks land as if accepted.

An added or deleted file always has exactly one hunk covering the whole file. For an empty
file that hunk is zero-length (``Hunk(0, 0, 0, 0, 0)``), so an added or deleted empty file is
accepted or rejected like any other: rejecting an added file means it is not created, rejecting
a deleted file keeps it. A modified file whose text is unchanged (e.g. hand-edited back) has no
hunks and lands as its old text.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import field
from enum import StrEnum
from functools import cached_property
from json.encoder import encode_basestring as _json_string
from typing import Any

from orch_tui.core.domain.unified_diff import git_lines, render_patch, text_changes, unified_diff
from orch_tui.core.util.digests import sha256_hex
from orch_tui.core.util.records import record

__all__ = [
    "ChangeKind",
    "Decisions",
    "FileChange",
    "Hunk",
    "HunkDecision",
    "Proposal",
    "effective_proposal",
    "render_patch",
    "resolve",
    "unified_diff",
]


class ChangeKind(StrEnum):
    ADDED = "A"
    MODIFIED = "M"
    DELETED = "D"


class HunkDecision(StrEnum):
    UNDECIDED = "undecided"
    ACCEPTED = "accepted"
    REJECTED = "rejected"


def _as_mapping(data: Mapping[str, Any] | str | bytes) -> Mapping[str, Any]:
    """from_json accepts the parsed object or its JSON text."""
    if isinstance(data, str | bytes):
        data = json.loads(data)
    if not isinstance(data, Mapping):
        raise ValueError(f"expected a JSON object, got {type(data).__name__}")
    return data


def _json_text(text: str | None) -> str:
    """``text`` as JSON (``json.dumps(text, ensure_ascii=False)``): json's own escaping."""
    return "null" if text is None else _json_string(text)


@record(frozen=True)
class Hunk:
    """One contiguous block of changed lines; 0-based line ranges, ends exclusive."""

    index: int
    old_start: int
    old_end: int
    new_start: int
    new_end: int

    @property
    def removed(self) -> int:
        return self.old_end - self.old_start

    @property
    def added(self) -> int:
        return self.new_end - self.new_start


@record(frozen=True)
class FileChange:
    """One file of a proposal. ``old_text`` None: the file is added; ``new_text`` None: deleted.

    ``old_lines``, ``new_lines`` and ``hunks`` are computed once and cached; do not mutate the
    returned lists.
    """

    path: str
    old_text: str | None
    new_text: str | None

    def __post_init__(self) -> None:
        if self.old_text is None and self.new_text is None:
            raise ValueError(f"{self.path}: a change needs an old or a new text")
        if not self.path or self.path.startswith("/"):
            raise ValueError(f"not a workspace-relative path: {self.path!r}")

    @property
    def kind(self) -> ChangeKind:
        if self.old_text is None:
            return ChangeKind.ADDED
        if self.new_text is None:
            return ChangeKind.DELETED
        return ChangeKind.MODIFIED

    @cached_property
    def old_lines(self) -> list[str]:
        return git_lines(self.old_text or "")

    @cached_property
    def new_lines(self) -> list[str]:
        return git_lines(self.new_text or "")

    @cached_property
    def hunks(self) -> tuple[Hunk, ...]:
        old, new = self.old_lines, self.new_lines
        if self.kind is not ChangeKind.MODIFIED:
            return (Hunk(0, 0, len(old), 0, len(new)),)
        changed = text_changes(self.old_text or "", self.new_text or "")
        return tuple(
            Hunk(index, i1, i2, j1, j2) for index, (_tag, i1, i2, j1, j2) in enumerate(changed)
        )

    @property
    def added(self) -> int:
        return sum(hunk.added for hunk in self.hunks)

    @property
    def removed(self) -> int:
        return sum(hunk.removed for hunk in self.hunks)

    def resolve(self, decisions: Sequence[HunkDecision | str]) -> str | None:
        """The text that lands (None: no file) given one decision per hunk.

        Accepted and undecided hunks take the new lines, rejected ones keep the old lines, and
        the equal regions between hunks are untouched. Missing trailing decisions count as
        undecided; more decisions than hunks is an error.
        """
        hunks = self.hunks
        if len(decisions) > len(hunks):
            raise ValueError(f"{self.path}: {len(decisions)} decisions for {len(hunks)} hunks")
        rejected = [HunkDecision(d) is HunkDecision.REJECTED for d in decisions]
        rejected += [False] * (len(hunks) - len(rejected))
        if not any(rejected):
            return self.new_text
        if all(rejected):
            return self.old_text
        old, new = self.old_lines, self.new_lines
        parts: list[str] = []
        position = 0
        for hunk, is_rejected in zip(hunks, rejected, strict=True):
            parts.extend(old[position : hunk.old_start])
            if is_rejected:
                parts.extend(old[hunk.old_start : hunk.old_end])
            else:
                parts.extend(new[hunk.new_start : hunk.new_end])
            position = hunk.old_end
        parts.extend(old[position:])
        return "".join(parts)

    def with_new_text(self, text: str) -> FileChange:
        """The same change with a hand-edited proposed text (its hunks are recomputed)."""
        return FileChange(self.path, self.old_text, text)

    def json_line(self, new_text_json: str) -> bytes:
        """:meth:`to_json` as ``json.dumps(..., ensure_ascii=False)`` writes it, UTF-8; the new
        text comes escaped (:func:`_json_text`) from the caller, whose digest needs it too."""
        return (
            f'{{"path": {_json_string(self.path)}, "kind": {_json_string(self.kind.value)}, '
            f'"old_text": {_json_text(self.old_text)}, "new_text": {new_text_json}}}'
        ).encode()

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "kind": self.kind.value,
            "old_text": self.old_text,
            "new_text": self.new_text,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any] | str | bytes) -> FileChange:
        data = _as_mapping(data)
        return cls(str(data["path"]), data.get("old_text"), data.get("new_text"))


@record(frozen=True)
class Proposal:
    """The file changes of one attempt, always sorted by path, at most one change per path."""

    attempt: int
    changes: tuple[FileChange, ...] = ()

    def __post_init__(self) -> None:
        ordered = tuple(sorted(self.changes, key=lambda change: change.path))
        for before, after in zip(ordered, ordered[1:], strict=False):
            if before.path == after.path:
                raise ValueError(f"two changes for {before.path}")
        object.__setattr__(self, "changes", ordered)

    @property
    def files(self) -> tuple[str, ...]:
        """The changed paths, sorted."""
        return tuple(change.path for change in self.changes)

    @property
    def file_count(self) -> int:
        return len(self.changes)

    @property
    def hunk_count(self) -> int:
        return sum(len(change.hunks) for change in self.changes)

    @property
    def added(self) -> int:
        return sum(change.added for change in self.changes)

    @property
    def removed(self) -> int:
        return sum(change.removed for change in self.changes)

    @property
    def is_empty(self) -> bool:
        """True when no change would alter anything (no changes, or only unchanged texts)."""
        return all(change.old_text == change.new_text for change in self.changes)

    def change(self, path: str) -> FileChange | None:
        return next((change for change in self.changes if change.path == path), None)

    def digest(self) -> str:
        """sha256 over every (path, new_text): equal digests mean identical proposals.

        The attempt number and the old texts are left out on purpose: the same edits proposed
        again by a later attempt are the same proposal. Computed once (a proposal never
        changes): saving a new proposal and comparing it with the earlier attempts' both ask
        for it, ~18 ms each over 200 files' texts.
        """
        return self._digest

    @cached_property
    def _digest(self) -> str:
        return self._digest_of([_json_text(change.new_text) for change in self.changes])

    def _digest_of(self, new_texts_json: list[str]) -> str:
        """The digest from the new texts as JSON strings: a hash of ``json.dumps([[path,
        new_text], ...], ensure_ascii=False, separators=(",", ":"))``."""
        pairs = ",".join(
            f"[{_json_string(change.path)},{text}]"
            for change, text in zip(self.changes, new_texts_json, strict=True)
        )
        return sha256_hex(f"[{pairs}]".encode("utf-8", "surrogatepass"))

    def change_lines(self) -> list[bytes]:
        """Each change's :meth:`FileChange.json_line`, as ``proposal.json`` lists them. The new
        texts are escaped once for these lines and the digest (when it is not known yet):
        saving a 200-file proposal escaped its 3.8 MB of new texts twice."""
        new_texts_json = [_json_text(change.new_text) for change in self.changes]
        if "_digest" not in self.__dict__:
            self.__dict__["_digest"] = self._digest_of(new_texts_json)
        return [
            change.json_line(text)
            for change, text in zip(self.changes, new_texts_json, strict=True)
        ]

    def to_json(self) -> dict[str, Any]:
        return {
            "attempt": self.attempt,
            "digest": self.digest(),
            "changes": [change.to_json() for change in self.changes],
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any] | str | bytes) -> Proposal:
        data = _as_mapping(data)
        changes = tuple(FileChange.from_json(item) for item in data.get("changes", ()))
        return cls(int(data["attempt"]), changes)


@record
class Decisions:
    """What the person decided on one proposal; persisted as decisions.json.

    ``hunks[path]`` may be shorter than the file's hunk list (after an edit the hunk count is
    not known here): a hunk without an entry takes ``file_decisions[path]`` (set by
    :meth:`set_file`) or else counts as undecided. Read decisions through :meth:`for_file`.
    """

    hunks: dict[str, list[HunkDecision]] = field(default_factory=dict)
    edits: dict[str, str] = field(default_factory=dict)
    reject_reason: str | None = None
    file_decisions: dict[str, HunkDecision] = field(default_factory=dict)

    @classmethod
    def undecided(cls, proposal: Proposal) -> Decisions:
        """Fresh decisions with every hunk of the proposal undecided."""
        return cls(
            hunks={c.path: [HunkDecision.UNDECIDED] * len(c.hunks) for c in proposal.changes}
        )

    def set(self, path: str, hunk_index: int, decision: HunkDecision | str) -> None:
        if hunk_index < 0:
            raise ValueError(f"hunk index must be >= 0, got {hunk_index}")
        row = self.hunks.setdefault(path, [])
        fill = self.file_decisions.get(path, HunkDecision.UNDECIDED)
        row.extend([fill] * (hunk_index + 1 - len(row)))
        row[hunk_index] = HunkDecision(decision)

    def set_file(self, path: str, decision: HunkDecision | str) -> None:
        """Decide every hunk of one file."""
        decided = HunkDecision(decision)
        row = self.hunks.setdefault(path, [])
        row[:] = [decided] * len(row)
        self.file_decisions[path] = decided

    def edit(self, path: str, text: str) -> None:
        """Record a hand edit; the file's hunks change, so its decisions reset to undecided."""
        self.edits[path] = text
        self.hunks.pop(path, None)
        self.file_decisions.pop(path, None)

    def for_file(self, change: FileChange) -> list[HunkDecision]:
        """One decision per hunk of ``change`` (pass the effective change for edited files)."""
        row = self.hunks.get(change.path, [])
        count = len(change.hunks)
        fill = self.file_decisions.get(change.path, HunkDecision.UNDECIDED)
        return list(row[:count]) + [fill] * (count - len(row))

    def counts(self, proposal: Proposal) -> tuple[int, int, int]:
        """(accepted, rejected, undecided) hunks of the proposal with its edits applied."""
        return self.tally(effective_proposal(proposal, self))

    def tally(self, effective: Proposal) -> tuple[int, int, int]:
        """:meth:`counts` of a proposal whose edits are already in place."""
        tally = dict.fromkeys(HunkDecision, 0)
        for change in effective.changes:
            for decision in self.for_file(change):
                tally[decision] += 1
        return (
            tally[HunkDecision.ACCEPTED],
            tally[HunkDecision.REJECTED],
            tally[HunkDecision.UNDECIDED],
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "hunks": {path: [d.value for d in row] for path, row in self.hunks.items()},
            "edits": dict(self.edits),
            "reject_reason": self.reject_reason,
            "file_decisions": {path: d.value for path, d in self.file_decisions.items()},
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any] | str | bytes) -> Decisions:
        data = _as_mapping(data)
        return cls(
            hunks={
                str(path): [HunkDecision(d) for d in row]
                for path, row in (data.get("hunks") or {}).items()
            },
            edits={str(path): str(text) for path, text in (data.get("edits") or {}).items()},
            reject_reason=data.get("reject_reason"),
            file_decisions={
                str(path): HunkDecision(d) for path, d in (data.get("file_decisions") or {}).items()
            },
        )


def effective_proposal(proposal: Proposal, decisions: Decisions) -> Proposal:
    """The proposal with the person's hand edits in place of the model's texts."""
    if not decisions.edits:
        return proposal
    changes: Iterable[FileChange] = (
        change.with_new_text(decisions.edits[change.path])
        if change.path in decisions.edits
        else change
        for change in proposal.changes
    )
    return Proposal(proposal.attempt, tuple(changes))


def resolve(proposal: Proposal, decisions: Decisions) -> dict[str, str | None]:
    """path -> the text that lands (None: delete), only for paths whose text would change.

    A proposal rejected as a whole (``reject_reason`` set) lands nothing.
    """
    if decisions.reject_reason is not None:
        return {}
    landed: dict[str, str | None] = {}
    for change in effective_proposal(proposal, decisions).changes:
        text = change.resolve(decisions.for_file(change))
        if text != change.old_text:
            landed[change.path] = text
    return landed
