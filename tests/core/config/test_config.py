"""orchestrator.toml: typed, documented, and loud about mistakes."""

from __future__ import annotations

import tomllib
from dataclasses import fields, is_dataclass
from pathlib import Path

import pytest

from orch_tui.core.config.files import ConfigError, find_project_root
from orch_tui.core.config.glance import TABLE_KEYS, Glance, glance_config
from orch_tui.core.config.init_file import (
    default_config_text,
    field_docstrings,
    write_default_config,
)
from orch_tui.core.config.models import (
    ChecksConfig,
    Config,
    PathsConfig,
    clamp_retries,
    load_config,
    parse_config,
)


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "orchestrator.toml"
    path.write_text(text)
    return path


def test_a_missing_file_means_every_default(tmp_path: Path) -> None:
    assert load_config(tmp_path / "orchestrator.toml") == Config()


def test_values_are_read_into_typed_models(tmp_path: Path) -> None:
    config = load_config(
        write(
            tmp_path,
            '[model]\nname = "claude-opus-4-1"\n[loop]\nmax_retries = 7\n[ui]\ndiff_layout = "unified"\n',
        )
    )
    assert config.model.name == "claude-opus-4-1"
    assert config.loop.max_retries == 7
    assert config.ui.diff_layout == "unified"


def test_an_unknown_key_names_the_file_and_the_key(tmp_path: Path) -> None:
    path = write(tmp_path, "[loop]\nmax_retrys = 3\n")
    with pytest.raises(ConfigError) as error:
        load_config(path)
    assert str(path) in str(error.value) and "unknown key 'loop.max_retrys'" in str(error.value)


def test_a_wrong_type_names_the_file_and_the_key(tmp_path: Path) -> None:
    path = write(tmp_path, '[checks]\ntimeout_seconds = "soon"\n')
    with pytest.raises(ConfigError, match=r"'checks.timeout_seconds'"):
        load_config(path)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            '[model]\nprovider = "gemini"\n',
            "'model.provider': Input should be 'anthropic', 'openai', 'claude-code' or 'scripted', "
            "not 'gemini'",
        ),
        (
            '[ui]\ndiff_layout = "sideways"\n',
            "'ui.diff_layout': Input should be 'split' or 'unified', not 'sideways'",
        ),
        (
            '[ui]\ntheme = "solarized"\n',
            "'ui.theme': Input should be 'vscode-dark', 'vscode-light' or 'high-contrast', "
            "not 'solarized'",
        ),
    ],
)
def test_a_value_outside_a_closed_set_names_the_file_the_key_and_the_choices(
    tmp_path: Path, text: str, message: str
) -> None:
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as error:
        load_config(path)
    assert str(error.value) == f"{path}: {message}"


def test_invalid_toml_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_config(write(tmp_path, "[loop\n"))


def test_a_secret_cannot_be_allowed_into_the_checks(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="ANTHROPIC_API_KEY"):
        load_config(write(tmp_path, '[checks]\nenv_allow = ["ANTHROPIC_API_KEY"]\n'))


def test_every_field_has_a_docstring() -> None:
    def walk(section: object) -> list[str]:
        missing = []
        docs = field_docstrings(type(section))
        for field in fields(section):  # type: ignore[arg-type]
            if not docs.get(field.name):
                missing.append(f"{type(section).__name__}.{field.name}")
            value = getattr(section, field.name)
            if is_dataclass(value):
                missing += walk(value)
        return missing

    assert walk(Config()) == []


def test_the_default_file_is_commented_and_parses_back_to_the_defaults(tmp_path: Path) -> None:
    text = default_config_text()
    assert "# Patch attempts after the first generation" in text
    assert parse_config(tomllib.loads(text), "orchestrator.toml") == Config()
    path = tmp_path / "orchestrator.toml"
    write_default_config(path)
    assert load_config(path) == Config()
    with pytest.raises(ConfigError, match="already exists"):
        write_default_config(path)


@pytest.mark.parametrize(
    ("given", "expected", "warns"), [(0, 1, True), (5, 5, False), (99, 50, True)]
)
def test_max_retries_is_clamped_with_a_warning(given: int, expected: int, warns: bool) -> None:
    value, warning = clamp_retries(given)
    assert value == expected and (warning is not None) == warns


def test_the_project_root_is_the_nearest_folder_with_a_config(tmp_path: Path) -> None:
    (tmp_path / "orchestrator.toml").write_text("")
    nested = tmp_path / "a" / "b"
    nested.mkdir(parents=True)
    assert find_project_root(nested) == tmp_path.resolve()
    assert find_project_root(Path("/")) == Path("/")


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("[loop]\nmax_cost_usd = nan\n", "loop.max_cost_usd"),
        ("[loop]\nmax_cost_usd = inf\n", "loop.max_cost_usd"),
        ("[loop]\nmax_cost_usd = -1.0\n", "loop.max_cost_usd"),
        ("[model]\ntimeout_seconds = inf\n", "model.timeout_seconds"),
        ("[checks]\ntimeout_seconds = nan\n", "checks.timeout_seconds"),
        ("[checks]\ntest_command = []\n", "checks.test_command"),
        ('[checks]\ntest_command = ["", "x"]\n', "checks.test_command"),
        ('[[checks.extra]]\nname = "lint"\ncommand = []\n', "checks.extra.0.command"),
        (
            "[prices.m]\ninput = nan\noutput = 1.0\ncache_write = 1.0\ncache_read = 1.0\n",
            "prices.m.input",
        ),
        (
            "[prices.m]\ninput = -1.0\noutput = 1.0\ncache_write = 1.0\ncache_read = 1.0\n",
            "prices.m.input",
        ),
    ],
)
def test_nan_infinite_negative_and_empty_values_are_refused_naming_the_key(
    tmp_path: Path, text: str, key: str
) -> None:
    path = write(tmp_path, text)
    with pytest.raises(ConfigError, match=f"'{key}'"):
        load_config(path)


def test_a_glance_knows_every_key_of_its_tables_the_models_know() -> None:
    """``status`` reads ``[paths]`` and ``[checks]`` without the models; a key added to one and
    not the other would be refused by ``status`` alone, or let through by it."""
    assert TABLE_KEYS == {
        "paths": {field.name for field in fields(PathsConfig)},
        "checks": {field.name for field in fields(ChecksConfig)},
    }


@pytest.mark.parametrize(
    "toml",
    [
        "[paths]\nworkspace = 3\n",
        '[paths]\nworkspce = "x"\n',
        "[checks]\nsandboxx = 'none'\n",
        '[checks]\nsandbox = "docker"\n',
        "paths = 1\n",
    ],
)
def test_a_glance_refuses_what_the_full_read_refuses_in_the_same_words(
    tmp_path: Path, toml: str
) -> None:
    config = tmp_path / "orchestrator.toml"
    config.write_text(toml)
    with pytest.raises(ConfigError) as full:
        load_config(config)
    with pytest.raises(ConfigError) as glanced:
        glance_config(config)
    assert str(glanced.value) in str(full.value)


def test_a_glance_reads_the_workspace_and_sandbox_the_full_read_reads(tmp_path: Path) -> None:
    config = tmp_path / "orchestrator.toml"
    config.write_text('[paths]\nworkspace = "../repo"\n[checks]\nsandbox = "none"\n')
    full = load_config(config)
    assert glance_config(config) == Glance(workspace=full.paths.workspace, sandbox="none")
    assert glance_config(tmp_path / "missing.toml") == Glance()
