"""The editor tool's ``cat -n`` snippets after an edit, against the whole file numbered.

The snippet is cut from around the edit without splitting the file, so these check it
line for line against the file's full ``cat -n`` over many edits and random texts.
"""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from orch_tui.core.attempt.editor_tool import SNIPPET_CONTEXT_LINES, EditorTool
from orch_tui.core.workspace.staging import Staging

REPLACED = "Successfully replaced text at exactly one location.\n"


def numbered(text: str, first: int, count: int) -> str:
    """Reference: lines ``first``..``first + count - 1`` and the context either side,
    ``cat -n`` style, cut from the whole file split into lines."""
    lines = text.removesuffix("\n").split("\n")
    start = max(1, first - SNIPPET_CONTEXT_LINES)
    end = min(len(lines), first + count - 1 + SNIPPET_CONTEXT_LINES)
    return "\n".join(f"{n:6}\t{lines[n - 1]}" for n in range(start, end + 1))


def replace_snippet(path: str, outcome_text: str) -> str:
    head = f"{REPLACED}Here's the result of running `cat -n` on a snippet of {path}:\n"
    assert outcome_text.startswith(head)
    return outcome_text[len(head) :].removesuffix("\n")


def test_many_sequential_edits_to_a_big_file(tmp_path: Path) -> None:
    lines = [f"line {i} = {i}\n" for i in range(3000)]
    (tmp_path / "big.py").write_text("".join(lines))
    tool = EditorTool(Staging(tmp_path))
    expected = list(lines)
    # One-line edits all over the file (the first, the last, near both ends), then
    # edits that add and remove lines, so later line numbers shift.
    for index in [0, 1, 2, 3, 4, 5, 1500, 2995, 2996, 2997, 2998, 2999, *range(7, 2990, 73)]:
        old, new = expected[index], expected[index].replace(" = ", " == ")
        outcome = tool.run(
            {"command": "str_replace", "path": "big.py", "old_str": old, "new_str": new}
        )
        expected[index] = new
        text = "".join(expected)
        assert replace_snippet("big.py", outcome.content) == numbered(text, index + 1, 2)
    for index in (10, 500, 2990):
        old = expected[index] + expected[index + 1]
        new = f"added {index}\n" * 3
        outcome = tool.run(
            {"command": "str_replace", "path": "big.py", "old_str": old, "new_str": new}
        )
        expected[index : index + 2] = [f"added {index}\n"] * 3
        text = "".join(expected)
        assert replace_snippet("big.py", outcome.content) == numbered(text, index + 1, 4)
    removed = expected[-1]
    outcome = tool.run({"command": "str_replace", "path": "big.py", "old_str": removed})
    expected.pop()
    text = "".join(expected)
    assert replace_snippet("big.py", outcome.content) == numbered(text, len(expected) + 1, 1)
    assert tool.staging.read("big.py") == text


LINE = st.text(alphabet="ab \t", max_size=4)


@settings(max_examples=300, deadline=None)
@given(
    lines=st.lists(LINE, min_size=1, max_size=14),
    final_newline=st.booleans(),
    at=st.integers(min_value=0, max_value=13),
    new_str=st.text(alphabet="xy\n", max_size=6),
    whole_lines=st.booleans(),
)
def test_str_replace_snippet_matches_the_numbered_file(
    tmp_path_factory,
    lines: list[str],
    final_newline: bool,
    at: int,
    new_str: str,
    whole_lines: bool,
) -> None:
    root = tmp_path_factory.mktemp("ws")
    at %= len(lines)
    lines[at] = f"<{at}>{lines[at]}"  # a unique marker to replace
    text = "\n".join(lines) + ("\n" if final_newline else "")
    (root / "f.txt").write_text(text)
    old_str = f"<{at}>"
    if whole_lines and at + 1 < len(lines):  # the marker's line and the next one, newline included
        old_str = f"<{at}>{lines[at][len(old_str) :]}\n{lines[at + 1]}"
    start = text.index(old_str)
    outcome = EditorTool(Staging(root)).run(
        {"command": "str_replace", "path": "f.txt", "old_str": old_str, "new_str": new_str}
    )
    new_text = text[:start] + new_str + text[start + len(old_str) :]
    first = text.count("\n", 0, start) + 1
    assert replace_snippet("f.txt", outcome.content) == numbered(
        new_text, first, new_str.count("\n") + 1
    )


@settings(max_examples=200, deadline=None)
@given(
    lines=st.lists(LINE, max_size=12),
    final_newline=st.booleans(),
    at=st.integers(min_value=0, max_value=12),
    inserted=st.text(alphabet="xy\n", min_size=1, max_size=6),
)
def test_insert_snippet_matches_the_numbered_file(
    tmp_path_factory, lines: list[str], final_newline: bool, at: int, inserted: str
) -> None:
    root = tmp_path_factory.mktemp("ws")
    text = "\n".join(lines) + ("\n" if final_newline and lines else "")
    (root / "f.txt").write_text(text)
    at = min(at, len(text.splitlines()))
    tool = EditorTool(Staging(root))
    outcome = tool.run(
        {"command": "insert", "path": "f.txt", "insert_line": at, "insert_text": inserted}
    )
    new_text = tool.staging.read("f.txt")
    assert new_text is not None
    head = (
        "The file f.txt has been edited. Here's the result of running `cat -n` on a "
        "snippet of the edited file:\n"
    )
    assert outcome.content.startswith(head)
    shown = outcome.content[len(head) :].removesuffix("\n")
    count = inserted.count("\n") + (0 if inserted.endswith("\n") else 1)
    assert shown == numbered(new_text, at + 1, max(1, count))
