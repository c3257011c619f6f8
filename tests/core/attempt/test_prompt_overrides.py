"""A ``prompts/`` override with a placeholder its template does not fill is an error naming
the file, before any request (issue 25, item 7)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from orch_tui.core.attempt.prompt_templates import PromptTemplateError, render
from tests.support.e2e_support import (
    FAST_CONFIG,
    assert_clean_exit,
    child_env,
    orch_tui,
    write_attempts_script,
)


def test_an_unknown_placeholder_is_an_error_naming_the_file(tmp_path: Path) -> None:
    (tmp_path / "generate.md").write_text("Build it. Files: $listng\n")

    with pytest.raises(PromptTemplateError) as caught:
        render("generate", tmp_path, listing="a.py")

    message = str(caught.value)
    assert str(tmp_path / "generate.md") in message
    assert "$listng" in message and "$listing" in message


def test_a_lone_dollar_is_an_error_and_a_known_placeholder_is_filled(tmp_path: Path) -> None:
    (tmp_path / "generate.md").write_text("Costs $5 to build.\n")
    with pytest.raises(PromptTemplateError, match=r"write \$\$ for a dollar sign"):
        render("generate", tmp_path, listing="a.py")

    (tmp_path / "generate.md").write_text("Costs $$5. Files: $listing\n")
    assert render("generate", tmp_path, listing="a.py") == "Costs $5. Files: a.py\n"


def test_a_run_refuses_before_any_request_naming_the_template(tmp_path: Path) -> None:
    (tmp_path / "spec.md").write_text("# tiny\n\nA module `app.py`.\n")
    (tmp_path / "orchestrator.toml").write_text(FAST_CONFIG)
    (tmp_path / "prompts").mkdir()
    (tmp_path / "prompts" / "generate.md").write_text("Files: $listng\n")
    script = write_attempts_script(tmp_path / "script.json", [])

    result = subprocess.run(
        [orch_tui(), "spec.md", "--auto", "--provider", "scripted", "--script", str(script)],
        cwd=tmp_path,
        env=child_env(),
        capture_output=True,
        text=True,
        timeout=90,
    )

    assert_clean_exit(result, 1)
    assert str(tmp_path / "prompts" / "generate.md") in result.stderr
    assert "$listng" in result.stderr
    assert not (tmp_path / "state.json").exists()
