"""What the filter finds a run by besides its spec text: its id and spec name, in lowercase,
kept as two lists of strings that exist already (see :class:`RunLabels`)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from itertools import compress, repeat
from operator import contains, or_
from typing import overload

_SEPARATOR = "\n"


class RunLabels(Sequence[str]):
    """Each run's label, its id and spec name in lowercase (``"<id>\\n<spec name>"`` when
    asked for one), as two lists: the ids themselves when they are lowercase already (as
    generated ids are), and each distinct spec name's lowercase once, shared by its runs.
    No string is made per run: a label of its own per run was 9 MB and 30 ms of CPU at
    100,000 runs. A word (no whitespace) is in a label when it is in the id or the name."""

    def __init__(self, ids: list[str], names: list[str]) -> None:
        self.ids = ids
        self.names = names
        self._lookup: tuple[str, set[str]] | None = None

    @classmethod
    def of(cls, ids: list[str], names: list[str]) -> RunLabels:
        """The labels of runs with these ids and spec names."""
        joined = "".join(ids)
        lower_ids = ids if joined == joined.lower() else list(map(str.lower, ids))
        lower = {name: name.lower() for name in set(names)}
        return cls(lower_ids, list(map(lower.__getitem__, names)))

    def __len__(self) -> int:
        return len(self.ids)

    @overload
    def __getitem__(self, row: int) -> str: ...

    @overload
    def __getitem__(self, row: slice) -> list[str]: ...

    def __getitem__(self, row: int | slice) -> str | list[str]:
        if isinstance(row, slice):
            return [f"{i}\n{n}" for i, n in zip(self.ids[row], self.names[row], strict=True)]
        return f"{self.ids[row]}\n{self.names[row]}"

    def rows_with(self, word: str, rows: Iterable[int] | None = None) -> list[int]:
        """The rows among ``rows`` (None: every row) whose label holds ``word``."""
        ids, names = self.ids, self.names
        if rows is None:  # C-level passes over both lists, none when no label holds it
            found = self.holding(word)
            return [] if found is None else list(compress(range(len(ids)), found))
        return [row for row in rows if word in ids[row] or word in names[row]]

    def holding(self, word: str, rows: Sequence[int] | None = None) -> Iterator[bool] | None:
        """Whether each of ``rows`` (None: every row) holds ``word``, as C-level passes; None
        when no label does, found without a look at any run: a word with a character that no
        id has (a quick scan each) is in no id, else every id joined into one string is
        searched once; each distinct spec name is searched once. A word in no label is the
        common case (a word of a spec's text): the filter then looks at the runs' spec
        numbers alone."""
        ids_joined, distinct_names = self.prepare()
        # A word spanning two joined ids only costs the passes below, which find nothing.
        in_ids = all(map(contains, repeat(ids_joined), word)) and word in ids_joined
        if not in_ids and not any(map(contains, distinct_names, repeat(word))):
            return None
        ids = self.ids if rows is None else map(self.ids.__getitem__, rows)
        names = self.names if rows is None else map(self.names.__getitem__, rows)
        return map(or_, map(contains, ids, repeat(word)), map(contains, names, repeat(word)))

    def prepare(self) -> tuple[str, set[str]]:
        """Every id joined into one string and the distinct spec names, made once (about a
        millisecond at 100,000 runs; the search lays them out with its texts)."""
        if self._lookup is None:  # one assignment: a thread never sees half of it
            self._lookup = (_SEPARATOR.join(self.ids), set(self.names))
        return self._lookup

    def reordered(self, rows: Sequence[int]) -> RunLabels:
        """The labels of ``rows``, in that order."""
        return RunLabels(
            list(map(self.ids.__getitem__, rows)), list(map(self.names.__getitem__, rows))
        )
