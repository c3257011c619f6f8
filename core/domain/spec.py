"""Reading the spec a run is built from."""

from __future__ import annotations

from pathlib import Path

from orch_tui.core.datafiles.inputs import DataFile, with_data
from orch_tui.core.util.digests import sha256_hex
from orch_tui.core.util.records import record

MAX_SPEC_BYTES = 200_000


class SpecError(Exception):
    """A spec that cannot be used, with the reason for a person."""


def spec_digest(text: str) -> str:
    """What ties a run to its spec (``state.json``'s ``spec_hash``, the history index's key)."""
    return sha256_hex(text.encode("utf-8"))


@record(frozen=True)
class Spec:
    path: Path
    text: str
    data: tuple[DataFile, ...] = ()
    """The data files given with it (``--data``): described in the prompt, part of the digest."""

    @property
    def digest(self) -> str:
        return with_data(spec_digest(self.text), self.data)


def read_spec(path: Path) -> Spec:
    """Read and check a spec: it must exist, be UTF-8 text, non-empty and not huge."""
    if not path.exists():
        raise SpecError(f"spec not found: {path}")
    if not path.is_file():
        raise SpecError(f"spec is not a file: {path}")
    # The size first, then at most one byte over the limit: a huge file is never read whole,
    # and one that grew after the stat is still caught.
    size = path.stat().st_size
    if size <= MAX_SPEC_BYTES:
        with path.open("rb") as handle:
            data = handle.read(MAX_SPEC_BYTES + 1)
        size = max(size, len(data))
    if size > MAX_SPEC_BYTES:
        raise SpecError(
            f"spec is {size:,} bytes; the limit is {MAX_SPEC_BYTES:,} (split it or trim it)"
        )
    if b"\0" in data:
        raise SpecError(f"spec looks binary (it has NUL bytes): {path}")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SpecError(
            f"spec is not UTF-8 text ({exc.reason} at byte {exc.start}): {path}"
        ) from None
    if not text.strip():
        raise SpecError(f"spec is empty: {path}")
    return Spec(path=path, text=text)


def spec_diff(old: str, new: str, name: str = "spec.md") -> str:
    """The lines added, removed and changed between two texts of a spec, as a unified diff."""
    import difflib  # only a reopened run's changed spec: not every run's start

    lines = difflib.unified_diff(
        old.splitlines(keepends=True),
        new.splitlines(keepends=True),
        fromfile=f"a/{name}",
        tofile=f"b/{name}",
    )
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines)
