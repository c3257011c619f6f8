"""The time stamp of events and state files."""

from __future__ import annotations

from datetime import UTC, datetime


def utc_now() -> str:
    """The time events and state files are stamped with: ISO 8601, UTC, milliseconds."""
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
