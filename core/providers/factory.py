"""Choosing the provider for a run, including the no-key demo replay."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from orch_tui.core.config.models import Config
from orch_tui.core.domain.spec import Spec
from orch_tui.core.providers.base import (
    AssistantTurn,
    ModelError,
    Provider,
    TextSink,
    TurnRequest,
)
from orch_tui.core.providers.scripted import ScriptedProvider, ScriptError
from orch_tui.core.util.records import record

DEMO_NOTICE = (
    "No ANTHROPIC_API_KEY set: replaying the bundled demo (recorded model turns; no API calls, "
    "no cost; token and cost figures are the recording's). Set ANTHROPIC_API_KEY to use Claude."
)


def demo_dir() -> Path:
    return Path(__file__).parents[1] / "demo"  # read by path, as the prompt templates are


DEMO_SCRIPTS = {"spec.md": "script.json", "plan-spec.md": "plan-script.json"}
"""Each bundled demo spec and the recording that replays it."""


def demo_script(spec: Spec) -> Path | None:
    """The recording of the bundled demo ``spec`` is (by its text), or None."""
    for spec_name, script_name in DEMO_SCRIPTS.items():
        demo_spec = demo_dir() / spec_name
        if demo_spec.is_file() and demo_spec.read_text(encoding="utf-8") == spec.text:
            return demo_dir() / script_name
    return None


class KeyMissing(ModelError):
    """The provider's API key is not set (and no demo replays instead)."""


@record
class KeyLater:
    """Stands in for a provider whose key is not set while opening the run asks the model
    nothing (a finished run, looked at): the key's error comes only if a request is made
    after all (the person continues the run)."""

    name: str
    missing: KeyMissing

    def complete(self, request: TurnRequest, on_text: TextSink) -> AssistantTurn:
        raise KeyMissing(self.missing.message, self.missing.hint)


@record
class ProviderChoice:
    provider: Provider
    notice: str | None = None


def choose_provider(
    config: Config,
    spec: Spec,
    script: Path | None,
    env: Mapping[str, str] | None = None,
    workspace: Path | None = None,
) -> ProviderChoice:
    """The provider named in the config (or overridden on the command line).

    ``env`` holds the keys and base URLs (the process environment over ``.env``; default the
    process environment); ``workspace`` is the folder Claude Code works on a copy of. Raises
    KeyMissing (no key), ModelError (an unknown provider) or ScriptError (bad script) with a
    clear message.
    """
    env = os.environ if env is None else env
    name = config.model.provider
    if name == "scripted":
        if script is None:
            demo = demo_script(spec)
            if demo is not None:
                return ProviderChoice(ScriptedProvider.from_path(demo))
            raise ScriptError(
                "--provider scripted needs --script FILE (a script or a logs/<run_id> folder)"
            )
        return ProviderChoice(
            ScriptedProvider.from_path(script), f"replaying recorded model turns from {script}"
        )
    if name == "openai":
        return ProviderChoice(_openai_provider(config, env))
    if name == "claude-code":
        from orch_tui.core.providers.claude_code import ClaudeCodeProvider

        return ProviderChoice(
            ClaudeCodeProvider(
                workspace or Path("workspace"), timeout_s=config.model.timeout_seconds
            )
        )
    if name != "anthropic":
        raise ModelError(
            f"unknown provider {name!r}",
            hint='use "anthropic", "openai", "claude-code" or "scripted"',
        )
    if not env.get("ANTHROPIC_API_KEY"):
        demo = demo_script(spec)
        if demo is not None:
            return ProviderChoice(ScriptedProvider.from_path(demo), DEMO_NOTICE)
        raise KeyMissing(
            "ANTHROPIC_API_KEY is not set",
            hint="export ANTHROPIC_API_KEY=..., or replay a recording with --provider scripted "
            "--script FILE, or run the bundled demo: orch-tui core/demo/spec.md --auto",
        )
    from orch_tui.core.providers.anthropic import AnthropicProvider

    model = config.model
    return ProviderChoice(
        AnthropicProvider(
            api_key=env.get("ANTHROPIC_API_KEY"),
            base_url=env.get("ANTHROPIC_BASE_URL"),
            max_retries=model.max_retries_sdk,
            timeout_s=model.timeout_seconds,
            stream_retries=model.stream_retries,
        )
    )


def _openai_provider(config: Config, env: Mapping[str, str]) -> Provider:
    """An OpenAI-compatible provider; a local server (a base URL set) needs no key."""
    from orch_tui.core.providers.openai import LOCAL_KEY, OpenAIProvider

    model = config.model
    base_url = env.get("OPENAI_BASE_URL") or model.base_url
    api_key = env.get("OPENAI_API_KEY")
    if not api_key and not base_url:
        raise KeyMissing(
            "OPENAI_API_KEY is not set",
            hint="export OPENAI_API_KEY=..., or point OPENAI_BASE_URL (or model.base_url) at a "
            "local server such as Ollama: http://localhost:11434/v1",
        )
    return OpenAIProvider(
        api_key=api_key or LOCAL_KEY,
        base_url=base_url,
        max_retries=model.max_retries_sdk,
        timeout_s=model.timeout_seconds,
    )
