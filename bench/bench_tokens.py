"""Prompt caching over a 4-attempt run: the share of input tokens read from cache (by hand).

    python bench/bench_tokens.py          # BENCH_SPEC_LINES=0: the bare demo spec

The spec is the demo's plus 40 requirement lines (``BENCH_SPEC_LINES``), about a page.

The real engine and the real Anthropic SDK run a recorded 4-attempt run (a generation with
three bugs, then one patch per bug: view the file, fix it, end the turn) against the local
fake Messages API, whose usage numbers follow the API's prefix-caching rules (a breakpoint
caches everything before it; a later request reads the longest earlier-cached prefix ending
at or within 20 blocks before one of its breakpoints). It prints, from the first patch on,
cache reads / all input tokens (plain input + cache writes + cache reads), with the
breakpoints as shipped and, as the baseline, with only the system prompt's breakpoint.
Token counts are deterministic, so one run of each is the figure.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from orch_tui.core.attempt import conversation as attempt_module  # noqa: E402
from orch_tui.core.config.models import Config  # noqa: E402
from orch_tui.core.config.paths import ProjectPaths  # noqa: E402
from orch_tui.core.domain.events import EventBus, ModelTurn  # noqa: E402
from orch_tui.core.domain.spec import read_spec  # noqa: E402
from orch_tui.core.loop.engine import Engine, RunOptions  # noqa: E402
from orch_tui.core.loop.review import AcceptAllReviewer  # noqa: E402
from orch_tui.core.providers.anthropic import AnthropicProvider  # noqa: E402
from tests.support.fake_anthropic import FakeAnthropic, Turn  # noqa: E402

SPEC = (ROOT / "core" / "demo" / "spec.md").read_text() + "".join(
    f"- Requirement {n}: the functions handle input shape {n} as the examples above show.\n"
    for n in range(int(os.environ.get("BENCH_SPEC_LINES", "40")))
)
FIXES = [("a - b", "a + b"), ("a * b + 1", "a * b"), ("a // b", "a / b")]
BUGGY = "".join(
    f'def f{n}(a, b):\n    """Function {n} of the spec."""\n    return {bug}\n\n\n'
    for n, (bug, _) in enumerate(FIXES)
)
TESTS = (
    "from calc import f0, f1, f2\n\n\n"
    "def test_f0():\n    assert f0(2, 3) == 5\n\n\n"
    "def test_f1():\n    assert f1(2, 3) == 6\n\n\n"
    "def test_f2():\n    assert f2(3, 2) == 1.5\n"
)


def script() -> list[Turn]:
    items = [
        Turn.edits(
            "Writing it.", [("create", "calc.py", BUGGY), ("create", "tests/test_calc.py", TESTS)]
        ),
        Turn.say("Done."),
    ]
    for bug, fix in FIXES:
        items += [
            Turn.edits("Looking.", [("view", "calc.py")]),
            Turn.edits("Fixing.", [("str_replace", "calc.py", f"return {bug}", f"return {fix}")]),
            Turn.say("Fixed."),
        ]
    return items


def cache_share() -> tuple[float, int]:
    """Cache reads / input tokens from the first patch on, and that input's size."""
    folder = Path(tempfile.mkdtemp(prefix="orch-bench-tokens-"))
    turns: list[ModelTurn] = []
    try:
        (folder / "spec.md").write_text(SPEC)
        config = Config()
        config.checks.env_allow = ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"]
        os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
        with FakeAnthropic(script()) as server:
            bus = EventBus()
            bus.subscribe(lambda e: turns.append(e) if isinstance(e, ModelTurn) else None)
            engine = Engine(
                paths=ProjectPaths(folder),
                config=config,
                spec=read_spec(folder / "spec.md"),
                provider=AnthropicProvider(api_key="test-key", base_url=server.url, max_retries=0),
                reviewer=AcceptAllReviewer(),
                bus=bus,
                options=RunOptions(max_retries=3),
            )
            assert engine.run() == 0, "the recorded run did not succeed"
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    patches = [t for t in turns if t.attempt >= 1]
    assert {t.attempt for t in patches} == {1, 2, 3}
    read = sum(t.cache_read_tokens for t in patches)
    total = sum(t.input_tokens + t.cache_write_tokens + t.cache_read_tokens for t in patches)
    return read / total, total


def main() -> None:
    shipped, total = cache_share()
    moving = attempt_module.with_cache_breakpoints
    attempt_module.with_cache_breakpoints = lambda messages, previous: messages
    try:
        baseline, _ = cache_share()
    finally:
        attempt_module.with_cache_breakpoints = moving
    print(
        f"cache reads / input tokens from the first patch on: {shipped:.0%} "
        f"(system breakpoint only: {baseline:.0%}; {total:,} input tokens; target >= 80%)"
    )


if __name__ == "__main__":
    main()
