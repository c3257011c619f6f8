"""Driving a real terminal: the installed orch-tui inside a private tmux server.

Each session gets its own server socket (``tmux -L``), so tests never see each
other's panes; ``wait_for`` polls ``capture-pane`` until the text shows up or a
deadline passes, and says what the screen held when it did not.
"""

from __future__ import annotations

import shlex
import shutil
import subprocess
import time
import uuid
from collections.abc import Mapping
from pathlib import Path

import pytest


class TmuxSession:
    def __init__(self, width: int = 160, height: int = 48) -> None:
        if shutil.which("tmux") is None:
            pytest.fail("tmux is not installed (Debian package: tmux)", pytrace=False)
        self.socket = f"orch-test-{uuid.uuid4().hex[:10]}"
        self.width = width
        self.height = height

    def _tmux(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["tmux", "-L", self.socket, *args], capture_output=True, text=True, check=False
        )

    def start(self, command: list[str], cwd: Path, env: Mapping[str, str]) -> None:
        """Run ``command`` in a new window, with exactly ``env`` (plus TERM from tmux)."""
        assignments = " ".join(f"{key}={shlex.quote(value)}" for key, value in env.items())
        line = f"cd {shlex.quote(str(cwd))} && exec env -i {assignments} {shlex.join(command)}"
        result = self._tmux(
            "new-session", "-d", "-s", "main", "-x", str(self.width), "-y", str(self.height), line
        )
        assert result.returncode == 0, result.stderr

    def keys(self, *keys: str) -> None:
        """tmux key names: "Enter", "Escape", "C-s", or literal text."""
        for key in keys:
            self._tmux("send-keys", "-t", "main", key)

    def type(self, text: str) -> None:
        self._tmux("send-keys", "-t", "main", "-l", text)

    def screen(self) -> str:
        return self._tmux("capture-pane", "-p", "-t", "main").stdout

    def wait_for(self, text: str, timeout: float = 30.0) -> str:
        deadline = time.monotonic() + timeout
        screen = ""
        while time.monotonic() < deadline:
            screen = self.screen()
            if text in screen:
                return screen
            time.sleep(0.1)
        raise AssertionError(f"{text!r} did not appear within {timeout} s; the screen:\n{screen}")

    def wait_gone(self, text: str, timeout: float = 30.0) -> str:
        deadline = time.monotonic() + timeout
        screen = ""
        while time.monotonic() < deadline:
            screen = self.screen()
            if text not in screen:
                return screen
            time.sleep(0.1)
        raise AssertionError(f"{text!r} was still on screen after {timeout} s:\n{screen}")

    def close(self) -> None:
        self._tmux("kill-server")
