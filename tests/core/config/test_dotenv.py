"""A .env beside orchestrator.toml: read for keys and base URLs, never handed to checks."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from orch_tui.core.config.dotenv import provider_env
from orch_tui.core.config.files import ConfigError
from orch_tui.core.config.models import Config
from orch_tui.core.domain.spec import Spec
from orch_tui.core.providers.factory import choose_provider
from orch_tui.core.providers.openai import OpenAIProvider
from tests.support.e2e_support import assert_clean_exit, make_project
from tests.support.fake_openai import FakeOpenAI, Reply


def test_dotenv_values_are_read_and_the_process_environment_wins(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("OPENAI_API_KEY=from-file\nOPENAI_BASE_URL=http://file/v1\n")
    env = provider_env(tmp_path, {"OPENAI_API_KEY": "from-process"})
    assert env["OPENAI_API_KEY"] == "from-process"
    assert env["OPENAI_BASE_URL"] == "http://file/v1"


def test_no_dotenv_means_the_process_environment_alone(tmp_path: Path) -> None:
    assert provider_env(tmp_path, {"A": "1"}) == {"A": "1"}


def test_an_unreadable_dotenv_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / ".env").write_bytes(b"OPENAI_API_KEY=\xff\xfe\n")
    with pytest.raises(ConfigError, match=r"\.env: cannot be read"):
        provider_env(tmp_path, {})


def test_the_provider_factory_takes_the_key_from_the_dotenv_mapping(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("OPENAI_API_KEY=from-file\n")
    config = Config()
    config.model.provider = "openai"
    spec = Spec(path=tmp_path / "spec.md", text="# x\n")
    choice = choose_provider(config, spec, None, provider_env(tmp_path, {}))
    assert isinstance(choice.provider, OpenAIProvider)
    assert choice.provider.api_key == "from-file"


def test_a_check_never_sees_a_key_from_dotenv(tmp_path: Path) -> None:
    """A run keyed only by .env reaches SUCCESS; a check dumping its environment sees no .env value."""
    # Checks run in workspace/ (the only place a sandboxed check may write).
    code = "import json, os; open('check-env.json', 'w').write(json.dumps(dict(os.environ)))"
    config = (
        "[checks]\n"
        'env_allow = ["PYTEST_DISABLE_PLUGIN_AUTOLOAD", "OPENAI_BASE_URL"]\n'
        f'extra = [{{name = "env", command = [{json.dumps(sys.executable)}, "-c", '
        f"{json.dumps(code)}]}}]\n"
    )
    test = {
        "command": "create",
        "path": "tests/test_ok.py",
        "file_text": "def test_ok():\n    assert True\n",
    }
    with FakeOpenAI(
        [Reply.edits("", [test]), Reply("Done.")], valid_keys={"dotenv-secret"}
    ) as fake:
        project = make_project(tmp_path / "p", spec_text="# ok\n", key=None, config=config)
        (project.root / ".env").write_text(
            f"OPENAI_API_KEY=dotenv-secret\nOPENAI_BASE_URL={fake.url}\n"
        )
        for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL"):
            project.env.pop(name, None)
        result = project.run_auto("--provider", "openai", "--model", "gpt-4.1")

    assert_clean_exit(result, 0)
    seen = json.loads((project.workspace / "check-env.json").read_text())
    assert "dotenv-secret" not in json.dumps(seen)
    assert "OPENAI_API_KEY" not in seen and "OPENAI_BASE_URL" not in seen
