"""The config read without pydantic (a run's and ``doctor``'s fast path) is never looser than
the models, and builds what they build."""

from __future__ import annotations

import tomllib
from dataclasses import asdict, fields
from typing import Any

import pytest

from orch_tui.core.config.checked import validated
from orch_tui.core.config.files import ConfigError
from orch_tui.core.config.init_file import default_config_text
from orch_tui.core.config.models import Config, from_plain, parse_config
from orch_tui.core.config.plain import SCHEMA, plain_config, plainly_valid

PROBES: list[Any] = [
    True, False, 0, 1, -1, 7, 8, 63, 64, 255, 256, 999, 1000, 2**70,
    0.0, 0.5, -0.5, 3.0, 1e300, float("nan"), float("inf"), float("-inf"),
    "", " ", "x", "anthropic", "scripted", "claude-code", "fail", "ask", "split", "unified",
    "auto", "bwrap", "none", "docker", "vscode-light", "high-contrast",
    [], [""], [" ", "x"], ["x"], ["pytest", "-q"], ["OPENAI_API_KEY"], ["MY_API_KEY"], [1], [["x"]],
    {}, {"review.accept_hunk": "a"}, {"a": 1}, {"a": {"b": "c"}},
    [{"name": "lint", "command": ["ruff", "check"]}],
    [{"name": "lint", "command": []}],
    [{"name": "lint", "command": [" "]}],
    [{"name": "lint", "command": ["ruff"], "cwd": "x"}],
    [{"name": 1, "command": ["ruff"]}],
    [{"command": ["ruff"]}],
    ["ruff"],
]  # fmt: skip
"""Values of every TOML type, at and beside every bound the models set."""

DOCTOR_READS = (
    ("checks", "test_command"),
    ("checks", "python"),
    ("checks", "sandbox"),
    ("model", "provider"),
    ("model", "name"),
    ("model", "base_url"),
)


def _accepted(data: dict[str, Any]) -> Config | None:
    """What pydantic makes of ``data`` (None: it refuses it); a plainly valid ``data`` is built
    without it into the very same config, down to each value's type (an int made float)."""
    try:
        config = validated(data, "orchestrator.toml")
    except ConfigError:
        return None
    if plainly_valid(data):
        built = from_plain(data)
        assert repr(built) == repr(config) and built == config, data
        assert parse_config(data, "orchestrator.toml") == config
    return config


def _same_reading(data: dict[str, Any], config: Config) -> None:
    plain = plain_config(data)
    assert plain is not None
    for table, key in DOCTOR_READS:
        assert getattr(getattr(plain, table), key) == getattr(getattr(config, table), key)
    extra = [(check.name, check.command) for check in config.checks.extra]
    assert [(check.name, check.command) for check in plain.checks.extra] == extra
    assert plain.workspace == config.paths.workspace


def test_the_schema_names_every_table_and_key_of_the_models() -> None:
    tables = {field.name for field in fields(Config) if field.name != "prices"}
    assert set(SCHEMA) == tables
    for name in tables:
        section = getattr(Config(), name)
        assert set(SCHEMA[name]) == {field.name for field in fields(section)}, name


@pytest.mark.parametrize("table,key", [(t, k) for t, keys in SCHEMA.items() for k in keys])
def test_a_value_taken_as_plainly_valid_is_taken_by_the_models_unchanged(
    table: str, key: str
) -> None:
    """Every probe the plain read takes, the models take, and read the same; the key's default
    is among the plainly valid values, so a config written out in full stays on the fast path."""
    taken = []
    for value in PROBES:
        data = {table: {key: value}}
        if not plainly_valid(data):
            continue
        config = _accepted(data)
        assert config is not None, (table, key, value)
        read = getattr(getattr(config, table), key)
        if isinstance(read, list) and read and not isinstance(read[0], str):
            read = [asdict(item) for item in read]
        assert read == value, (table, key, value)
        _same_reading(data, config)
        taken.append(value)
    default = asdict(Config())[table][key]
    if default is not None:  # TOML has no null: an unset key is the only way to say None
        assert plainly_valid({table: {key: default}}), (table, key, default)
    assert taken or default is None, (table, key)


@pytest.mark.parametrize(
    "data",
    [
        {"loop": {"max_retrys": 3}},
        {"model": {"max_tokens": 3.0}},  # the models convert it: they decide
        {"model": {"max_tokens": True}},
        {"checks": {"timeout_seconds": float("nan")}},
        {"checks": {"env_allow": ["OPENAI_API_KEY"]}},
        {"checks": 1},
        {"workspace": {}},
        {"prices": {"m": {"input": 1, "output": 1, "cache_write": 1}}},
        {"prices": {"m": {"input": -1, "output": 1, "cache_write": 1, "cache_read": 1}}},
    ],
)
def test_anything_unusual_is_left_to_the_models(data: dict[str, Any]) -> None:
    assert plain_config(data) is None


def test_prices_and_a_full_default_config_stay_on_the_fast_path() -> None:
    price = {"input": 1, "output": 2.5, "cache_write": 0, "cache_read": 0.1}
    data = {"prices": {"my-model": price}, "checks": {"python": "/usr/bin/python3"}}
    config = _accepted(data)
    assert config is not None and config.prices["my-model"].output == 2.5
    _same_reading(data, config)

    written = tomllib.loads(default_config_text())  # what `orch-tui init` writes
    assert plainly_valid(written)
    _same_reading(written, parse_config(written, "orchestrator.toml"))
    assert _accepted(written) == Config()
    _same_reading({}, Config())
