"""``orchestrator.toml`` parsed into typed dataclasses.

Every key has a default and a docstring; the docstrings are also the comments
``orch-tui init`` writes. An unknown key or a wrong type is a
:class:`ConfigError` naming the file and the key, raised before any work.

Dataclasses, not pydantic models: a plainly valid config (:mod:`~orch_tui.core.config.plain`)
is built directly, without importing pydantic, which took longer than the rest of a run's
start. Anything else is validated by pydantic through a ``TypeAdapter`` over these classes
(:mod:`~orch_tui.core.config.checked`), converting and wording errors as the models did.
Assigning to a field checks nothing: ``--model``, ``--provider`` and the remembered settings
are checked where they come from."""

from __future__ import annotations

from dataclasses import field, fields
from pathlib import Path
from typing import Annotated, Any, ClassVar, Literal

from orch_tui.core.config.constraints import Above, AtLeast, Checked, Prepared
from orch_tui.core.config.files import SandboxMode, read_toml
from orch_tui.core.config.plain import DEFAULT_TEST_COMMAND, is_secret_env_name, plainly_valid
from orch_tui.core.config.theme_names import DEFAULT_THEME, ThemeName
from orch_tui.core.util.records import record

MAX_RETRIES_RANGE = (1, 50)


class Section:
    """What every table shares: pydantic refuses an unknown key, nan and infinity (which would
    silently switch a bound off: a budget nothing ever reaches); slots make a misspelt
    assignment an error. The attribute docstrings are read only where they are written out
    (``core.config.init_file``)."""

    __slots__ = ()
    __pydantic_config__: ClassVar[dict[str, Any]] = {"extra": "forbid", "allow_inf_nan": False}


def _a_program_first(command: list[str]) -> list[str]:
    """A command's first word is the program: the list may not be empty, nor the program ''."""
    if not command or not command[0].strip():
        raise ValueError("a command needs a program to run as its first word")
    return command


def _no_secrets(names: list[str]) -> list[str]:
    secrets = [name for name in names if is_secret_env_name(name)]
    if secrets:
        raise ValueError(f"{', '.join(secrets)} would hand an API key to generated code")
    return names


def _default_test_command() -> list[str]:
    return list(DEFAULT_TEST_COMMAND)


@record(slots=True)
class ModelConfig(Section):
    provider: Literal["anthropic", "openai", "claude-code", "scripted"] = "anthropic"
    """Where model turns come from: "anthropic" (the API), "openai" (any OpenAI-compatible server),
    "claude-code" (the claude command line) or "scripted" (replay a recorded script)."""

    name: str = "claude-sonnet-5"
    """The model id sent with every request (e.g. "gpt-4.1", or "qwen2.5-coder" on Ollama)."""

    base_url: str | None = None
    """Base URL of an OpenAI-compatible server, e.g. "http://localhost:11434/v1" (OPENAI_BASE_URL
    wins when set; unset means OpenAI's own API)."""

    max_tokens: Annotated[int, AtLeast(256)] = 16000
    """Upper bound on tokens the model may write in one response."""

    max_tool_turns: Annotated[int, AtLeast(1)] = 40
    """Requests one attempt may make before it is cut off (each tool round trip is one)."""

    max_retries_sdk: Annotated[int, AtLeast(0)] = 4
    """Retries the SDK (Anthropic or OpenAI) makes itself on 429, 529, 5xx and connection errors."""

    stream_retries: Annotated[int, AtLeast(0)] = 2
    """Times a turn whose stream broke mid-way is asked again from the start."""

    timeout_seconds: Annotated[float, Above(0)] = 600.0
    """Most seconds one request to the model may take in all, streamed answer and SDK retries included."""

    escalate_to: str = ""
    """A stronger model id that takes over after loop.escalate_after failed attempts; empty = off."""

    judge: str = ""
    """A model id that reads the attempt history after failed checks and decides: retry with
    guidance for the next prompt, or ask a person; empty = off."""

    verifier: str = ""
    """A model id that checks, once every check passes, that the spec (or task) is implemented and
    tested; "insufficient" sends one more patch round with the gaps; empty = off."""


@record(slots=True)
class LoopConfig(Section):
    max_retries: int = 5
    """Patch attempts after the first generation (clamped to 1..50 with a warning)."""

    max_cost_usd: Annotated[float, AtLeast(0)] | None = None
    """Stop the run once its model cost reaches this many dollars; unset means no budget."""

    plan: bool = False
    """Plan mode (as --plan): plan the spec as tasks first, then one loop per task, each with max_retries."""
    on_stuck: Literal["fail", "ask"] = "fail"
    """With --auto, a stuck run (retries spent, no progress) "fail"s (exit 1) or "ask"s a person
    (exit 4, answered with --guidance). The TUI always asks."""

    escalate_after: Annotated[int, AtLeast(1)] = 2
    """Failed attempts after which model.escalate_to takes over (when it is set)."""


@record(slots=True)
class CheckCommand(Section):
    name: str
    """Short name shown in the test output, e.g. "ruff"."""

    command: Annotated[list[str], Checked(_a_program_first)]
    """The command as a list of arguments (no shell). "{python}" is the project's interpreter."""


@record(slots=True)
class ChecksConfig(Section):
    test_command: Annotated[list[str], Checked(_a_program_first)] = field(
        default_factory=_default_test_command
    )
    """The test command, run in workspace/: "{python}" is the project's interpreter (see python),
    "{junit}" the report path, "{workspace}" the workspace folder."""

    extra: list[CheckCommand] = field(default_factory=list)
    """Further checks that must all pass, e.g. [{name = "ruff", command = ["ruff", "check", "."]}]."""

    final: list[CheckCommand] = field(default_factory=list)
    """Commands run once after every task of a plan is done (or before SUCCESS without a plan),
    e.g. [{name = "e2e", command = ["{python}", "e2e.py"]}]; a failure sends one more patch round
    quoting it."""

    timeout_seconds: Annotated[float, Above(0)] = 300.0
    """A check still running after this many seconds is killed with its whole process group
    (at most 600: a larger value is clamped, with a warning)."""

    max_output_bytes: Annotated[int, AtLeast(1000)] = 1_000_000
    """Captured output kept per check; the middle of anything larger is dropped."""

    python: str = ""
    """The interpreter "{python}" stands for, used as it is (a path or a name on PATH). Empty: the
    workspace's own .venv, created when missing, with the project's declared dependencies."""

    env_allow: Annotated[list[str], Checked(_no_secrets)] = field(default_factory=list)
    """Environment variables passed to checks besides PATH, HOME, LANG, LC_ALL and PYTHONPATH."""

    sandbox: SandboxMode = "auto"
    """Where checks run: "auto" (bubblewrap when bwrap works here, else unconfined), "bwrap"
    (bubblewrap or refuse to run) or "none"; see the README's Safety section."""

    allow_all_skipped: bool = False
    """Whether a test run whose every test was skipped passes; by default it fails, since it
    shows nothing working (a run with no test at all always fails)."""

    tmp_size_mb: Annotated[int, AtLeast(1)] = 512
    """Size of the sandbox's private /tmp (a tmpfs, in memory), in MiB; writes beyond it fail."""

    max_processes: Annotated[int, AtLeast(8)] = 256
    """Processes and threads a sandboxed check may have at once (RLIMIT_NPROC; not enforced
    when orch-tui runs as root, where the kernel exempts the sandbox's user from it)."""

    max_memory_mb: Annotated[int, AtLeast(64)] = 4096
    """Address space of each sandboxed check process, in MiB (RLIMIT_AS); allocations beyond it
    fail with MemoryError."""


@record(slots=True)
class FeedbackConfig(Section):
    output_chars: Annotated[int, AtLeast(500)] = 8000
    """Characters of raw test output sent back to the model (head and tail kept)."""

    max_failures: Annotated[int, AtLeast(1)] = 20
    """Failing tests described in detail in a patch prompt."""

    traceback_lines: Annotated[int, AtLeast(1)] = 30
    """Lines kept of each failing test's traceback (the last ones)."""

    file_chars: Annotated[int, AtLeast(1000)] = 200_000
    """Characters of workspace files sent with a patch prompt, in total."""


@record(slots=True)
class PathsConfig(Section):
    workspace: str = ""
    """The folder the run works in, relative to this file: an existing project or git repository.
    Empty means workspace/ (created and emptied by orch-tui); --workspace overrides it."""


@record(slots=True)
class SafetyConfig(Section):
    protected_paths: list[str] = field(default_factory=list)
    """Glob patterns (relative to workspace/) the model may not edit, e.g. "tests/test_acceptance.py"."""

    allow_test_edits: bool = False
    """With --auto, the model may edit test files that existed before its attempt (the
    contract). Off: such an edit goes back to it as an error, and it may ask instead."""

    protect_existing_tests: bool = True
    """In an existing project (--workspace), the test files present when the run starts may not be
    edited by the model; set false to let it change them (weakening hunks are still marked)."""


@record(slots=True)
class SpecConfig(Section):
    data: list[str] = field(default_factory=list)
    """Data files given with the spec, relative to this file (as --data, which adds to them):
    each is copied to the workspace's data/ folder, protected, and described in the first prompt."""


@record(slots=True)
class UiConfig(Section):
    theme: ThemeName = DEFAULT_THEME
    """Theme of the TUI: vscode-dark, vscode-light or high-contrast (a theme picked in the app is remembered in orch-tui's own ui.json and wins)."""

    diff_layout: Literal["split", "unified"] = "split"
    """Diff layout: "split" (side by side) or "unified" (`v` in the app switches it and remembers it in ui.json)."""

    keymap: dict[str, str] = field(default_factory=dict)
    """Keys by binding id, replacing the defaults, e.g. { "review.accept_hunk" = "a" }; several
    keys are comma-separated ("a,ctrl+a"). The ids are listed in README.md, "Keys"."""


@record(slots=True)
class NotifyConfig(Section):
    bell: bool = True
    """Ring the terminal bell when the run needs you (review, question, stuck) or ends."""

    desktop: bool = True
    """Show a desktop notification then, through notify-send where it is installed."""

    command: list[str] = field(default_factory=list)
    """A command run then (no shell), with ORCH_RUN_ID, ORCH_STATE and ORCH_REASON set, e.g.
    ["ntfy", "publish", "mytopic", "orch-tui needs you"]."""


@record(slots=True)
class Price(Section):
    input: Annotated[float, AtLeast(0)]
    """Dollars per million input tokens."""

    output: Annotated[float, AtLeast(0)]
    """Dollars per million output tokens."""

    cache_write: Annotated[float, AtLeast(0)]
    """Dollars per million tokens written to the prompt cache."""

    cache_read: Annotated[float, AtLeast(0)]
    """Dollars per million tokens read from the prompt cache."""


def _default_prices() -> dict[str, Price]:
    sonnet = Price(input=3.0, output=15.0, cache_write=3.75, cache_read=0.30)
    return {
        "claude-sonnet-5": Price(input=2.0, output=10.0, cache_write=2.50, cache_read=0.20),
        "claude-opus-5": Price(input=5.0, output=25.0, cache_write=6.25, cache_read=0.50),
        "claude-sonnet-4-5": sonnet,
        "claude-sonnet-4-0": sonnet,
        "claude-opus-4-1": Price(input=15.0, output=75.0, cache_write=18.75, cache_read=1.50),
        "claude-haiku-4-5": Price(input=1.0, output=5.0, cache_write=1.25, cache_read=0.10),
        "gpt-4.1": Price(input=2.0, output=8.0, cache_write=2.0, cache_read=0.50),
        "gpt-4.1-mini": Price(input=0.40, output=1.60, cache_write=0.40, cache_read=0.10),
        "gpt-4o": Price(input=2.50, output=10.0, cache_write=2.50, cache_read=1.25),
    }


def _add_to_default_prices(value: Any) -> Any:
    """A ``[prices]`` table adds models to the defaults (or reprices them), never drops them."""
    return {**_default_prices(), **value} if isinstance(value, dict) else value


@record(slots=True)
class Config(Section):
    model: ModelConfig = field(default_factory=ModelConfig)
    """The model and how it is called."""

    loop: LoopConfig = field(default_factory=LoopConfig)
    """Retry bound and budget of the generate, test, patch loop."""

    checks: ChecksConfig = field(default_factory=ChecksConfig)
    """What decides that the project works."""

    feedback: FeedbackConfig = field(default_factory=FeedbackConfig)
    """How much of a failure goes back to the model."""

    paths: PathsConfig = field(default_factory=PathsConfig)
    """Where the run works."""

    safety: SafetyConfig = field(default_factory=SafetyConfig)
    """What the model may not touch."""

    spec: SpecConfig = field(default_factory=SpecConfig)
    """What comes with the spec."""

    ui: UiConfig = field(default_factory=UiConfig)
    """The TUI's look."""

    notify: NotifyConfig = field(default_factory=NotifyConfig)
    """How you hear that the run needs you or has ended (--no-notify turns it off for one run)."""

    prices: Annotated[dict[str, Price], Prepared(_add_to_default_prices)] = field(
        default_factory=_default_prices
    )
    """Price table per model id, in dollars per million tokens."""


_TABLES: dict[str, Any] = {
    table.name: table.default_factory for table in fields(Config) if table.name != "prices"
}
"""Each table's class by its name (its default factory), for building a plainly valid config."""
_FLOATS = {
    "model": ("timeout_seconds",),
    "loop": ("max_cost_usd",),
    "checks": ("timeout_seconds",),
}
"""The float keys a plainly valid config may give as integers: pydantic makes them floats."""
_COMMANDS = ("extra", "final")


def _plain_table(name: str, table: dict[str, Any]) -> Any:
    values = dict(table)
    for key in _FLOATS.get(name, ()):
        if key in values:
            values[key] = float(values[key])
    if name == "checks":
        for key in _COMMANDS:
            if key in values:
                values[key] = [CheckCommand(**item) for item in values[key]]
    return _TABLES[name](**values)


def _plain_prices(table: dict[str, dict[str, float]]) -> dict[str, Price]:
    given = {
        model: Price(**{key: float(amount) for key, amount in price.items()})
        for model, price in table.items()
    }
    return {**_default_prices(), **given}


def from_plain(data: dict[str, Any]) -> Config:
    """The config of a document :func:`plainly_valid` takes, as pydantic would build it."""
    tables = {name: _plain_table(name, table) for name, table in data.items() if name != "prices"}
    if "prices" in data:
        return Config(**tables, prices=_plain_prices(data["prices"]))
    return Config(**tables)


def parse_config(data: dict[str, Any], source: Path | str) -> Config:
    """Validate a TOML document; errors name the file and every bad key. A plainly valid one is
    built without pydantic."""
    if plainly_valid(data):
        return from_plain(data)
    from orch_tui.core.config.checked import validated

    return validated(data, source)


def load_config(path: Path | None) -> Config:
    """Read ``path``; a missing file means all defaults."""
    if path is None or not path.exists():
        return Config()
    return parse_config(read_toml(path), path)


def clamp_retries(value: int) -> tuple[int, str | None]:
    """Clamp ``max_retries`` to its range; the second item is a warning when it moved."""
    low, high = MAX_RETRIES_RANGE
    clamped = min(max(value, low), high)
    if clamped != value:
        return clamped, f"max_retries {value} is outside {low}..{high}; using {clamped}"
    return clamped, None


MAX_CHECK_TIMEOUT_S = 600.0
"""The hard maximum of ``checks.timeout_seconds``: a larger value is clamped, with a warning."""


def clamp_check_timeout(config: Config) -> str | None:
    """Clamp ``checks.timeout_seconds`` to :data:`MAX_CHECK_TIMEOUT_S`; a warning when it moved."""
    given = config.checks.timeout_seconds
    if given <= MAX_CHECK_TIMEOUT_S:
        return None
    config.checks.timeout_seconds = MAX_CHECK_TIMEOUT_S
    return (
        f"checks.timeout_seconds {given:g} is over the maximum of {MAX_CHECK_TIMEOUT_S:g} s; "
        f"using {MAX_CHECK_TIMEOUT_S:g}"
    )
