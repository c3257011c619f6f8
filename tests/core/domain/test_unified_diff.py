"""unified_diff/render_patch: real `git apply` turns the old files into the new ones."""

from __future__ import annotations

import difflib
import random
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from unidiff import PatchSet

from orch_tui.core.domain import unified_diff as unified_diff_module
from orch_tui.core.domain.proposal import FileChange, render_patch, unified_diff
from orch_tui.core.domain.unified_diff import RunMatcher
from tests.support.spying import calls_to

line_pieces = st.sampled_from(["a\n", "b\n", "c\n", "\n", "  x = 1\n", "d\r\n", "é\n", "tab\t\n"])
newline_texts = st.builds(
    lambda pieces, tail: "".join(pieces) + tail,
    st.lists(line_pieces, max_size=30),
    st.sampled_from(["", "end", "é", " "]),
)
any_texts = newline_texts | st.text(st.characters(codec="utf-8", exclude_characters="\x00"))
paths = st.sampled_from(["a.py", "pkg/mod.py", "dir with space/f.txt", "ünï/cödé.py", 'q"uote'])


def git_apply(files: dict[str, str | None], patch: str) -> dict[str, str | None]:
    """Write ``files`` into a fresh git repository, apply ``patch``, read the same paths back."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        subprocess.run(["git", "init", "-q", str(root)], check=True)
        for path, text in files.items():
            if text is not None:
                (root / path).parent.mkdir(parents=True, exist_ok=True)
                (root / path).write_bytes(text.encode())
        result = subprocess.run(
            ["git", "apply", "--whitespace=nowarn", "-"],
            cwd=root,
            input=patch.encode(),
            capture_output=True,
        )
        assert result.returncode == 0, result.stderr.decode() + "\n" + patch
        return {
            path: (root / path).read_bytes().decode() if (root / path).exists() else None
            for path in files
        }


@st.composite
def old_new_pairs(draw: st.DrawFn, texts: st.SearchStrategy[str]) -> tuple[str | None, str | None]:
    old = draw(st.none() | texts)
    new = draw(texts) if old is None else draw(st.none() | texts)
    return old, new


@settings(max_examples=60, deadline=None)
@given(paths, old_new_pairs(any_texts))
def test_git_apply_turns_old_into_new(path: str, pair: tuple[str | None, str | None]) -> None:
    old, new = pair
    patch = unified_diff(path, old, new)
    if old == new:
        assert patch == ""
        return
    assert git_apply({path: old}, patch) == {path: new}


@pytest.mark.parametrize(
    ("old", "new"),
    [
        (None, ""),  # added empty file
        ("", None),  # deleted empty file
        (None, "no newline"),
        ("x\ny", None),
        ("a\nb", "a\nb\n"),  # newline added at the end
        ("a\nb\n", "a\nb"),  # newline removed at the end
        ("", "content\n"),
        ("content", ""),
        ("".join(f"{i}\n" for i in range(40)), "".join(f"{i}\n" for i in range(40) if i % 9)),
    ],
)
def test_git_apply_edge_cases(old: str | None, new: str | None) -> None:
    assert git_apply({"f.txt": old}, unified_diff("f.txt", old, new)) == {"f.txt": new}


def test_added_empty_file_is_a_header_like_git_writes() -> None:
    assert unified_diff("e.py", None, "") == "diff --git a/e.py b/e.py\nnew file mode 100644\n"
    assert unified_diff("e.py", "", None) == "diff --git a/e.py b/e.py\ndeleted file mode 100644\n"


def test_missing_newline_marker_and_context() -> None:
    old = "".join(f"{i}\n" for i in range(1, 11)) + "last"
    new = old.replace("2\n", "two\n").replace("last", "final")
    assert unified_diff("n.txt", old, new) == (
        "diff --git a/n.txt b/n.txt\n--- a/n.txt\n+++ b/n.txt\n"
        "@@ -1,5 +1,5 @@\n 1\n-2\n+two\n 3\n 4\n 5\n"
        "@@ -8,4 +8,4 @@\n 8\n 9\n 10\n-last\n\\ No newline at end of file\n"
        "+final\n\\ No newline at end of file\n"
    )


def test_special_paths_are_quoted_like_git() -> None:
    header = unified_diff('ü "q".py', None, "x\n").splitlines()[0]
    assert header == 'diff --git "a/\\303\\274 \\"q\\".py" "b/\\303\\274 \\"q\\".py"'


def test_render_patch_applies_several_files_at_once() -> None:
    files = {"keep.py": "a\nb\n", "gone.py": "bye\n", "new/pkg.py": None, "empty": None}
    wanted = {"keep.py": "a\nB\n", "gone.py": None, "new/pkg.py": "hi", "empty": ""}
    patch = render_patch((path, files[path], wanted[path]) for path in sorted(files))
    assert patch.count("diff --git") == 4
    assert git_apply(files, patch) == wanted


@settings(max_examples=100)
@given(st.sampled_from(["a.py", "pkg/mod.py"]), old_new_pairs(newline_texts))
def test_unidiff_counts_match_the_hunks(path: str, pair: tuple[str | None, str | None]) -> None:
    old, new = pair
    patch = unified_diff(path, old, new)
    if old == new:
        return
    (parsed,) = PatchSet(patch)
    change = FileChange(path, old, new)
    assert (parsed.added, parsed.removed) == (change.added, change.removed)
    # unidiff also calls a change from or to an empty file "added"/"removed" (an @@ -0,0 range)
    if old is None:
        assert parsed.is_added_file
    if new is None:
        assert parsed.is_removed_file
    if old and new:
        assert parsed.is_modified_file


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from(["a\n", "b\n", "c\n", "\n", "d\n"]), max_size=40),
    st.lists(st.sampled_from(["a\n", "b\n", "c\n", "\n", "e\n"]), max_size=40),
)
def test_the_fast_matcher_finds_exactly_difflibs_blocks(old: list[str], new: list[str]) -> None:
    expected = difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes()
    assert RunMatcher(old, new).get_opcodes() == expected


def test_a_files_hunks_are_found_without_difflib_indexing_its_new_lines(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """difflib indexes every line of the new text, for a search of its own that the fast
    matcher needs only when a gap is not settled by its runs: a quarter of each file's diff
    (the hunks of a 200-file proposal: ~9 ms of the engine's way to the first diff)."""
    indexed = calls_to(monkeypatch, difflib.SequenceMatcher, "_SequenceMatcher__chain_b")
    old_lines = [f"    value_{n} = compute({n})\n" for n in range(450)]
    new_lines = list(old_lines)
    for start in range(20, 450, 45):  # ten blocks of 25 lines changed, 20 kept between
        new_lines[start : start + 25] = [f"    value_{n} = {n} + 1\n" for n in range(25)]
    unified_diff_module.forget_text_changes()
    change = FileChange("pkg/mod.py", "".join(old_lines), "".join(new_lines))
    assert len(change.hunks) == 10 and change.added == change.removed == 250
    assert indexed == []


def test_a_gap_the_runs_do_not_settle_is_answered_by_difflibs_own_search(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    pick = random.Random(139)  # lines of four kinds: many runs, a gap that tries them all
    old = [pick.choice("abcd") + "\n" for _ in range(100)]
    new = [pick.choice("abcd") + "\n" for _ in range(100)]
    indexed = calls_to(monkeypatch, difflib.SequenceMatcher, "_SequenceMatcher__chain_b")
    got = RunMatcher(old, new).get_opcodes()
    assert len(indexed) == 1  # built for that search, once
    assert got == difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes()


@pytest.fixture
def diffed(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """The old side's line count of every diff made from here on (none remembered at the
    start, none left remembered after)."""
    counted: list[int] = []

    class Counting(unified_diff_module.RunMatcher):
        def __init__(self, a: list[str], b: list[str]) -> None:
            counted.append(len(a))
            super().__init__(a, b)

    monkeypatch.setattr(unified_diff_module, "RunMatcher", Counting)
    unified_diff_module.forget_text_changes()
    yield counted
    unified_diff_module.forget_text_changes()


def test_a_files_texts_are_diffed_once_for_its_hunks_and_its_patch(diffed: list[int]) -> None:
    """The proposal's hunks, the review's copy of a change and the unified patch of the same
    texts share one diff (a 200-file proposal was diffed four times over)."""
    old = "".join(f"line {n}\n" for n in range(50))
    new = old.replace("line 10\n", "line ten\n").replace("line 40\n", "")
    first = FileChange("pkg/a.py", old, new)
    again = FileChange("pkg/a.py", "".join(old), "".join(new))  # equal texts, other objects
    patch = unified_diff("pkg/a.py", old, new)
    assert len(first.hunks) == 2 and again.hunks == first.hunks
    assert patch.count("@@ -") == 2
    assert len(diffed) == 1  # the middle between the common prefix and suffix, once


def test_remembered_diffs_are_bounded_by_the_size_of_their_texts(
    diffed: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The texts a remembered diff keeps alive stay under a bound: the least recent go."""
    monkeypatch.setattr(unified_diff_module, "REMEMBERED_CHARS", 250)
    # 160 characters a pair: two pairs are over the bound
    pairs = [(f"a{n}\nsame\n" * 10, f"b{n}\nsame\n" * 10) for n in range(3)]
    for old, new in pairs:
        unified_diff_module.text_changes(old, new)
    assert len(diffed) == 3
    unified_diff_module.text_changes(*pairs[2])  # the latest is remembered
    assert len(diffed) == 3
    unified_diff_module.text_changes(*pairs[0])  # the first was let go for the later ones
    assert len(diffed) == 4
