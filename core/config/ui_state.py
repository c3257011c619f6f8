"""The person's UI choices (theme, diff layout), remembered in a file of orch-tui's own.

``$XDG_STATE_HOME/orch-tui/ui.json`` (``~/.local/state/orch-tui/ui.json`` by default). The
person's ``orchestrator.toml`` is never rewritten: its comments and layout are theirs. A choice
saved here wins over the config's ``[ui]`` default; a damaged file is ignored.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from orch_tui.core.util.atomic import write_json_atomic

UI_KEYS = ("theme", "diff_layout")


def ui_state_path() -> Path:
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "orch-tui" / "ui.json"


def load_ui_state(path: Path | None = None) -> dict[str, str]:
    """The saved choices; an empty dict when there are none or the file cannot be read."""
    try:
        data = json.loads((path or ui_state_path()).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {key: value for key in UI_KEYS if isinstance(value := data.get(key), str)}


def save_ui_choice(key: str, value: str, path: Path | None = None) -> None:
    """Remember one choice (OSError when the state folder cannot be written).

    Atomic but not fsynced: it is written on the UI thread as the key (``v``) is handled, and
    a preference lost to a power cut costs nothing, whereas an fsync delays the frame.
    """
    path = path or ui_state_path()
    write_json_atomic(path, {**load_ui_state(path), key: value}, durable=False)
