"""Claude's text editor tool over a staging overlay: every command and every error path."""

from __future__ import annotations

from pathlib import Path

import pytest

from orch_tui.core.attempt.editor_tool import EditorTool, ToolOutcome
from orch_tui.core.domain.tools import EDITOR_TOOL as TOOL_DEFINITION
from orch_tui.core.domain.tools import EDITOR_TOOL_NAME as TOOL_NAME
from orch_tui.core.workspace.boundary import SafetyViolation
from orch_tui.core.workspace.staging import Staging


@pytest.fixture
def root(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    (ws / "pkg").mkdir(parents=True)
    (ws / "pkg" / "mod.py").write_text("one\ntwo\nthree\n")
    (ws / "dup.py").write_text("x = 1\nx = 1\nx = 1\n")
    return ws


@pytest.fixture
def staging(root: Path) -> Staging:
    return Staging(root, protected=["tests/test_spec_*.py"])


@pytest.fixture
def tool(staging: Staging) -> EditorTool:
    return EditorTool(staging)


def ok(outcome: ToolOutcome) -> str:
    assert not outcome.is_error, outcome.content
    return outcome.content


def err(outcome: ToolOutcome) -> str:
    assert outcome.is_error, outcome.content
    return outcome.content


def test_tool_definition_is_the_claude_4_text_editor() -> None:
    assert TOOL_DEFINITION == {"type": "text_editor_20250728", "name": TOOL_NAME}
    assert TOOL_NAME == "str_replace_based_edit_tool"


# --- view --------------------------------------------------------------------------------


def test_view_file_numbers_lines_like_cat_n(tool: EditorTool) -> None:
    outcome = tool.run({"command": "view", "path": "/workspace/pkg/mod.py"})
    assert outcome.command == "view" and outcome.path == "/workspace/pkg/mod.py"
    assert ok(outcome).splitlines()[1:] == ["     1\tone", "     2\ttwo", "     3\tthree"]


def test_view_range_and_minus_one_to_end(tool: EditorTool) -> None:
    two = ok(tool.run({"command": "view", "path": "pkg/mod.py", "view_range": [2, 2]}))
    assert two.splitlines()[1:] == ["     2\ttwo"]
    tail = ok(tool.run({"command": "view", "path": "pkg/mod.py", "view_range": [2, -1]}))
    assert tail.splitlines()[1:] == ["     2\ttwo", "     3\tthree"]


@pytest.mark.parametrize("bad", [[0, 2], [5, -1], [3, 2], [1], "1-2", [1, "2"], [True, 2]])
def test_bad_view_range_is_an_error(tool: EditorTool, bad: object) -> None:
    message = err(tool.run({"command": "view", "path": "pkg/mod.py", "view_range": bad}))
    assert "view_range" in message


def test_view_shows_staged_text(tool: EditorTool) -> None:
    ok(tool.run({"command": "create", "path": "new.py", "file_text": "staged\n"}))
    assert "     1\tstaged" in ok(tool.run({"command": "view", "path": "new.py"}))


def test_view_directory_lists_two_levels_with_staged_files(tool: EditorTool, root: Path) -> None:
    (root / "pkg" / "sub" / "deep").mkdir(parents=True)
    (root / "pkg" / "sub" / "deep" / "hidden_by_depth.py").write_text("")
    ok(tool.run({"command": "create", "path": "pkg/added.py", "file_text": ""}))
    listing = ok(tool.run({"command": "view", "path": "/workspace"})).splitlines()[1:]
    assert listing == ["dup.py", "pkg/", "pkg/added.py", "pkg/mod.py", "pkg/sub/"]


def test_view_range_on_a_directory_is_an_error(tool: EditorTool) -> None:
    assert "directory" in err(tool.run({"command": "view", "path": "pkg", "view_range": [1, 2]}))


def test_view_missing_file_is_file_not_found(tool: EditorTool) -> None:
    assert err(tool.run({"command": "view", "path": "nope.py"})).startswith("Error: File not found")


def test_view_binary_file_is_an_error(tool: EditorTool, root: Path) -> None:
    (root / "blob.bin").write_bytes(b"\xff\xfe\x00")
    assert "not a UTF-8 text file" in err(tool.run({"command": "view", "path": "blob.bin"}))


def test_view_clips_huge_output(staging: Staging, root: Path) -> None:
    (root / "big.txt").write_text("line\n" * 1000)
    content = ok(
        EditorTool(staging, max_view_chars=200).run({"command": "view", "path": "big.txt"})
    )
    assert "<response clipped>" in content
    assert len(content) < 500


# --- create ------------------------------------------------------------------------------


def test_create_stages_a_new_file_with_virtual_parents(tool: EditorTool, staging: Staging) -> None:
    content = ok(tool.run({"command": "create", "path": "a/b/c.py", "file_text": "x\r\ny\n"}))
    assert content == "File created successfully at: a/b/c.py"
    assert staging.read("a/b/c.py") == "x\r\ny\n"
    assert staging.is_dir("a/b")
    assert not (staging.root / "a").exists()


def test_create_over_an_existing_file_overwrites(tool: EditorTool, staging: Staging) -> None:
    content = ok(tool.run({"command": "create", "path": "pkg/mod.py", "file_text": "new\n"}))
    assert "overwritten" in content
    assert staging.read("pkg/mod.py") == "new\n"


def test_create_on_a_directory_is_an_error(tool: EditorTool) -> None:
    assert "directory" in err(tool.run({"command": "create", "path": "pkg", "file_text": "x"}))


def test_create_under_a_file_is_an_error(tool: EditorTool) -> None:
    message = err(tool.run({"command": "create", "path": "dup.py/x.py", "file_text": "x"}))
    assert "not a directory" in message


def test_create_huge_file_text_is_an_error(staging: Staging) -> None:
    tool = EditorTool(staging, max_file_bytes=1000)
    message = err(tool.run({"command": "create", "path": "big.py", "file_text": "x" * 1001}))
    assert "limit" in message
    assert staging.read("big.py") is None


@pytest.mark.parametrize("command", ["create", "view", "str_replace", "insert"])
@pytest.mark.parametrize(
    ("path", "words"),
    [("d/" + "é" * 120 + ".py", "name in the path is 243 bytes"), ("a/" * 2500, "5,000 bytes")],
    ids=["long-name", "long-path"],
)
def test_over_long_names_and_paths_are_editor_errors(
    tool: EditorTool, staging: Staging, command: str, path: str, words: str
) -> None:
    outcome = tool.run({"command": command, "path": path, "file_text": "x", "old_str": "x"})
    assert words in err(outcome)
    assert list(staging.to_proposal(0).files) == []


def test_a_name_at_the_limit_applies_to_disk(tool: EditorTool, staging: Staging) -> None:
    from orch_tui.core.attempt.editor_tool import MAX_NAME_BYTES
    from orch_tui.core.workspace.apply import apply_change

    name = "n" * (MAX_NAME_BYTES - 3) + ".py"
    ok(tool.run({"command": "create", "path": name, "file_text": "x\n"}))
    apply_change(staging.root, {name: "x\n"})
    assert (staging.root / name).read_text() == "x\n"


def test_create_without_file_text_is_a_missing_parameter(tool: EditorTool) -> None:
    assert err(tool.run({"command": "create", "path": "a.py"})) == (
        "Error: Parameter `file_text` is required for command: create"
    )


# --- str_replace -------------------------------------------------------------------------


def test_str_replace_unique_match(tool: EditorTool, staging: Staging) -> None:
    content = ok(
        tool.run({"command": "str_replace", "path": "pkg/mod.py", "old_str": "two", "new_str": "2"})
    )
    assert content.startswith("Successfully replaced text at exactly one location.")
    assert "     2\t2" in content
    assert staging.read("pkg/mod.py") == "one\n2\nthree\n"


def test_str_replace_new_str_defaults_to_empty(tool: EditorTool, staging: Staging) -> None:
    ok(tool.run({"command": "str_replace", "path": "pkg/mod.py", "old_str": "two\n"}))
    assert staging.read("pkg/mod.py") == "one\nthree\n"


def test_str_replace_no_match_uses_the_docs_wording(tool: EditorTool, staging: Staging) -> None:
    message = err(
        tool.run({"command": "str_replace", "path": "pkg/mod.py", "old_str": "four", "new_str": ""})
    )
    assert message == "Error: No match found for replacement. Please check your text and try again."
    assert list(staging.to_proposal(0).files) == []


def test_str_replace_several_matches_uses_the_docs_wording(tool: EditorTool) -> None:
    message = err(
        tool.run({"command": "str_replace", "path": "dup.py", "old_str": "x = 1", "new_str": "y"})
    )
    assert message == (
        "Error: Found 3 matches for replacement text. "
        "Please provide more context to make a unique match."
    )


def test_str_replace_counts_overlapping_matches(tool: EditorTool) -> None:
    ok(tool.run({"command": "create", "path": "a.txt", "file_text": "aaa"}))
    assert "Found 2 matches" in err(
        tool.run({"command": "str_replace", "path": "a.txt", "old_str": "aa", "new_str": "b"})
    )


def test_str_replace_keeps_crlf_when_the_model_sends_lf(
    tool: EditorTool, staging: Staging, root: Path
) -> None:
    (root / "win.txt").write_bytes(b"a\r\nb\r\nc\r\n")
    ok(
        tool.run(
            {"command": "str_replace", "path": "win.txt", "old_str": "a\nb", "new_str": "A\nB"}
        )
    )
    assert staging.read("win.txt") == "A\r\nB\r\nc\r\n"


def test_str_replace_missing_file_and_missing_old_str(tool: EditorTool) -> None:
    assert err(
        tool.run({"command": "str_replace", "path": "nope.py", "old_str": "a", "new_str": "b"})
    ).startswith("Error: File not found")
    assert err(tool.run({"command": "str_replace", "path": "pkg/mod.py", "new_str": "b"})) == (
        "Error: Parameter `old_str` is required for command: str_replace"
    )
    assert "must not be empty" in err(
        tool.run({"command": "str_replace", "path": "pkg/mod.py", "old_str": ""})
    )


# --- insert ------------------------------------------------------------------------------


@pytest.mark.parametrize("text_key", ["insert_text", "new_str"])
def test_insert_accepts_insert_text_and_new_str(
    tool: EditorTool, staging: Staging, text_key: str
) -> None:
    ok(tool.run({"command": "insert", "path": "pkg/mod.py", "insert_line": 1, text_key: "1.5\n"}))
    assert staging.read("pkg/mod.py") == "one\n1.5\ntwo\nthree\n"


def test_insert_at_top_and_at_end(tool: EditorTool, staging: Staging) -> None:
    ok(tool.run({"command": "insert", "path": "pkg/mod.py", "insert_line": 0, "insert_text": "0"}))
    ok(tool.run({"command": "insert", "path": "pkg/mod.py", "insert_line": 4, "insert_text": "4"}))
    assert staging.read("pkg/mod.py") == "0\none\ntwo\nthree\n4\n"


def test_insert_after_a_last_line_without_newline(tool: EditorTool, staging: Staging) -> None:
    ok(tool.run({"command": "create", "path": "n.txt", "file_text": "a\r\nb"}))
    ok(tool.run({"command": "insert", "path": "n.txt", "insert_line": 2, "insert_text": "c"}))
    assert staging.read("n.txt") == "a\r\nb\r\nc\r\n"


@pytest.mark.parametrize("line", [-1, 4 + 1])
def test_insert_line_out_of_range_is_an_error(tool: EditorTool, line: int) -> None:
    message = err(
        tool.run({"command": "insert", "path": "pkg/mod.py", "insert_line": line, "new_str": "x"})
    )
    assert message == (
        f"Error: Invalid `insert_line` parameter: {line}. "
        "It should be within the range of lines of the file: [0, 3]"
    )


def test_insert_missing_parameters(tool: EditorTool) -> None:
    assert "insert_line" in err(
        tool.run({"command": "insert", "path": "pkg/mod.py", "new_str": "x"})
    )
    assert "insert_text" in err(
        tool.run({"command": "insert", "path": "pkg/mod.py", "insert_line": 0})
    )
    assert "must be an integer" in err(
        tool.run({"command": "insert", "path": "pkg/mod.py", "insert_line": "1", "new_str": "x"})
    )
    assert err(
        tool.run({"command": "insert", "path": "nope.py", "insert_line": 0, "new_str": "x"})
    ).startswith("Error: File not found")


# --- commands, parameters, protection, safety ----------------------------------------------


def test_undo_edit_is_not_supported(tool: EditorTool) -> None:
    message = err(tool.run({"command": "undo_edit", "path": "pkg/mod.py"}))
    assert (
        "undo_edit" in message and "not supported" in message and "text_editor_20250728" in message
    )


def test_unknown_and_missing_command(tool: EditorTool) -> None:
    assert "Unrecognized command rename" in err(tool.run({"command": "rename", "path": "a.py"}))
    assert "`command` is required" in err(tool.run({"path": "a.py"}))
    assert "`path` is required" in err(tool.run({"command": "view"}))


@pytest.mark.parametrize(
    "tool_input",
    [
        {"command": "view", "path": 5},
        {"command": ["view"], "path": "a.py"},
        {"command": "create", "path": "a.py", "file_text": 12},
        {"command": "str_replace", "path": "pkg/mod.py", "old_str": ["two"], "new_str": "2"},
        {"command": "str_replace", "path": "pkg/mod.py", "old_str": "two", "new_str": 2},
        {"command": "insert", "path": "pkg/mod.py", "insert_line": 0, "insert_text": {"a": 1}},
    ],
)
def test_non_string_inputs_are_errors(tool: EditorTool, staging: Staging, tool_input) -> None:
    assert "must be a string" in err(tool.run(tool_input))
    assert list(staging.to_proposal(0).files) == []


@pytest.mark.parametrize(
    "tool_input",
    [
        {"command": "create", "path": ".git/config", "file_text": "x"},
        {"command": "create", "path": "/workspace/tests/test_spec_a.py", "file_text": "x"},
        {"command": "str_replace", "path": ".git/HEAD", "old_str": "a", "new_str": "b"},
        {"command": "insert", "path": "tests/test_spec_a.py", "insert_line": 0, "new_str": "x"},
    ],
)
def test_protected_paths_are_refused(tool: EditorTool, staging: Staging, tool_input) -> None:
    assert (
        err(tool.run(tool_input))
        == f"Error: {tool_input['path']} is protected and cannot be edited"
    )
    assert list(staging.to_proposal(0).files) == []


@pytest.mark.parametrize(
    "tool_input",
    [
        {"command": "view", "path": "/etc/passwd"},
        {"command": "view", "path": "../"},
        {"command": "create", "path": "/workspace/../x.py", "file_text": "x"},
        {"command": "str_replace", "path": "a/../../x", "old_str": "a", "new_str": "b"},
        {"command": "insert", "path": "../x", "insert_line": 0, "new_str": "x"},
    ],
)
def test_paths_outside_the_workspace_raise(tool: EditorTool, root: Path, tool_input) -> None:
    with pytest.raises(SafetyViolation):
        tool.run(tool_input)
    assert not (root.parent / "x.py").exists() and not (root.parent / "x").exists()


def test_editing_never_touches_disk(tool: EditorTool, root: Path) -> None:
    before = {p: p.read_bytes() for p in root.rglob("*") if p.is_file()}
    ok(tool.run({"command": "create", "path": "new.py", "file_text": "x"}))
    ok(tool.run({"command": "str_replace", "path": "pkg/mod.py", "old_str": "two", "new_str": "2"}))
    ok(tool.run({"command": "insert", "path": "dup.py", "insert_line": 0, "new_str": "# hi"}))
    assert {p: p.read_bytes() for p in root.rglob("*") if p.is_file()} == before


# --- delete (what Claude Code removed, handed on by its provider) -------------------------------


def test_delete_stages_the_removal_as_a_deleted_file_in_the_proposal(
    tool: EditorTool, staging: Staging, root: Path
) -> None:
    assert ok(tool.run({"command": "delete", "path": "/workspace/pkg/mod.py"})) == (
        "File deleted successfully at: /workspace/pkg/mod.py"
    )
    assert (root / "pkg" / "mod.py").exists()  # nothing reaches disk before review
    assert not staging.exists("pkg/mod.py") and staging.read("pkg/mod.py") is None
    assert "pkg/mod.py" not in staging.listing()
    assert err(tool.run({"command": "view", "path": "pkg/mod.py"})).startswith("Error: File not")
    (change,) = staging.to_proposal(0).changes
    assert (change.path, change.old_text, change.new_text) == (
        "pkg/mod.py",
        "one\ntwo\nthree\n",
        None,
    )
    ok(tool.run({"command": "create", "path": "pkg/mod.py", "file_text": "back\n"}))
    assert staging.to_proposal(0).changes[0].new_text == "back\n"


def test_deleting_a_file_only_staged_leaves_no_change(tool: EditorTool, staging: Staging) -> None:
    ok(tool.run({"command": "create", "path": "new.py", "file_text": "x = 1\n"}))
    ok(tool.run({"command": "delete", "path": "new.py"}))
    assert staging.to_proposal(0).changes == ()
    assert err(tool.run({"command": "delete", "path": "new.py"})) == "Error: File not found: new.py"


def test_delete_refuses_folders_protected_and_locked_files_and_outside_paths(
    staging: Staging, root: Path
) -> None:
    (root / "tests").mkdir()
    (root / "tests" / "test_spec_a.py").write_text("def test_a():\n    pass\n")
    (root / "tests" / "test_b.py").write_text("def test_b():\n    pass\n")
    tool = EditorTool(staging, locked=["tests/test_b.py"])
    assert "is a directory" in err(tool.run({"command": "delete", "path": "pkg"}))
    assert "protected" in err(tool.run({"command": "delete", "path": "tests/test_spec_a.py"}))
    assert "the tests are the contract" in err(
        tool.run({"command": "delete", "path": "tests/test_b.py"})
    )
    with pytest.raises(SafetyViolation):
        tool.run({"command": "delete", "path": "../outside.py"})
    assert staging.to_proposal(0).changes == ()
