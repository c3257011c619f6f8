"""Choosing the provider for a run, including the no-key demo replay."""

from __future__ import annotations

import os
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from core.config import Config
from core.providers.base import ModelError, Provider
from core.providers.scripted import ScriptedProvider, ScriptError
from core.spec import Spec

DEMO_NOTICE = (
    "No ANTHROPIC_API_KEY set: replaying the bundled demo (recorded model turns; no API calls, "
    "no cost; token and cost figures are the recording's). Set ANTHROPIC_API_KEY to use Claude."
)


def demo_dir() -> Path:
    return Path(str(resources.files("core").joinpath("demo")))


def is_demo_spec(spec: Spec) -> bool:
    demo_spec = demo_dir() / "spec.md"
    return demo_spec.is_file() and demo_spec.read_text(encoding="utf-8") == spec.text


@dataclass
class ProviderChoice:
    provider: Provider
    notice: str | None = None


def choose_provider(config: Config, spec: Spec, script: Path | None) -> ProviderChoice:
    """The provider named in the config (or overridden on the command line).

    Raises ModelError (no key) or ScriptError (bad script) with a clear message.
    """
    name = config.model.provider
    if name == "scripted":
        if script is None:
            if is_demo_spec(spec):
                return ProviderChoice(ScriptedProvider.from_path(demo_dir() / "script.json"))
            raise ScriptError(
                "--provider scripted needs --script FILE (a script or a logs/<run_id> folder)"
            )
        return ProviderChoice(
            ScriptedProvider.from_path(script), f"replaying recorded model turns from {script}"
        )
    if name != "anthropic":
        raise ModelError(f"unknown provider {name!r}", hint='use "anthropic" or "scripted"')
    if not os.environ.get("ANTHROPIC_API_KEY"):
        if is_demo_spec(spec):
            return ProviderChoice(
                ScriptedProvider.from_path(demo_dir() / "script.json"), DEMO_NOTICE
            )
        raise ModelError(
            "ANTHROPIC_API_KEY is not set",
            hint="export ANTHROPIC_API_KEY=..., or replay a recording with --provider scripted "
            "--script FILE, or run the bundled demo: orch-tui core/demo/spec.md --auto",
        )
    from core.providers.anthropic import AnthropicProvider

    model = config.model
    return ProviderChoice(
        AnthropicProvider(
            max_retries=model.max_retries_sdk,
            timeout_s=model.timeout_seconds,
            stream_retries=model.stream_retries,
        )
    )
