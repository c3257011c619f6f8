"""Real batch folders for the inbox's tests: ``orch-tui batch`` run on the scripted provider.

Every spec's run writes the same three files in its first attempt (``calc.py``, ``extra.py``
and ``tests/test_calc.py``: three hunks, each a new file), and its tests pass. A run sent back
from the inbox gets the script's second attempt: ``extra.py`` rewritten.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.support.e2e_support import (
    FAST_CONFIG,
    attempt_turns,
    child_env,
    orch_tui,
    write_attempts_script,
)

CALC = "def add(a, b):\n    return a + b\n"
EXTRA = "def unwanted():\n    return 'the model wrote more than asked'\n"
EXTRA_AGAIN = "def wanted():\n    return 'as the person asked'\n"
TEST = "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"
SPECS = ("one", "two")


def make_batch_project(root: Path, specs: tuple[str, ...] = SPECS) -> Path:
    """A project with ``specs/<name>.md`` and a script the batch's runs replay."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "orchestrator.toml").write_text(FAST_CONFIG, encoding="utf-8")
    (root / "specs").mkdir(exist_ok=True)
    for name in specs:
        (root / "specs" / f"{name}.md").write_text(
            f"# {name}\n\n`calc.py` with `add(a, b)`, and a test.\n", encoding="utf-8"
        )
    write_attempts_script(
        root / "script.json",
        [
            attempt_turns(
                "Writing it.",
                [
                    ("create", "calc.py", CALC),
                    ("create", "extra.py", EXTRA),
                    ("create", "tests/test_calc.py", TEST),
                ],
            ),  # fmt: skip
            attempt_turns("Reworking extra.py.", [("create", "extra.py", EXTRA_AGAIN)]),
        ],
    )
    return root


def run_batch(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``orch-tui batch specs`` on the scripted provider, two at a time; it must succeed."""
    done = subprocess.run(
        [orch_tui(), "batch", "specs", "--jobs", "2", "--provider", "scripted",
         "--script", "script.json", *args],
        cwd=root, env=child_env(), capture_output=True, text=True, timeout=240,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    return done


def batch_project(root: Path) -> Path:
    """A project whose batch has run (each run's state names its folder: no copying)."""
    run_batch(make_batch_project(root))
    return root
