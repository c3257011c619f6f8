"""The prompt templates shipped in ``core/attempt/prompts/`` (package data).

A ``prompts/`` folder beside ``orchestrator.toml`` overrides them file by file: a
``prompts/patch.md`` there replaces the packaged ``patch.md`` and uses the same ``$names``
(a name it does not know stays as written).
"""

from __future__ import annotations

from functools import cache
from importlib import resources
from pathlib import Path
from string import Template


@cache
def template(name: str) -> Template:
    text = (
        resources.files("orch_tui.core.attempt")
        .joinpath("prompts", f"{name}.md")
        .read_text(encoding="utf-8")
    )
    return Template(text)


def render(name: str, folder: Path | None = None, **values: object) -> str:
    """Template ``name`` filled in: ``folder/<name>.md`` when it exists, else the packaged one."""
    texts = {key: str(value) for key, value in values.items()}
    override = folder / f"{name}.md" if folder is not None else None
    if override is not None and override.is_file():
        return Template(override.read_text(encoding="utf-8")).safe_substitute(texts)
    return template(name).substitute(texts)
