"""The README stays true: every config key documented, CI runs its test command."""

from __future__ import annotations

import re
import tomllib
from dataclasses import fields, is_dataclass
from pathlib import Path

from orch_tui.core.config.models import Config

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def config_keys() -> list[str]:
    keys = []
    for section in (field.name for field in fields(Config)):
        default = getattr(Config(), section)
        if is_dataclass(default):
            keys += [f"{section}.{field.name}" for field in fields(default)]
    return keys


def test_every_config_key_is_in_the_readme_table() -> None:
    section = README.split("## Configuration", 1)[1].split("\n## ", 1)[0]
    documented = set(re.findall(r"^\| `([a-z_]+\.[a-z_]+)` \|", section, flags=re.MULTILINE))
    assert documented == set(config_keys())


def test_ci_runs_the_readme_test_command() -> None:
    blocks = re.findall(r"```sh\n(.*?)\n```", README, flags=re.DOTALL)
    assert len(blocks) == 2, "the quick start is two commands"
    test_command = blocks[1].strip()
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert test_command in ci.splitlines()


def test_every_binding_id_the_readme_lists_exists() -> None:
    """The keymap ids README.md gives under "Keys of the review screen" are real binding ids."""
    import orch_tui.tui.app  # noqa: F401 - imports every screen and widget with bindings
    from orch_tui.tui.keymap import binding_ids

    section = README.split("### Keys of the review screen", 1)[1].split("\n### ", 1)[0]
    listed = set(re.findall(r"`([a-z_]+\.[a-z_]+)` \(", section))
    assert len(listed) > 10
    assert listed <= binding_ids()


def test_the_suite_runs_in_parallel_with_a_timeout_per_test() -> None:
    """The README's plain `python -m pytest` is parallel (xdist) and no test can hang it."""
    options = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]
    pytest_options = options["pytest"]["ini_options"]
    assert "-n auto" in pytest_options["addopts"]
    assert 0 < int(pytest_options["timeout"]) <= 600


def test_the_readme_says_how_to_install_tmux_and_bubblewrap() -> None:
    assert "sudo apt-get install tmux bubblewrap" in README
