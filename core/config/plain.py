"""The config read without pydantic when every value in it is plainly valid.

Importing pydantic and building the config models costs more than everything else ``doctor``
does together. Most configs hold only keys the models know with values of exactly their type and
in range; for those, :func:`plain_config` gives what the models would give (the keys ``doctor``
reads, defaults filled in). Anything else (an unknown key, a wrong type, a value out of range,
or one the models would convert, such as ``3.0`` for an integer) gives None, and the caller
reads the file with the models, which refuse it naming every bad key or convert it as a run
would. So this check may only ever be stricter than the models, never looser: a test feeds both
the same values, key by key.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any, NamedTuple, get_args

from orch_tui.core.config.files import SandboxMode
from orch_tui.core.config.theme_names import ThemeName

Valid = Callable[[Any], bool]

# pytest with a JUnit report. ``--rootdir`` keeps node ids relative to the workspace even when a
# parent folder holds a pytest config; ``xunit1`` adds the test's file to the report; no cache
# folder is written into the workspace; ``-rfEX`` keeps pytest's summary of failures and errors
# and adds the xpassed tests, which the JUnit report writes as plain passes.
DEFAULT_TEST_COMMAND: tuple[str, ...] = (
    "{python}",
    "-m",
    "pytest",
    "-rfEX",
    "-p",
    "no:cacheprovider",
    "--rootdir={workspace}",
    "-o",
    "junit_family=xunit1",
    "--junitxml={junit}",
)

_SECRET_NAME = re.compile(r"^ANTHROPIC_|API_?KEY", re.IGNORECASE)


def is_secret_env_name(name: str) -> bool:
    """Whether an environment variable may hold an API key; such a name is never passed on.

    Config validation refuses such a name early, with the file and the key; the check runner
    refuses it again when it builds a check's environment.
    """
    return bool(_SECRET_NAME.search(name))


def _text(value: Any) -> bool:
    return type(value) is str


def _flag(value: Any) -> bool:
    return type(value) is bool


def _whole(low: int | None = None) -> Valid:
    return lambda value: type(value) is int and (low is None or value >= low)


def _number(at_least: float | None = None, above: float | None = None) -> Valid:
    def valid(value: Any) -> bool:
        if type(value) not in (int, float) or not math.isfinite(value):
            return False
        return (at_least is None or value >= at_least) and (above is None or value > above)

    return valid


def _one_of(*choices: str) -> Valid:
    return lambda value: type(value) is str and value in choices


def _texts(value: Any) -> bool:
    return type(value) is list and all(type(item) is str for item in value)


def _command(value: Any) -> bool:
    """A command's first word is the program: not empty, nor blank."""
    return _texts(value) and bool(value) and bool(value[0].strip())


def _commands(value: Any) -> bool:
    return type(value) is list and all(
        type(item) is dict
        and set(item) == {"name", "command"}
        and _text(item["name"])
        and _command(item["command"])
        for item in value
    )


def _allowed_names(value: Any) -> bool:
    return _texts(value) and not any(is_secret_env_name(name) for name in value)


def _keys(value: Any) -> bool:
    return type(value) is dict and all(type(item) is str for item in value.values())


_PRICE = _number(at_least=0)


def _prices(value: Any) -> bool:
    return type(value) is dict and all(
        type(price) is dict
        and set(price) == {"input", "output", "cache_write", "cache_read"}
        and all(_PRICE(amount) for amount in price.values())
        for price in value.values()
    )


SCHEMA: dict[str, dict[str, Valid]] = {
    "model": {
        "provider": _one_of("anthropic", "openai", "claude-code", "scripted"),
        "name": _text,
        "base_url": _text,
        "max_tokens": _whole(256),
        "max_tool_turns": _whole(1),
        "max_retries_sdk": _whole(0),
        "stream_retries": _whole(0),
        "timeout_seconds": _number(above=0),
        "escalate_to": _text,
        "judge": _text,
        "verifier": _text,
    },
    "loop": {
        "max_retries": _whole(),
        "max_cost_usd": _number(at_least=0),
        "plan": _flag,
        "on_stuck": _one_of("fail", "ask"),
        "escalate_after": _whole(1),
    },
    "checks": {
        "test_command": _command,
        "extra": _commands,
        "final": _commands,
        "timeout_seconds": _number(above=0),
        "max_output_bytes": _whole(1000),
        "python": _text,
        "env_allow": _allowed_names,
        "sandbox": _one_of(*get_args(SandboxMode)),
        "allow_all_skipped": _flag,
        "tmp_size_mb": _whole(1),
        "max_processes": _whole(8),
        "max_memory_mb": _whole(64),
    },
    "feedback": {
        "output_chars": _whole(500),
        "max_failures": _whole(1),
        "traceback_lines": _whole(1),
        "file_chars": _whole(1000),
    },
    "paths": {"workspace": _text},
    "safety": {
        "protected_paths": _texts,
        "allow_test_edits": _flag,
        "protect_existing_tests": _flag,
    },
    "spec": {"data": _texts},
    "ui": {
        "theme": _one_of(*get_args(ThemeName)),
        "diff_layout": _one_of("split", "unified"),
        "keymap": _keys,
    },
    "notify": {"bell": _flag, "desktop": _flag, "command": _texts},
}
"""Every table of ``orchestrator.toml`` and what each key accepts without conversion (besides
``prices``); a test keeps the names equal to the models' and the checks no looser than theirs."""


class PlainCommand(NamedTuple):
    name: str
    command: list[str]


class PlainChecks(NamedTuple):
    """The ``[checks]`` keys the local checks read."""

    test_command: list[str]
    extra: list[PlainCommand]
    final: list[PlainCommand]
    python: str = ""
    sandbox: SandboxMode = "auto"


class PlainModel:
    """The ``[model]`` keys ``doctor`` reads; ``--provider`` and ``--model`` replace them."""

    __slots__ = ("provider", "name", "base_url")

    def __init__(
        self,
        provider: str = "anthropic",
        name: str = "claude-sonnet-5",
        base_url: str | None = None,
    ) -> None:
        self.provider, self.name, self.base_url = provider, name, base_url


class PlainConfig(NamedTuple):
    """What ``doctor`` reads of a config, when all of it is plainly valid.

    Tuples and a slotted class rather than dataclasses: making a dataclass costs about a
    millisecond, and ``status`` imports this module for :data:`SCHEMA`'s names."""

    checks: PlainChecks
    model: PlainModel
    workspace: str = ""


def _plain_commands(items: list[dict[str, Any]]) -> list[PlainCommand]:
    return [PlainCommand(item["name"], item["command"]) for item in items]


_MODEL_KEYS = ("provider", "name", "base_url")


def plainly_valid(data: dict[str, Any]) -> bool:
    """Whether the models would take ``data`` as it is: every key known, every value of its
    exact type and in range."""
    for name, table in data.items():
        if name == "prices":
            if not _prices(table):
                return False
            continue
        keys = SCHEMA.get(name)
        if keys is None or type(table) is not dict:
            return False
        if not all(key in keys and keys[key](value) for key, value in table.items()):
            return False
    return True


def plain_config(data: dict[str, Any]) -> PlainConfig | None:
    """What ``doctor`` reads of ``data``, or None when the models must decide."""
    if not plainly_valid(data):
        return None
    checks, model = data.get("checks", {}), data.get("model", {})
    plain = PlainChecks(
        test_command=checks.get("test_command", list(DEFAULT_TEST_COMMAND)),
        extra=_plain_commands(checks.get("extra", [])),
        final=_plain_commands(checks.get("final", [])),
        python=checks.get("python", ""),
        sandbox=checks.get("sandbox", "auto"),
    )
    return PlainConfig(
        checks=plain,
        model=PlainModel(**{key: model[key] for key in _MODEL_KEYS if key in model}),
        workspace=data.get("paths", {}).get("workspace", ""),
    )
