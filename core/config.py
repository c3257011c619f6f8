"""``orchestrator.toml`` parsed into typed models.

Every key has a default and a docstring; the docstrings are also the comments
``orch-tui init`` writes. An unknown key or a wrong type is a
:class:`ConfigError` naming the file and the key, raised before any work.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from core.checks import DEFAULT_TEST_COMMAND, is_secret_env_name

CONFIG_NAME = "orchestrator.toml"
MAX_RETRIES_RANGE = (1, 50)


class ConfigError(Exception):
    """A configuration file that cannot be used, with the file and key named."""


class Section(BaseModel):
    model_config = ConfigDict(
        extra="forbid", use_attribute_docstrings=True, validate_assignment=True
    )


class ModelConfig(Section):
    provider: str = "anthropic"
    """Where model turns come from: "anthropic" (the API) or "scripted" (replay a recorded script)."""

    name: str = "claude-sonnet-4-5"
    """The Claude model id sent with every request."""

    max_tokens: int = Field(default=16000, ge=256)
    """Upper bound on tokens the model may write in one response."""

    max_tool_turns: int = Field(default=40, ge=1)
    """Requests one attempt may make before it is cut off (each tool round trip is one)."""

    max_retries_sdk: int = Field(default=4, ge=0)
    """Retries the Anthropic SDK makes itself on 429, 529, 5xx and connection errors."""

    stream_retries: int = Field(default=2, ge=0)
    """Times a turn whose stream broke mid-way is asked again from the start."""

    timeout_seconds: float = Field(default=600.0, gt=0)
    """Timeout of one request to the model, in seconds."""


class LoopConfig(Section):
    max_retries: int = 5
    """Patch attempts after the first generation (clamped to 1..50 with a warning)."""

    max_cost_usd: float | None = None
    """Stop the run once its model cost reaches this many dollars; unset means no budget."""


class CheckCommand(Section):
    name: str
    """Short name shown in the test output, e.g. "ruff"."""

    command: list[str]
    """The command as a list of arguments (no shell). "{python}" is this Python interpreter."""


class ChecksConfig(Section):
    test_command: list[str] = list(DEFAULT_TEST_COMMAND)
    """The test command, run in workspace/: "{python}" is this interpreter, "{junit}" the report path,
    "{workspace}" the workspace folder."""

    extra: list[CheckCommand] = []
    """Further checks that must all pass, e.g. [{name = "ruff", command = ["ruff", "check", "."]}]."""

    timeout_seconds: float = Field(default=300.0, gt=0)
    """A check still running after this many seconds is killed with its whole process group."""

    max_output_bytes: int = Field(default=1_000_000, ge=1000)
    """Captured output kept per check; the middle of anything larger is dropped."""

    env_allow: list[str] = []
    """Environment variables passed to checks besides PATH, HOME, LANG, LC_ALL and PYTHONPATH."""

    @field_validator("env_allow")
    @classmethod
    def _no_secrets(cls, names: list[str]) -> list[str]:
        secrets = [name for name in names if is_secret_env_name(name)]
        if secrets:
            raise ValueError(f"{', '.join(secrets)} would hand an API key to generated code")
        return names


class FeedbackConfig(Section):
    output_chars: int = Field(default=8000, ge=500)
    """Characters of raw test output sent back to the model (head and tail kept)."""

    max_failures: int = Field(default=20, ge=1)
    """Failing tests described in detail in a patch prompt."""

    traceback_lines: int = Field(default=30, ge=1)
    """Lines kept of each failing test's traceback (the last ones)."""

    file_chars: int = Field(default=200_000, ge=1000)
    """Characters of workspace files sent with a patch prompt, in total."""


class SafetyConfig(Section):
    protected_paths: list[str] = []
    """Glob patterns (relative to workspace/) the model may not edit, e.g. "tests/test_acceptance.py"."""


class UiConfig(Section):
    theme: str = "vscode-dark"
    """Theme of the TUI: vscode-dark, vscode-light or high-contrast (saved when changed in the app)."""

    diff_layout: str = "split"
    """Diff layout: "split" (side by side) or "unified"."""

    @field_validator("diff_layout")
    @classmethod
    def _known_layout(cls, value: str) -> str:
        if value not in ("split", "unified"):
            raise ValueError('must be "split" or "unified"')
        return value


class Price(Section):
    input: float
    """Dollars per million input tokens."""

    output: float
    """Dollars per million output tokens."""

    cache_write: float
    """Dollars per million tokens written to the prompt cache."""

    cache_read: float
    """Dollars per million tokens read from the prompt cache."""


def _default_prices() -> dict[str, Price]:
    sonnet = Price(input=3.0, output=15.0, cache_write=3.75, cache_read=0.30)
    return {
        "claude-sonnet-4-5": sonnet,
        "claude-sonnet-4-0": sonnet,
        "claude-opus-4-1": Price(input=15.0, output=75.0, cache_write=18.75, cache_read=1.50),
        "claude-haiku-4-5": Price(input=1.0, output=5.0, cache_write=1.25, cache_read=0.10),
    }


class Config(Section):
    model: ModelConfig = ModelConfig()
    """The model and how it is called."""

    loop: LoopConfig = LoopConfig()
    """Retry bound and budget of the generate, test, patch loop."""

    checks: ChecksConfig = ChecksConfig()
    """What decides that the project works."""

    feedback: FeedbackConfig = FeedbackConfig()
    """How much of a failure goes back to the model."""

    safety: SafetyConfig = SafetyConfig()
    """What the model may not touch."""

    ui: UiConfig = UiConfig()
    """The TUI's look."""

    prices: dict[str, Price] = Field(default_factory=_default_prices)
    """Price table per model id, in dollars per million tokens."""


def _key_of(loc: tuple[Any, ...]) -> str:
    return ".".join(str(part) for part in loc)


def parse_config(data: dict[str, Any], source: Path | str) -> Config:
    """Validate a TOML document; errors name the file and every bad key."""
    try:
        return Config.model_validate(data)
    except ValidationError as exc:
        problems = []
        for err in exc.errors():
            key = _key_of(err["loc"])
            if err["type"] == "extra_forbidden":
                problems.append(f"unknown key '{key}'")
            else:
                problems.append(f"'{key}': {err['msg']}")
        raise ConfigError(f"{source}: " + "; ".join(problems)) from None


def load_config(path: Path | None) -> Config:
    """Read ``path``; a missing file means all defaults."""
    if path is None or not path.exists():
        return Config()
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot be read ({exc})") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML ({exc})") from None
    return parse_config(data, path)


def clamp_retries(value: int) -> tuple[int, str | None]:
    """Clamp ``max_retries`` to its range; the second item is a warning when it moved."""
    low, high = MAX_RETRIES_RANGE
    clamped = min(max(value, low), high)
    if clamped != value:
        return clamped, f"max_retries {value} is outside {low}..{high}; using {clamped}"
    return clamped, None


def find_project_root(start: Path) -> Path:
    """The nearest folder at or above ``start`` holding orchestrator.toml, else ``start``."""
    start = start.resolve()
    for folder in (start, *start.parents):
        if (folder / CONFIG_NAME).is_file():
            return folder
    return start
