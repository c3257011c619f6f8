"""The two settings ``status`` needs, read without the config models.

Loading the models loads pydantic, which takes longer than everything else ``status`` does
together. A glance reads ``paths.workspace`` and ``checks.sandbox``, and names an unknown key
in those two tables as the full read does (a misspelt key there would make ``status`` describe
the wrong workspace or sandbox); the values of the other keys are checked by every command that
acts on them (a run, ``doctor``, ``verify``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, get_args

from orch_tui.core.config.files import ConfigError, SandboxMode, read_toml
from orch_tui.core.config.plain import SCHEMA
from orch_tui.core.util.records import record

TABLE_KEYS = {name: frozenset(SCHEMA[name]) for name in ("paths", "checks")}
"""The keys of the tables a glance reads: the models' own (a test keeps them equal)."""


@record(frozen=True)
class Glance:
    workspace: str = ""
    """``paths.workspace``: empty means ``workspace/``."""
    sandbox: SandboxMode = "auto"


def glance_config(path: Path | None) -> Glance:
    """``paths.workspace`` and ``checks.sandbox`` from ``path``; a missing file means defaults."""
    if path is None or not path.exists():
        return Glance()
    data = read_toml(path)
    paths, checks = _table(data, "paths", path), _table(data, "checks", path)
    unknown = [
        f"unknown key '{name}.{key}'"
        for name, table in (("checks", checks), ("paths", paths))
        for key in sorted(set(table) - TABLE_KEYS[name])
    ]
    if unknown:
        raise ConfigError(f"{path}: " + "; ".join(unknown))
    workspace = paths.get("workspace", "")
    if not isinstance(workspace, str):
        raise ConfigError(f"{path}: 'paths.workspace': Input should be a valid string")
    sandbox = checks.get("sandbox", "auto")
    if sandbox not in get_args(SandboxMode):
        *others, last = (repr(mode) for mode in get_args(SandboxMode))
        choices = f"{', '.join(others)} or {last}"
        raise ConfigError(f"{path}: 'checks.sandbox': Input should be {choices}, not {sandbox!r}")
    return Glance(workspace=workspace, sandbox=sandbox)


def _table(data: dict[str, Any], name: str, path: Path) -> dict[str, Any]:
    table = data.get(name, {})
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: '{name}': Input should be a valid dictionary")
    return table
