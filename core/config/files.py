"""The config file: where it is, how it is read, and the error a bad one raises.

Apart from the models so that the commands that only glance at the config (``status``) start
without pydantic.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

CONFIG_NAME = "orchestrator.toml"

SandboxMode = Literal["auto", "bwrap", "none"]
"""Where checks run: bubblewrap when found (auto), bubblewrap or refuse (bwrap), unsandboxed (none)."""


class ConfigError(Exception):
    """A configuration file that cannot be used, with the file and key named."""


def read_toml(path: Path) -> dict[str, Any]:
    """The TOML document in ``path``; a file that cannot be read or parsed is a ConfigError."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot be read ({exc})") from None
    import tomllib  # only with a config file: a folder without one starts without it

    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML ({exc})") from None


def find_project_root(start: Path) -> Path:
    """The nearest folder at or above ``start`` holding orchestrator.toml, else ``start``."""
    start = start.resolve()
    for folder in (start, *start.parents):
        if (folder / CONFIG_NAME).is_file():
            return folder
    return start
