"""The index file's signature column packed: three numbers a run in one base64 string.

A run's signature (``size:mtime:folder mtime``, see :mod:`index`) is looked at only by the
check after the list, and beyond 10,000 runs only for the few runs it does not trust. Kept
as 100,000 strings it was a fifth of the index file's parse and 9 MB; packed, it is one
string read at once and an array of 64-bit numbers (little-endian, whatever the machine),
and a run's signature is written out when asked for.
"""

from __future__ import annotations

import base64
import sys
from array import array
from collections.abc import Sequence
from typing import Any, overload


class PackedSignatures(Sequence[str]):
    """Each run's signature, by its position in the index, from the packed numbers."""

    def __init__(self, numbers: array[int]) -> None:
        self._numbers = numbers

    def __len__(self) -> int:
        return len(self._numbers) // 3

    @overload
    def __getitem__(self, number: int) -> str: ...

    @overload
    def __getitem__(self, number: slice) -> list[str]: ...

    def __getitem__(self, number: int | slice) -> str | list[str]:
        if isinstance(number, slice):
            return [self[each] for each in range(len(self))[number]]
        if not -len(self) <= number < len(self):
            raise IndexError(number)
        start = 3 * (number % len(self))
        size, mtime, folder_mtime = self._numbers[start : start + 3]
        return f"{size}:{mtime}:{folder_mtime}"


def packed(signatures: list[str]) -> str | list[str]:
    """``signatures`` as one base64 string; as they are if any is not three whole numbers."""
    try:
        numbers = array("q", map(int, ":".join(signatures).split(":")))
    except (ValueError, OverflowError):
        return signatures
    if len(numbers) != 3 * len(signatures):
        return signatures
    if sys.byteorder == "big":
        numbers.byteswap()
    return base64.b64encode(numbers.tobytes()).decode("ascii")


def unpacked(column: Any, count: int) -> Sequence[str]:
    """The column as :func:`packed` wrote it, for ``count`` runs. ValueError or TypeError when
    malformed."""
    if type(column) is list:
        if len(column) != count:
            raise ValueError("a signature per run")
        return column
    if type(column) is not str:
        raise TypeError("signatures are a list or a packed string")
    numbers = array("q")
    numbers.frombytes(base64.b64decode(column, validate=True))
    if len(numbers) != 3 * count:
        raise ValueError("three numbers per run")
    if sys.byteorder == "big":
        numbers.byteswap()
    return PackedSignatures(numbers)
