"""Reading the spec: the size is checked before the file is read."""

from __future__ import annotations

import tracemalloc
from pathlib import Path

import pytest

from orch_tui.core.domain.spec import MAX_SPEC_BYTES, SpecError, read_spec


def test_a_huge_spec_is_refused_without_reading_it_into_memory(tmp_path: Path) -> None:
    spec = tmp_path / "spec.md"
    with spec.open("wb") as handle:  # sparse: 300 MB on paper, nothing on disk
        handle.truncate(300_000_000)
    tracemalloc.start()
    try:
        with pytest.raises(SpecError, match="300,000,000 bytes; the limit is"):
            read_spec(spec)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 4 * MAX_SPEC_BYTES


def test_a_spec_at_the_limit_is_read(tmp_path: Path) -> None:
    spec = tmp_path / "spec.md"
    spec.write_text("x" * MAX_SPEC_BYTES, encoding="utf-8")
    assert len(read_spec(spec).text) == MAX_SPEC_BYTES
