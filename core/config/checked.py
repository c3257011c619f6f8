"""A config validated by pydantic: what the plain read does not vouch for.

A value of another type that pydantic converts (``3.0`` for an integer), and every mistake,
worded with the file and each bad key. Pydantic and the ``TypeAdapter`` over the config's
dataclasses are loaded and built here, on the first config that needs them.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter, ValidationError

from orch_tui.core.config.files import ConfigError
from orch_tui.core.config.models import Config

_UNKNOWN = ("extra_forbidden", "unexpected_keyword_argument")
"""A key no field has: a model's word for it, and a dataclass's."""


@cache
def config_adapter() -> TypeAdapter[Config]:
    return TypeAdapter(Config)


def _key_of(loc: tuple[Any, ...]) -> str:
    return ".".join(str(part) for part in loc)


def _problem(err: Any) -> str:
    key = _key_of(err["loc"])
    if err["type"] in _UNKNOWN:
        return f"unknown key '{key}'"
    if err["type"] == "literal_error":
        return f"'{key}': {err['msg']}, not {err['input']!r}"
    if err["type"] == "value_error":  # our own checks: their sentence alone
        return f"'{key}': {err['ctx']['error']}"
    if err["type"] == "dataclass_type":  # in the words the models used for a table
        return (
            f"'{key}': Input should be a valid dictionary or instance of {err['ctx']['class_name']}"
        )
    return f"'{key}': {err['msg']}"


def validated(data: dict[str, Any], source: Path | str) -> Config:
    """``data`` validated and converted by pydantic; a ConfigError naming every bad key."""
    try:
        return config_adapter().validate_python(data)
    except ValidationError as exc:
        problems = [_problem(err) for err in exc.errors()]
        raise ConfigError(f"{source}: " + "; ".join(problems)) from None
