"""The Claude Code provider: the ``claude`` command line, run headless in a staging copy.

An attempt's first request runs ``claude -p PROMPT --output-format json`` in a temporary copy of
the workspace, with Claude Code's file tools only. What it wrote there is then handed to the
attempt as text editor ``create`` calls, one per new or changed file, so it goes into the
staging overlay and becomes a proposal reviewed hunk by hunk like any other; nothing reaches
the workspace before that. Claude Code's reported token usage and dollar cost are recorded.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from orch_tui.core.domain.cost import Usage
from orch_tui.core.domain.tools import EDITOR_TOOL_NAME as TOOL_NAME
from orch_tui.core.providers.base import AssistantTurn, ModelError, TextSink, TurnRequest

ALLOWED_TOOLS = "Read,Edit,MultiEdit,Write,Glob,Grep,LS"
"""Claude Code's file tools; no shell, so it cannot run anything or write outside the copy."""

INSTALL_HINT = (
    "install Claude Code (npm install -g @anthropic-ai/claude-code) and run `claude` once to log "
    "in, or choose another --provider"
)
SKIPPED_NAMES = frozenset({".git", "__pycache__", ".pytest_cache"})
HEADLESS_NOTE = (
    "\n\nYou are running headless in a copy of the project folder: edit the files there "
    "directly with your file tools. Your edits are reviewed before they are applied."
)


def _files(folder: Path) -> Iterator[tuple[str, Path]]:
    """Regular files under ``folder`` (symlinks and tool caches left out), by posix path."""
    for path in sorted(folder.rglob("*")):
        relative = path.relative_to(folder)
        if SKIPPED_NAMES.intersection(relative.parts) or path.is_symlink() or not path.is_file():
            continue
        yield relative.as_posix(), path


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "\n\n".join(block.get("text", "") for block in content if block.get("type") == "text")


class ClaudeCodeProvider:
    """Answers an attempt's first request by running ``claude`` headless in a workspace copy."""

    name = "claude-code"
    reports_cost = True
    """Each answer carries what it cost (the engine counts that against a budget, no price)."""

    def __init__(self, workspace: Path, *, executable: str = "claude", timeout_s: float = 600.0):
        self._workspace = workspace
        self._executable = executable
        self._timeout_s = timeout_s

    def complete(self, request: TurnRequest, on_text: TextSink) -> AssistantTurn:
        if len(request.messages) > 1:
            # The edits went into the staging overlay; the attempt is over.
            return AssistantTurn(
                [{"type": "text", "text": "Done."}], "end_turn", model=request.model
            )
        with tempfile.TemporaryDirectory(prefix="orch-claude-code-") as scratch:
            copy = Path(scratch) / "workspace"
            if self._workspace.is_dir():
                shutil.copytree(self._workspace, copy, symlinks=True)
            else:
                copy.mkdir()
            before = {name: path.read_bytes() for name, path in _files(copy)}
            result = self._run(request, copy)
            edits = [
                (name, path.read_bytes())
                for name, path in _files(copy)
                if before.get(name) != path.read_bytes()
            ]
        text = str(result.get("result") or "")
        if text:
            on_text(text)
        content: list[dict[str, Any]] = [{"type": "text", "text": text}] if text else []
        content += [_create(index, name, data) for index, (name, data) in enumerate(edits)]
        if not content:
            content = [{"type": "text", "text": "Claude Code made no changes."}]
        return AssistantTurn(
            content=content,
            stop_reason="tool_use" if edits else "end_turn",
            usage=Usage.from_json(result.get("usage")),
            model=request.model,
            cost_usd=float(result.get("total_cost_usd") or 0.0),
        )

    def _run(self, request: TurnRequest, folder: Path) -> dict[str, Any]:
        prompt = _text_of(request.messages[0]["content"])
        command = [
            self._executable,
            "-p",
            prompt,
            "--output-format",
            "json",
            "--model",
            request.model,
            "--append-system-prompt",
            _text_of(request.system) + HEADLESS_NOTE,
            "--permission-mode",
            "acceptEdits",
            "--allowedTools",
            ALLOWED_TOOLS,
        ]
        try:
            done = subprocess.run(
                command,
                cwd=folder,
                stdin=subprocess.DEVNULL,
                capture_output=True,
                text=True,
                timeout=self._timeout_s,
            )
        except FileNotFoundError:
            raise ModelError(
                f"the {self._executable!r} command is not installed", INSTALL_HINT
            ) from None
        except subprocess.TimeoutExpired:
            raise ModelError(
                f"claude did not finish within {self._timeout_s:g} s",
                "raise model.timeout_seconds, or run the same command again",
            ) from None
        try:
            result = json.loads(done.stdout)
        except json.JSONDecodeError:
            result = None
        if not isinstance(result, dict):
            detail = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["no output"]
            raise ModelError(
                f"claude exited with {done.returncode} without a JSON result: {detail[0]}",
                "run `claude` once by hand to check that it is logged in",
            )
        if result.get("is_error") or done.returncode != 0:
            raise ModelError(
                f"claude reported an error ({result.get('subtype', done.returncode)}): "
                f"{result.get('result') or done.stderr.strip()}",
                "run `claude` once by hand to check that it is logged in",
            )
        return result


def _create(index: int, name: str, data: bytes) -> dict[str, Any]:
    return {
        "type": "tool_use",
        "id": f"claude_code_{index}",
        "name": TOOL_NAME,
        "input": {"command": "create", "path": name, "file_text": data.decode("utf-8", "replace")},
    }
