"""The patch prompt's size against what it must carry, over generated suites (by hand).

    python bench/bench_patch_prompt.py [--suites 24]

Each suite is a generated project of a different shape (plain functions, unittest classes,
parametrized tests, 50+ tests, a collection error, several modules) whose tests really run
under pytest, as the engine runs them. The model's last proposal created every file; in
every other suite the reviewer edited one module before it landed. The patch prompt is the
uncached part of a patch request (tools, system prompt and spec are the cached prefix); it
is measured against what it has to carry: the failing-test details plus the files that
changed since the model last saw them. Prints the median and max of that ratio, in
characters (tokens are about a quarter of them), and the same ratio for the prompt as it
was before (every file in full, the raw output untrimmed).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from orch_tui.core import feedback  # noqa: E402
from orch_tui.core.config import Config  # noqa: E402
from orch_tui.core.proposal import Decisions, FileChange, Proposal  # noqa: E402
from orch_tui.core.verify import run_configured  # noqa: E402
from orch_tui.core.workspace import read_tree  # noqa: E402


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


STYLES = [plain_tests, unittest_tests, parametrized_tests]


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


def measure(index: int, config: Config) -> tuple[float, float]:
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

        def prompt() -> str:
            return feedback.patch_prompt(
                previous=0,
                report=report,
                proposal=proposal,
                decisions=Decisions(),
                workspace=workspace,
                config=config,
            )

        tree = read_tree(workspace)
        details = feedback.describe_failures(report, workspace, config)
        seen = feedback.seen_files(tree, proposal)
        needed = len(details) + sum(len(t) for p, t in tree.items() if p not in seen)
        now = len(prompt())
        trimming, seen_rule = feedback.without_repeated_lines, feedback.seen_files
        feedback.without_repeated_lines = lambda output, details: output
        feedback.seen_files = lambda tree, proposal: set()
        try:
            before = len(prompt())
        finally:
            feedback.without_repeated_lines, feedback.seen_files = trimming, seen_rule
        return now / needed, before / needed
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--suites", type=int, default=24)
    args = parser.parse_args()
    os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    config = Config()
    config.checks.env_allow = ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"]
    ratios = [measure(index, config) for index in range(args.suites)]
    now = sorted(r[0] for r in ratios)
    before = sorted(r[1] for r in ratios)
    print(
        f"patch prompt / (failing-test details + changed files) over {len(ratios)} suites: "
        f"median {statistics.median(now):.2f}x, max {now[-1]:.2f}x (target <= 1.5x); "
        f"before: median {statistics.median(before):.2f}x, max {before[-1]:.2f}x"
    )


if __name__ == "__main__":
    main()
