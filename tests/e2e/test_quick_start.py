"""The README's first command, run literally, as a new user on a machine without bubblewrap.

The command is read from README.md the way a person reads it (the first line of the first
```sh block under "## Quick start") and run with ``sh -c`` inside a fresh ``git clone`` of this
checkout (its committed HEAD: uncommitted changes are not in the clone), with a PATH that holds
every program of /usr/local/bin, /usr/bin and /bin except ``bwrap``, and no API key or active
virtual environment. It must end in SUCCESS with the demo-replay notice, exit 0.

Most laptops have no bubblewrap (no Mac has), so there the demo's checks run unconfined, right
under the clone's own ``pyproject.toml``: the test proves they take no settings from it.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
BIN_FOLDERS = ("/usr/local/bin", "/usr/bin", "/bin")
# Variables a new user's shell would not have: keys (the demo replays without one), the
# virtual environment this suite runs in, and what this suite's own pytest sets.
DROPPED = ("ANTHROPIC_", "OPENAI_", "VIRTUAL_ENV", "PYTEST_", "PYTHONPATH", "PYTHONHOME")


def quick_start_command(readme: str) -> str:
    """The first line of the first ```sh block under "## Quick start"."""
    section = readme.split("\n## Quick start\n", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"^```sh\n(.*?)^```", section, flags=re.MULTILINE | re.DOTALL)
    assert block is not None, 'no ```sh block under "## Quick start"'
    return block.group(1).splitlines()[0]


def path_without_bwrap(folder: Path) -> str:
    """A PATH of one folder: symlinks to every program of BIN_FOLDERS but ``bwrap``."""
    folder.mkdir()
    for source in BIN_FOLDERS:
        if not os.path.isdir(source):
            continue
        for entry in sorted(os.listdir(source)):
            link = folder / entry
            if entry != "bwrap" and not os.path.lexists(link):
                link.symlink_to(os.path.join(source, entry))
    path = str(folder)
    assert shutil.which("bwrap", path=path) is None
    return path


def new_user_env(path: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(DROPPED)}
    env["PATH"] = path
    return env


def first_check_output(clone: Path) -> str:
    """The first attempt's check output, which says why a check failed."""
    outputs = sorted(clone.glob("logs/*/attempt-*/test-output.txt"))
    if not outputs:
        return "(no check output in logs/)"
    lines = outputs[0].read_text(encoding="utf-8", errors="replace").splitlines()
    return f"{outputs[0].relative_to(clone)}:\n" + "\n".join(lines[:20])


def test_quick_start_command_is_one_line_that_installs_and_runs_the_demo() -> None:
    command = quick_start_command((ROOT / "README.md").read_text(encoding="utf-8"))
    assert "pip install" in command
    assert "orch-tui core/demo/spec.md --auto" in command


@pytest.mark.timeout(1800)
def test_readme_quick_start_succeeds_in_a_fresh_clone_without_bubblewrap(tmp_path: Path) -> None:
    clone = tmp_path / "orch-tui"
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(clone)], check=True, timeout=300)
    command = quick_start_command((clone / "README.md").read_text(encoding="utf-8"))

    result = subprocess.run(
        ["/bin/sh", "-c", command],
        cwd=clone,
        env=new_user_env(path_without_bwrap(tmp_path / "bin")),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=1700,
    )

    tail = "\n".join(result.stdout.splitlines()[-40:])
    assert result.returncode == 0, (
        f"$ {command}\nexit {result.returncode}\n{tail}\n{first_check_output(clone)}"
    )
    assert "replaying the bundled demo" in result.stdout, tail
    assert "SUCCESS" in result.stdout, tail
