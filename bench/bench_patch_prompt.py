"""The patch prompt's size against what it must carry, over generated suites (by hand).

    python bench/bench_patch_prompt.py [--suites 24]

Each suite is a generated project of a different shape (plain functions, unittest classes,
parametrized tests, 50+ tests, a collection error, several modules) whose tests really run
under pytest, as the engine runs them. The model's last proposal created every file; in
every other suite the reviewer edited one module before it landed.

What is measured is the uncached part of a patch attempt's first request, as the API bills
it: the request is tools, system blocks (the system prompt, with the instructions on how to
read the feedback, then the spec, which carries the cache breakpoint) and one user message,
the patch prompt. The run's first request wrote tools and system blocks to the cache, so
this one reads them; the patch prompt, which changes every attempt, is all that comes after
that breakpoint and is paid in full (its own breakpoint only writes it for the attempt's
later turns). It is measured against what it has to carry: the failing-test details plus
the files that changed since the model last saw them. Prints the median and max of that
ratio, in characters (tokens are about a quarter of them), per shape and over all suites,
and how much of the system prompt the feedback instructions take (cached, so read at a
tenth of the price on every request).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from orch_tui.core.attempt import feedback  # noqa: E402
from orch_tui.core.attempt.conversation import with_cache_breakpoints  # noqa: E402
from orch_tui.core.checks.trial import run_configured  # noqa: E402
from orch_tui.core.config.models import Config  # noqa: E402
from orch_tui.core.domain.proposal import Decisions, FileChange, Proposal  # noqa: E402
from orch_tui.core.workspace.apply import read_tree  # noqa: E402


def module(name: str, functions: int) -> str:
    return "".join(
        f'def {name}_{n}(a, b):\n    """Combine a and b, case {n}."""\n'
        f"    total = a + b\n    return total * {n % 3 + 1}\n\n\n"
        for n in range(functions)
    )


def plain_tests(name: str, tests: int, failing: int) -> str:
    lines = [f"from {name} import *  # noqa: F403\n\n"]
    for n in range(tests):
        expected = f"(1 + {n}) * {n % 3 + 1}" if n >= failing else "-1"
        lines.append(f"\ndef test_{name}_{n}():\n    assert {name}_{n}(1, {n}) == {expected}\n\n")
    return "".join(lines)


def unittest_tests(name: str, tests: int, failing: int) -> str:
    lines = [
        f"import unittest\n\nfrom {name} import *  # noqa: F403\n\n\nclass Test{name.title()}(unittest.TestCase):\n"
    ]
    for n in range(tests):
        expected = f"(2 + {n}) * {n % 3 + 1}" if n >= failing else "0"
        lines.append(
            f"    def test_{n}(self):\n        self.assertEqual({name}_{n}(2, {n}), {expected})\n\n"
        )
    return "".join(lines)


def parametrized_tests(name: str, tests: int, failing: int) -> str:
    cases = ", ".join(
        f"({n}, {'-1' if n < failing else f'(3 + {n}) * {n % 3 + 1}'})" for n in range(tests)
    )
    return (
        f"import pytest\n\nfrom {name} import *  # noqa: F403\n\n\n"
        f"@pytest.mark.parametrize('n, expected', [{cases}])\n"
        f"def test_{name}(n, expected):\n    assert globals()['{name}_' + str(n)](3, n) == expected\n"
    )


def shared_failure_tests(name: str, tests: int, failing: int) -> str:
    """Tests that fail the same way at the same line: one missing rate, many callers."""
    lines = [f"from {name} import *  # noqa: F403\n\nRATES = {{'usd': 1.0}}\n\n\n"]
    lines.append("def rate(currency):\n    return RATES[currency]\n\n")
    for n in range(tests):
        currency = "'eur'" if n < max(failing, tests * 2 // 5) else "'usd'"
        lines.append(
            f"\ndef test_{name}_{n}():\n"
            f"    assert {name}_{n}(1, {n}) * rate({currency}) == (1 + {n}) * {n % 3 + 1}\n\n"
        )
    return "".join(lines)


STYLES = [plain_tests, unittest_tests, parametrized_tests, shared_failure_tests]


def suite(index: int) -> dict[str, str]:
    """Suite ``index``: its shape cycles through styles, sizes and failure counts."""
    style = STYLES[index % len(STYLES)]
    modules = 1 + index % 3
    tests = [4, 12, 55, 20][index % 4]
    failing = [1, 2, 5, 1, 3][index % 5]
    files: dict[str, str] = {}
    for m in range(modules):
        name = f"mod{m}"
        files[f"{name}.py"] = module(name, tests)
        files[f"tests/test_{name}.py"] = style(name, tests, failing if m == 0 else 0)
    if index % 6 == 5:
        files["tests/test_broken.py"] = (
            "import missing_module_xyz\n\n\ndef test_never():\n    pass\n"
        )
    return files


def uncached_text(system: list[dict[str, Any]], messages: list[dict[str, Any]]) -> str:
    """The text of the request after its system blocks' last cache breakpoint."""
    assert "cache_control" in system[-1], "the spec block carries the system's breakpoint"
    return "".join(
        block["text"] for message in messages for block in message["content"] if "text" in block
    )


def measure(index: int, config: Config) -> tuple[float, float]:
    """(uncached patch request / what it must carry, the same / the whole workspace)."""
    folder = Path(tempfile.mkdtemp(prefix="orch-bench-prompt-"))
    try:
        workspace, reports = folder / "workspace", folder / "reports"
        files = suite(index)
        proposal = Proposal(0, tuple(FileChange(p, None, t) for p, t in sorted(files.items())))
        if index % 2:
            files["mod0.py"] += "\n# reviewer: keep this module small\n"
        for path, text in files.items():
            (workspace / path).parent.mkdir(parents=True, exist_ok=True)
            (workspace / path).write_text(text)
        reports.mkdir()
        report = run_configured(config, workspace, reports)
        assert not report.passed, f"suite {index} passed"
        prompt = feedback.patch_prompt(
            previous=0,
            report=report,
            proposal=proposal,
            decisions=Decisions(),
            workspace=workspace,
            config=config,
        )
        system = [
            {"type": "text", "text": feedback.system_prompt(config)},
            {"type": "text", "text": "<spec>...</spec>", "cache_control": {"type": "ephemeral"}},
        ]
        messages = with_cache_breakpoints([{"role": "user", "content": prompt}], 0)
        tree = read_tree(workspace)
        details = feedback.describe_failures(report, workspace, config)
        seen = feedback.seen_files(tree, proposal)
        needed = len(details) + sum(len(t) for p, t in tree.items() if p not in seen)
        uncached = uncached_text(system, messages)
        unnamed = [t for t in report.failing if not t.startswith("check:") and t not in uncached]
        assert not unnamed, f"suite {index}: failing tests not named: {unnamed}"
        return len(uncached) / needed, len(uncached) / sum(len(t) for t in tree.values())
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def shape(index: int) -> str:
    broken = ", collection error" if index % 6 == 5 else ""
    return STYLES[index % len(STYLES)].__name__.removesuffix("_tests") + broken


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--suites", type=int, default=24)
    args = parser.parse_args()
    os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    config = Config()
    config.checks.env_allow = ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"]
    measured = {index: measure(index, config) for index in range(args.suites)}
    ratios = {index: carried for index, (carried, _whole) in measured.items()}
    for name in sorted({shape(index) for index in ratios}):
        some = [ratio for index, ratio in ratios.items() if shape(index) == name]
        whole = [measured[index][1] for index in ratios if shape(index) == name]
        print(
            f"  {name}: {len(some)} suites, median {statistics.median(some):.2f}x, "
            f"max {max(some):.2f}x; against the workspace median "
            f"{statistics.median(whole):.2f}x, max {max(whole):.2f}x"
        )
    against_workspace = sorted(whole for _carried, whole in measured.values())
    print(
        f"uncached patch request / the whole workspace over {len(against_workspace)} suites: "
        f"median {statistics.median(against_workspace):.2f}x, max {against_workspace[-1]:.2f}x "
        "(target: median <= 1.0x, max <= 1.5x), every failing test named"
    )
    every = sorted(ratios.values())
    system = feedback.system_prompt(config)
    instructions = system[system.index("- After an attempt") :]
    print(
        f"uncached patch request / (failing-test details + changed files) over {len(every)} "
        f"suites: median {statistics.median(every):.2f}x, max {every[-1]:.2f}x "
        f"(target <= 1.5x); the feedback instructions take {len(instructions):,} of the "
        f"system prompt's {len(system):,} characters (cached)"
    )


if __name__ == "__main__":
    main()
