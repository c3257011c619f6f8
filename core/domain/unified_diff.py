"""Line diffs: fast opcodes for hunks, and git-style unified diffs that `git apply` accepts."""

from __future__ import annotations

import bisect
import difflib
import threading
from collections import OrderedDict
from collections.abc import Iterable, Sequence

Opcode = tuple[str, int, int, int, int]
"""A difflib opcode: (tag, old_start, old_end, new_start, new_end), ends exclusive."""

CONTEXT_LINES = 3
NO_NEWLINE_MARKER = "\\ No newline at end of file\n"

_C_ESCAPES = {
    "\a": "\\a",
    "\b": "\\b",
    "\t": "\\t",
    "\n": "\\n",
    "\v": "\\v",
    "\f": "\\f",
    "\r": "\\r",
    '"': '\\"',
    "\\": "\\\\",
}


def line_opcodes(old: Sequence[str], new: Sequence[str]) -> list[Opcode]:
    """difflib opcodes covering both line sequences completely.

    SequenceMatcher is roughly quadratic in the lines it compares, so it only sees the region
    between the common prefix and the common suffix: a 20,000-line file with a few changes
    costs a few milliseconds instead of seconds. Non-equal opcodes are always separated by an
    equal one, as with plain difflib.
    """
    limit = min(len(old), len(new))
    prefix = 0
    while prefix < limit and old[prefix] == new[prefix]:
        prefix += 1
    suffix = 0
    while suffix < limit - prefix and old[-1 - suffix] == new[-1 - suffix]:
        suffix += 1
    old_mid_end = len(old) - suffix
    new_mid_end = len(new) - suffix

    opcodes: list[Opcode] = []
    if prefix:
        opcodes.append(("equal", 0, prefix, 0, prefix))
    if prefix < old_mid_end or prefix < new_mid_end:
        matcher = RunMatcher(old[prefix:old_mid_end], new[prefix:new_mid_end])
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            opcodes.append((tag, i1 + prefix, i2 + prefix, j1 + prefix, j2 + prefix))
    if suffix:
        opcodes.append(("equal", old_mid_end, len(old), new_mid_end, len(new)))
    return opcodes


def text_changes(old: str, new: str) -> tuple[Opcode, ...]:
    """The non-equal opcodes between two texts' lines (:func:`git_lines`), remembered.

    One file of a proposal is diffed for its hunks, the review's counts, the patch prompt and
    the unified patch, often through different ``FileChange`` objects holding the same texts;
    diffing is the costly part (a 200-file proposal: about a second each time), the lookup is
    a hash the strings keep once computed. What is remembered holds the texts themselves (by
    reference), so it is bounded by their size: the least recently used go first.
    """
    key = (old, new)
    with _REMEMBERED_LOCK:
        found = _REMEMBERED.get(key)
        if found is not None:
            _REMEMBERED.move_to_end(key)
            return found
    changes = tuple(op for op in line_opcodes(git_lines(old), git_lines(new)) if op[0] != "equal")
    global _remembered_chars
    with _REMEMBERED_LOCK:
        if key not in _REMEMBERED:
            _REMEMBERED[key] = changes
            _remembered_chars += len(old) + len(new)
        while _remembered_chars > REMEMBERED_CHARS and len(_REMEMBERED) > 1:
            (gone_old, gone_new), _ = _REMEMBERED.popitem(last=False)
            _remembered_chars -= len(gone_old) + len(gone_new)
    return changes


def forget_text_changes() -> None:
    """Forget every remembered diff (tests that count diffs start from none)."""
    global _remembered_chars
    with _REMEMBERED_LOCK:
        _REMEMBERED.clear()
        _remembered_chars = 0


REMEMBERED_CHARS = 20_000_000
"""The texts :func:`text_changes` may keep alive, in characters (a 200-file proposal of the big
proposals' benchmark, old and new: about 10 million)."""
_REMEMBERED: OrderedDict[tuple[str, str], tuple[Opcode, ...]] = OrderedDict()
_REMEMBERED_LOCK = threading.Lock()  # the engine's thread and the review screen's both diff
_remembered_chars = 0


class RunMatcher(difflib.SequenceMatcher[str]):
    """difflib's SequenceMatcher without junk: the same blocks, found faster.

    difflib looks for the longest matching block of every gap between the blocks found so far
    by walking each line of the gap, so a file with many hunks costs lines × hunks (about a
    second for 20,000 lines and 40 hunks). Here the maximal runs of two or more equal lines
    are listed once, longest first, and a gap takes the longest run clipped to it, with
    difflib's tie rule (the lowest old line, then the lowest new line). A gap whose best is a
    single line or none takes difflib's answer for it: the lowest old line found in the gap's
    new lines, at its lowest place there. Only a gap not settled within a few runs is answered
    by difflib's own search, so the blocks are always difflib's; the index of the new lines
    that search needs (difflib builds it for every matcher: a quarter of a file's diff) is
    built then.
    """

    def __init__(self, a: Sequence[str], b: Sequence[str]) -> None:
        self._indexed = False
        super().__init__(None, a, b, autojunk=False)
        self._old, self._new = a, b
        self._runs: list[tuple[int, int, int]] | None = None
        self._first: dict[str, int] = {}
        self._repeats: dict[str, list[int]] = {}

    def set_seq2(self, b: Sequence[str]) -> None:
        """difflib's, without indexing ``b``'s lines until its own search needs them."""
        self.b = b
        self.matching_blocks = self.opcodes = None
        self.fullbcount = None
        self._indexed = False

    def _longest_first(self) -> list[tuple[int, int, int]]:
        """The maximal runs (length, old start, new start) of 2+ equal lines, longest first."""
        if self._runs is None:
            a, b = self._old, self._new
            # A line's first place in b, and every place of a line that repeats: most lines are
            # unique, and a list each would be 20,000 objects for the garbage collector to walk.
            first, repeats = self._first, self._repeats
            for j, line in enumerate(b):
                seen = first.setdefault(line, j)
                if seen != j:
                    repeats.setdefault(line, [seen]).append(j)
            found = []
            for i, line in enumerate(a):
                only = first.get(line)
                if only is None:
                    continue
                for j in repeats.get(line) or (only,):
                    if i and j and a[i - 1] == b[j - 1]:
                        continue  # inside a run that starts earlier
                    k = _run_length(a, b, i, j)
                    if k > 1:
                        found.append((-k, i, j))
            found.sort()
            self._runs = [(-k, i, j) for k, i, j in found]
        return self._runs

    def find_longest_match(
        self, alo: int = 0, ahi: int | None = None, blo: int = 0, bhi: int | None = None
    ) -> difflib.Match:
        ahi = len(self._old) if ahi is None else ahi
        bhi = len(self._new) if bhi is None else bhi
        best_size, best_i, best_j = 0, alo, blo
        budget = 64 + (ahi - alo)
        for length, i, j in self._longest_first():
            if length < best_size:
                break  # clipping only shortens: no later run can reach best_size
            budget -= 1
            if budget < 0:
                best_size = 0
                break
            diagonal = j - i
            start = max(i, alo, blo - diagonal)
            size = min(i + length, ahi, bhi - diagonal) - start
            if size > best_size or (
                size == best_size and (start, start + diagonal) < (best_i, best_j)
            ):
                best_size, best_i, best_j = size, start, start + diagonal
        if best_size > 1:
            return difflib.Match(best_i, best_j, best_size)
        if budget >= 0:  # every run looked at: no two equal lines in a row in the gap
            return self._first_single_match(alo, ahi, blo, bhi)
        if not self._indexed:
            self._SequenceMatcher__chain_b()  # type: ignore[attr-defined]
            self._indexed = True
        return super().find_longest_match(alo, ahi, blo, bhi)

    def _first_single_match(self, alo: int, ahi: int, blo: int, bhi: int) -> difflib.Match:
        """difflib's answer for a gap with no run of two equal lines: the lowest old line that
        is among the gap's new lines, at its lowest place there; else an empty match."""
        a, first, repeats = self._old, self._first, self._repeats
        for i in range(alo, ahi):
            line = a[i]
            only = first.get(line)
            if only is None:
                continue
            places = repeats.get(line)
            if places is None:
                if blo <= only < bhi:
                    return difflib.Match(i, only, 1)
                continue
            at = bisect.bisect_left(places, blo)
            if at < len(places) and places[at] < bhi:
                return difflib.Match(i, places[at], 1)
        return difflib.Match(alo, blo, 0)


def _run_length(a: Sequence[str], b: Sequence[str], i: int, j: int) -> int:
    """How many lines from ``a[i]`` and ``b[j]`` on are equal, given that those two are.

    Galloping: slices of doubling length are compared (in C) while they are equal, then of
    halving length up to the first difference, so a run of n lines costs O(log n) steps of
    Python rather than n.
    """
    limit = min(len(a) - i, len(b) - j)
    length, step = 1, 1
    while length < limit:
        end = min(length + step, limit)
        if a[i + length : i + end] == b[j + length : j + end]:
            length = end
            step *= 2
        elif step > 1:
            step //= 2
        else:
            break
    return length


def git_lines(text: str) -> list[str]:
    """Split on "\\n" only, keeping the ends, as git does (a lone "\\r" is not a line break)."""
    parts = text.split("\n")
    lines = [part + "\n" for part in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


def quote_path(name: str) -> str:
    """Quote a path the way git does when it holds quotes, backslashes, controls or non-ASCII."""
    if not any(ch in _C_ESCAPES or ord(ch) < 0x20 or ord(ch) >= 0x7F for ch in name):
        return name
    out = []
    for ch in name:
        if ch in _C_ESCAPES:
            out.append(_C_ESCAPES[ch])
        elif ord(ch) < 0x20 or ord(ch) >= 0x7F:
            out.extend(f"\\{byte:03o}" for byte in ch.encode("utf-8", "surrogateescape"))
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def _range(start: int, count: int) -> str:
    """A hunk header range: 1-based start, count omitted when 1, start is the line before if 0."""
    if count == 0:
        return f"{start},0"
    if count == 1:
        return f"{start + 1}"
    return f"{start + 1},{count}"


def _emit(prefix: str, lines: Sequence[str], out: list[str]) -> None:
    for line in lines:
        out.append(prefix + line)
        if not line.endswith("\n"):
            out.append("\n" + NO_NEWLINE_MARKER)


def _groups(changes: Sequence[Opcode], context: int) -> list[list[Opcode]]:
    """Group changes whose context windows touch or overlap into one @@ block each."""
    groups: list[list[Opcode]] = []
    for change in changes:
        if groups and change[1] - groups[-1][-1][2] <= 2 * context:
            groups[-1].append(change)
        else:
            groups.append([change])
    return groups


def _hunk_blocks(
    old: list[str], new: list[str], changes: Sequence[Opcode], context: int
) -> list[str]:
    out: list[str] = []
    for group in _groups(changes, context):
        first, last = group[0], group[-1]
        before = min(context, first[1])
        after = min(context, len(old) - last[2])
        old_from, old_to = first[1] - before, last[2] + after
        new_from, new_to = first[3] - before, last[4] + after
        out.append(
            f"@@ -{_range(old_from, old_to - old_from)} +{_range(new_from, new_to - new_from)} @@\n"
        )
        position = old_from
        for _tag, i1, i2, j1, j2 in group:
            _emit(" ", old[position:i1], out)
            _emit("-", old[i1:i2], out)
            _emit("+", new[j1:j2], out)
            position = i2
        _emit(" ", old[position:old_to], out)
    return out


def unified_diff(path: str, old: str | None, new: str | None) -> str:
    """A git-style diff of one file (``None``: the file does not exist on that side).

    Added and deleted files carry ``new file mode``/``deleted file mode`` and ``/dev/null``;
    an added or deleted empty file is a header without hunks, as git writes it. Identical
    sides give the empty string.
    """
    if old == new:
        return ""
    name_a, name_b = quote_path(f"a/{path}"), quote_path(f"b/{path}")
    out = [f"diff --git {name_a} {name_b}\n"]
    if old is None:
        out.append("new file mode 100644\n")
    elif new is None:
        out.append("deleted file mode 100644\n")
    old_lines, new_lines = git_lines(old or ""), git_lines(new or "")
    if not old_lines and not new_lines:
        return "".join(out)
    out.append(f"--- {'/dev/null' if old is None else name_a}\n")
    out.append(f"+++ {'/dev/null' if new is None else name_b}\n")
    changes = text_changes(old or "", new or "")
    out.extend(_hunk_blocks(old_lines, new_lines, changes, CONTEXT_LINES))
    return "".join(out)


def render_patch(changes: Iterable[tuple[str, str | None, str | None]]) -> str:
    """The diffs of several (path, old, new) files, concatenated in the order given."""
    return "".join(unified_diff(path, old, new) for path, old, new in changes)
