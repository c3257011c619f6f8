"""The Claude Code provider: the ``claude`` command line, run headless in a staging copy.

An attempt's first request runs ``claude -p --output-format json`` in a temporary copy of the
workspace, with Claude Code's file tools only. The instructions and the prompt go in on stdin
(a spec can be larger than an argument may be), its output goes to files, and it runs in a
process group of its own, ended once ``claude`` exits or its time is up, so a child it leaves
behind holding stdout neither stalls the run nor outlives it.

What it wrote is handed to the attempt as text editor ``create`` calls, one per new or changed
text file, and ``delete`` calls, one per file it removed, so it goes into the staging overlay
and becomes a proposal reviewed hunk by hunk like any other; nothing reaches the workspace
before that. Binary files cannot ride in a text proposal: they are never turned into text (a
binary file stays byte for byte as it was) and the answer names each one, so the person sees
what Claude Code wanted. Claude
Code's reported token usage and dollar cost are checked (:mod:`core.providers.figures`) and
recorded.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from orch_tui.core.domain.tools import CLAUDE_CODE_TOOLS as ALLOWED_TOOLS
from orch_tui.core.domain.tools import EDITOR_TOOL_NAME as TOOL_NAME
from orch_tui.core.providers.base import AssistantTurn, ModelError, TextSink, TurnRequest
from orch_tui.core.providers.figures import reported_cost, reported_usage
from orch_tui.core.util.records import record

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
            result = self._run(request, copy, Path(scratch))
            edits = _Edits.between(before, {name: p.read_bytes() for name, p in _files(copy)})
        usage = reported_usage("claude", result.get("usage"))
        cost = reported_cost("claude", result.get("total_cost_usd"))
        text = "\n\n".join(part for part in (str(result.get("result") or ""), edits.note()) if part)
        if text:
            on_text(text)
        content: list[dict[str, Any]] = [{"type": "text", "text": text}] if text else []
        content += [_create(index, name, data) for index, (name, data) in enumerate(edits.text)]
        content += [
            _delete(index, name) for index, name in enumerate(edits.deleted, len(edits.text))
        ]
        if not content:
            content = [{"type": "text", "text": "Claude Code made no changes."}]
        return AssistantTurn(
            content=content,
            stop_reason="tool_use" if edits.text or edits.deleted else "end_turn",
            usage=usage,
            model=request.model,
            cost_usd=cost,
        )

    def _run(self, request: TurnRequest, folder: Path, scratch: Path) -> dict[str, Any]:
        instructions = _text_of(request.system)
        # The prompts name the workspace as /workspace (the editor tool's root); here it is
        # the folder claude runs in.
        prompt = _text_of(request.messages[0]["content"]).replace("/workspace", str(folder))
        stdin_text = f"{instructions}\n\n---\n\n{prompt}" if instructions else prompt
        command = [
            self._executable,
            "-p",
            "--output-format",
            "json",
            "--model",
            request.model,
            "--append-system-prompt",
            HEADLESS_NOTE.strip(),
            "--permission-mode",
            "acceptEdits",
            "--allowedTools",
            ALLOWED_TOOLS,
        ]
        returncode, stdout, stderr = self._execute(command, folder, scratch, stdin_text)
        try:
            result = json.loads(stdout)
        except json.JSONDecodeError:
            result = None
        if not isinstance(result, dict):
            detail = (stderr or stdout).strip().splitlines()[-1:] or ["no output"]
            raise ModelError(
                f"claude exited with {returncode} without a JSON result: {detail[0]}",
                "run `claude` once by hand to check that it is logged in",
            )
        if result.get("is_error") or returncode != 0:
            raise ModelError(
                f"claude reported an error ({result.get('subtype', returncode)}): "
                f"{result.get('result') or stderr.strip()}",
                "run `claude` once by hand to check that it is logged in",
            )
        return result

    def _execute(
        self, command: list[str], folder: Path, scratch: Path, stdin_text: str
    ) -> tuple[int, str, str]:
        """Run ``command`` in its own process group, the prompt on stdin and its output in
        files; the group is ended when ``claude`` exits or its time is up."""
        prompt_file = scratch / "prompt.txt"
        prompt_file.write_text(stdin_text, encoding="utf-8")
        with (
            prompt_file.open("rb") as stdin,
            (scratch / "stdout").open("w+b") as out,
            (scratch / "stderr").open("w+b") as err,
        ):
            try:
                process = subprocess.Popen(
                    command, cwd=folder, stdin=stdin, stdout=out, stderr=err, start_new_session=True
                )
            except FileNotFoundError:
                raise ModelError(
                    f"the {self._executable!r} command is not installed", INSTALL_HINT
                ) from None
            try:
                returncode = process.wait(timeout=self._timeout_s)
            except subprocess.TimeoutExpired:
                raise ModelError(
                    f"claude did not finish within {self._timeout_s:g} s",
                    "raise model.timeout_seconds, or run the same command again",
                ) from None
            finally:
                _end_group(process)
            return returncode, _read(out), _read(err)


def _end_group(process: subprocess.Popen[bytes]) -> None:
    """Kill what is left of the process group ``process`` leads, then reap ``process``."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass  # nothing of the group is left
    process.wait()


def _read(stream: IO[bytes]) -> str:
    stream.seek(0)
    return stream.read().decode("utf-8", "replace")


@record
class _Edits:
    """What Claude Code did to the copy: text files and deletions to propose, and binary files,
    which cannot be proposed."""

    text: list[tuple[str, str]]
    binary: list[str]
    deleted: list[str]

    @classmethod
    def between(cls, before: dict[str, bytes], after: dict[str, bytes]) -> _Edits:
        edits = cls([], [], sorted(set(before) - set(after)))
        for name, data in after.items():
            if before.get(name) == data:
                continue
            try:
                edits.text.append((name, data.decode("utf-8")))
            except UnicodeDecodeError:
                edits.binary.append(name)
        return edits

    def note(self) -> str:
        """What the proposal cannot carry, said for the person ("" when nothing)."""
        return "\n".join(
            f"Claude Code changed the binary file {name}; binary files cannot be proposed, so "
            "it stays as it was."
            for name in self.binary
        )


def _create(index: int, name: str, text: str) -> dict[str, Any]:
    return _tool_use(index, {"command": "create", "path": name, "file_text": text})


def _delete(index: int, name: str) -> dict[str, Any]:
    return _tool_use(index, {"command": "delete", "path": name})


def _tool_use(index: int, tool_input: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "tool_use",
        "id": f"claude_code_{index}",
        "name": TOOL_NAME,
        "input": tool_input,
    }
