"""The prompt templates shipped in ``core/prompts/`` (package data)."""

from __future__ import annotations

from functools import cache
from importlib import resources
from string import Template


@cache
def template(name: str) -> Template:
    text = resources.files("core").joinpath("prompts", f"{name}.md").read_text(encoding="utf-8")
    return Template(text)


def render(name: str, **values: object) -> str:
    return template(name).substitute({key: str(value) for key, value in values.items()})
