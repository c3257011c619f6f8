"""Where the config comes from: any file --config names, the repository's own file, and prices."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from orch_tui.core.config.files import ConfigError
from orch_tui.core.config.init_file import write_default_config
from orch_tui.core.config.models import Config, load_config, parse_config
from orch_tui.core.config.paths import ProjectPaths

ROOT = Path(__file__).resolve().parents[3]


def test_a_config_file_of_any_name_is_the_one_read(tmp_path: Path) -> None:
    custom = tmp_path / "fast.toml"
    custom.write_text('[loop]\nmax_retries = 7\n[model]\nname = "claude-haiku-4-5"\n')
    (tmp_path / "orchestrator.toml").write_text("[loop]\nmax_retries = 2\n")

    paths = ProjectPaths.locate(custom)
    config = load_config(paths.config)

    assert paths.config == custom.resolve()
    assert paths.root == tmp_path.resolve()
    assert (config.loop.max_retries, config.model.name) == (7, "claude-haiku-4-5")


def test_a_misspelt_key_in_a_named_config_file_is_an_error_naming_both(tmp_path: Path) -> None:
    custom = tmp_path / "team.toml"
    custom.write_text("[loop]\nmax_retrys = 7\n")

    with pytest.raises(ConfigError) as caught:
        load_config(ProjectPaths.locate(custom).config)

    assert str(custom.resolve()) in str(caught.value)
    assert "loop.max_retrys" in str(caught.value)


def test_the_cli_reads_the_named_file_and_refuses_its_misspelt_key(tmp_path: Path) -> None:
    """End to end: `orch-tui --config team.toml status` is refused for the file's bad key."""
    (tmp_path / "team.toml").write_text("[checks]\nsandboxx = 'none'\n")
    result = subprocess.run(
        [str(Path(sys.executable).parent / "orch-tui"), "--config", "team.toml", "status"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )

    assert result.returncode == 1, result.stdout + result.stderr
    assert "team.toml" in result.stderr and "checks.sandboxx" in result.stderr


def test_a_prices_table_adds_to_the_default_prices() -> None:
    defaults = Config().prices
    config = parse_config(
        {
            "prices": {
                "my-local-model": {"input": 0, "output": 0, "cache_write": 0, "cache_read": 0}
            }
        },
        "orchestrator.toml",
    )

    assert config.prices["my-local-model"].output == 0
    assert set(defaults) < set(config.prices)
    assert config.prices["claude-sonnet-5"] == defaults["claude-sonnet-5"]


def test_a_prices_entry_reprices_a_default_model() -> None:
    config = parse_config(
        {"prices": {"gpt-4.1": {"input": 1, "output": 4, "cache_write": 1, "cache_read": 0.25}}},
        "orchestrator.toml",
    )

    assert config.prices["gpt-4.1"].output == 4
    assert config.prices["gpt-4o"] == Config().prices["gpt-4o"]


def test_the_repositorys_orchestrator_toml_is_what_init_writes(tmp_path: Path) -> None:
    written = tmp_path / "orchestrator.toml"
    write_default_config(written)

    assert (ROOT / "orchestrator.toml").read_text() == written.read_text()


def test_the_default_prices_cover_the_openai_models_the_readme_names() -> None:
    readme = (ROOT / "README.md").read_text()
    prices = Config().prices

    named = [model for model in ("gpt-4.1", "gpt-4.1-mini", "gpt-4o") if model in readme]
    assert named and all(model in prices for model in named)
