"""Keys and base URLs from a ``.env`` file beside ``orchestrator.toml``.

The values are read with python-dotenv into a mapping the provider factory reads; they are
never put into ``os.environ``, so no key from ``.env`` can reach a check's environment (checks
copy allowlisted variables from ``os.environ`` only). The process environment wins over the file.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from orch_tui.core.config.files import ConfigError

DOTENV_NAME = ".env"


def provider_env(root: Path, environ: Mapping[str, str] = os.environ) -> dict[str, str]:
    """``root/.env`` overlaid with ``environ``; a missing file means ``environ`` alone."""
    path = root / DOTENV_NAME
    if not path.is_file():
        return dict(environ)
    from dotenv import dotenv_values  # only when there is a file: a short command's time

    try:
        values = dotenv_values(path, interpolate=False)
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot be read ({exc})") from None
    from_file = {name: value for name, value in values.items() if value is not None}
    return {**from_file, **environ}
