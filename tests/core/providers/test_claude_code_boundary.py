"""ClaudeCodeProvider against a fake ``claude`` written by each test: a spec larger than an
argument may be, binary files, deletions, a child left holding stdout, impossible figures."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from orch_tui.core.providers.base import ModelError, TurnRequest
from orch_tui.core.providers.claude_code import ClaudeCodeProvider

RESULT = {
    "type": "result",
    "subtype": "success",
    "is_error": False,
    "result": "Done.",
    "total_cost_usd": 0.01,
    "usage": {"input_tokens": 10, "output_tokens": 5},
}


def fake_claude(tmp_path: Path, body: str, result: dict[str, Any] | None = None) -> str:
    """A ``claude`` that records its argv and stdin, runs ``body`` (Python) where it is started,
    then prints ``result`` as its JSON answer."""
    script = tmp_path / "claude"
    script.write_text(
        f"#!{sys.executable}\n"
        "import json, os, subprocess, sys\n"
        "from pathlib import Path\n"
        f"record = Path({str(tmp_path / 'call.json')!r})\n"
        "record.write_text(json.dumps({'argv': sys.argv[1:], 'stdin': sys.stdin.read()}))\n"
        f"{body}\n"
        f"print({json.dumps(result or RESULT)!r})\n"
    )
    script.chmod(0o755)
    return str(script)


def request(spec: str = "the spec", prompt: str = "Build the project.") -> TurnRequest:
    return TurnRequest(
        model="sonnet",
        system=[{"type": "text", "text": spec}],
        tools=[],
        messages=[{"role": "user", "content": [{"type": "text", "text": prompt}]}],
        max_tokens=1000,
    )


def provider(tmp_path: Path, executable: str, timeout_s: float = 60.0) -> ClaudeCodeProvider:
    workspace = tmp_path / "workspace"
    workspace.mkdir(exist_ok=True)
    return ClaudeCodeProvider(workspace, executable=executable, timeout_s=timeout_s)


def test_a_spec_larger_than_an_argument_goes_in_on_stdin(tmp_path: Path) -> None:
    spec = "# big\n" + "A requirement of the project, stated at length.\n" * 3000  # 144 KB
    claude = fake_claude(tmp_path, "")

    turn = provider(tmp_path, claude).complete(request(spec=spec), lambda _: None)

    call = json.loads((tmp_path / "call.json").read_text())
    assert spec in call["stdin"] and "Build the project." in call["stdin"]
    assert sum(map(len, call["argv"])) < 4096
    assert turn.content[0] == {"type": "text", "text": "Done."}


def test_a_binary_file_is_never_turned_into_text(tmp_path: Path) -> None:
    original = bytes(range(256))
    claude = fake_claude(
        tmp_path,
        "Path('blob.bin').write_bytes(bytes(reversed(range(256))))\n"
        "Path('new.bin').write_bytes(b'\\xff\\xfe\\x00')\n"
        "Path('app.py').write_text('x = 1\\n')",
    )
    chooser = provider(tmp_path, claude)
    (tmp_path / "workspace" / "blob.bin").write_bytes(original)

    turn = chooser.complete(request(), lambda _: None)

    created = [b["input"]["path"] for b in turn.content if b["type"] == "tool_use"]
    assert created == ["app.py"]
    note = turn.content[0]["text"]
    assert "binary file blob.bin" in note and "binary file new.bin" in note
    assert (tmp_path / "workspace" / "blob.bin").read_bytes() == original


def test_a_deletion_is_handed_on_as_a_delete_call(tmp_path: Path) -> None:
    claude = fake_claude(tmp_path, "Path('old.py').unlink()")
    chooser = provider(tmp_path, claude)
    (tmp_path / "workspace" / "old.py").write_text("gone = True\n")

    turn = chooser.complete(request(), lambda _: None)

    calls = [b["input"] for b in turn.content if b["type"] == "tool_use"]
    assert calls == [{"command": "delete", "path": "old.py"}]
    assert turn.stop_reason == "tool_use"
    assert (tmp_path / "workspace" / "old.py").exists()  # nothing reaches it before review


def test_a_child_left_holding_stdout_neither_stalls_nor_outlives_the_answer(
    tmp_path: Path,
) -> None:
    pid_file = tmp_path / "child.pid"
    claude = fake_claude(
        tmp_path,
        "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(300)'])\n"
        f"Path({str(pid_file)!r}).write_text(str(child.pid))",
    )
    started = time.monotonic()

    turn = provider(tmp_path, claude, timeout_s=60).complete(request(), lambda _: None)

    assert time.monotonic() - started < 20
    assert turn.content[0]["text"] == "Done."
    child = int(pid_file.read_text())
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and _alive(child):
        time.sleep(0.05)
    assert not _alive(child)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    status = Path(f"/proc/{pid}/stat").read_text().split(") ")[-1]
    return not status.startswith("Z")


@pytest.mark.parametrize(
    ("field", "value"),
    [("total_cost_usd", -5.0), ("total_cost_usd", "free"), ("total_cost_usd", None)]
    + [("usage", {"input_tokens": -1}), ("usage", {"output_tokens": 2.5})],
)
def test_an_impossible_cost_or_usage_is_a_model_error(
    tmp_path: Path, field: str, value: object
) -> None:
    claude = fake_claude(tmp_path, "", {**RESULT, field: value})

    with pytest.raises(ModelError) as caught:
        provider(tmp_path, claude).complete(request(), lambda _: None)

    assert "claude reported an impossible usage figure" in caught.value.message
