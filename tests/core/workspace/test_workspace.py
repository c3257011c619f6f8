"""Workspace safety, the staging overlay, transactional apply, and tree reading/copying."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from orch_tui.core.domain.proposal import ChangeKind
from orch_tui.core.workspace.apply import apply_change, copy_tree, read_tree
from orch_tui.core.workspace.boundary import (
    ProtectedPath,
    SafetyViolation,
    is_protected,
    resolve_inside,
    to_relative,
)
from orch_tui.core.workspace.staging import Staging


def snapshot(root: Path) -> dict[str, bytes | None]:
    """Every path under ``root`` with its bytes (None for folders), symlinks as link text."""
    result: dict[str, bytes | None] = {}
    for folder, dirs, files in os.walk(root):
        for name in dirs + files:
            path = Path(folder, name)
            rel = path.relative_to(root).as_posix()
            if path.is_symlink():
                result[rel] = os.readlink(path).encode()
            elif path.is_dir():
                result[rel] = None
            else:
                result[rel] = path.read_bytes()
    return result


@pytest.fixture
def root(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    (ws / "src").mkdir(parents=True)
    (ws / "src" / "app.py").write_text("x = 1\n")
    (ws / "README.md").write_text("hello\n")
    return ws


# --- resolve_inside / to_relative ------------------------------------------------------------


@pytest.mark.parametrize(
    "bad",
    ["..", "../x", "a/../../x", "/etc/passwd", "/workspace/../x", "/workspace/a/../../x", "/tmp"],
)
def test_paths_leaving_the_workspace_are_safety_violations(root: Path, bad: str) -> None:
    with pytest.raises(SafetyViolation) as caught:
        resolve_inside(root, bad)
    assert caught.value.path == bad
    assert caught.value.reason


def test_virtual_workspace_root_maps_to_the_real_one(root: Path) -> None:
    real = root.resolve()
    assert resolve_inside(root, "/workspace/src/app.py") == real / "src" / "app.py"
    assert resolve_inside(root, "src/app.py") == real / "src" / "app.py"
    assert to_relative(root, "/workspace/src/app.py") == "src/app.py"
    assert to_relative(root, "./src//app.py") == "src/app.py"
    assert to_relative(root, "src/x/../app.py") == "src/app.py"
    assert to_relative(root, "/workspace") == ""
    assert to_relative(root, "new/file.py") == "new/file.py"


def test_a_similar_looking_prefix_is_not_the_virtual_root(root: Path) -> None:
    with pytest.raises(SafetyViolation):
        resolve_inside(root, "/workspacex/a.py")


def test_symlinked_folder_pointing_outside_is_refused(root: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (root / "escape").symlink_to(outside, target_is_directory=True)
    with pytest.raises(SafetyViolation):
        resolve_inside(root, "escape/new_file.py")  # does not exist yet
    with pytest.raises(SafetyViolation):
        resolve_inside(root, "/workspace/escape")


def test_symlinked_file_pointing_outside_is_refused(root: Path, tmp_path: Path) -> None:
    (root / "passwd").symlink_to(tmp_path / "secret.txt")  # dangling: target not there yet
    with pytest.raises(SafetyViolation):
        resolve_inside(root, "passwd")


def test_symlink_inside_the_workspace_resolves_to_its_target(root: Path) -> None:
    (root / "alias.py").symlink_to(root / "src" / "app.py")
    assert to_relative(root, "alias.py") == "src/app.py"


@pytest.mark.parametrize(
    "rel", ["new.py", "src/new.py", "src/new/deeper/new.py", "src/app.py/under_a_file.py"]
)
def test_a_path_that_does_not_exist_yet_resolves_as_realpath_would_without_its_walk(
    root: Path, rel: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A new file's path is its folder's real location joined with the rest: ``realpath``
    (a walk from ``/``, one ``lstat`` a part) is not asked again for each new file."""
    expected = os.path.realpath(root / rel)
    walked: list[str] = []
    real_realpath = os.path.realpath
    monkeypatch.setattr(os.path, "realpath", lambda p: walked.append(p) or real_realpath(p))
    assert str(resolve_inside(root, rel)) == expected
    assert walked == [root]  # the workspace itself, once


@pytest.mark.parametrize(
    "call",
    [
        lambda staging: staging.read("src/deep/link/secret.txt"),
        lambda staging: staging.write("src/deep/link/new.py", "x"),
        lambda staging: staging.exists("/workspace/src/deep/link/secret.txt"),
        lambda staging: staging.is_dir("src/deep/link"),
        lambda staging: staging.listing("src/deep/link"),
    ],
    ids=["read", "write", "exists", "is_dir", "listing"],
)
def test_staging_refuses_a_link_below_the_top_level_that_points_outside(
    root: Path, tmp_path: Path, call: object
) -> None:
    """Each part below the workspace is checked for a link, at any depth and for every use."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("secret")
    (root / "src" / "deep").mkdir(parents=True)
    (root / "src" / "deep" / "link").symlink_to(outside, target_is_directory=True)
    staging = Staging(root)
    assert callable(call)
    with pytest.raises(SafetyViolation):
        call(staging)
    assert list(staging.to_proposal(0).files) == []


def test_staging_follows_links_inside_the_workspace_at_any_depth(root: Path) -> None:
    (root / "src" / "deep").mkdir(parents=True)
    (root / "src" / "deep" / "app.py").write_text("A = 1\n")
    (root / "lib").symlink_to(root / "src", target_is_directory=True)
    staging = Staging(root)

    staging.write("lib/deep/app.py", "A = 2\n")

    assert staging.read("/workspace/src/deep/app.py") == "A = 2\n"
    assert list(staging.to_proposal(0).files) == ["src/deep/app.py"]


# --- is_protected ----------------------------------------------------------------------------


def test_git_is_always_protected() -> None:
    assert is_protected(".git", ())
    assert is_protected(".git/config", ())
    assert is_protected("sub/.git/HEAD", ())
    assert not is_protected(".gitignore", ())
    assert not is_protected("src/git.py", ())


def test_the_projects_venv_is_always_protected() -> None:
    assert is_protected(".venv", ())
    assert is_protected(".venv/lib/python3.11/site-packages/evil.pth", ())
    assert is_protected("./.venv/bin/python", ())
    assert not is_protected("docs/.venv.md", ())


def test_protected_globs_match_normalised_relative_paths() -> None:
    globs = ["tests/test_spec_*.py", "docs/**", "data"]
    assert is_protected("tests/test_spec_core.py", globs)
    assert is_protected("./tests/test_spec_core.py", globs)
    assert not is_protected("tests/test_other.py", globs)
    assert is_protected("docs/a/b.md", globs)
    assert is_protected("data/x.csv", globs)
    assert not is_protected("src/data.py", globs)
    assert is_protected("conftest.py", ["**/conftest.py"])
    assert is_protected("pkg/conftest.py", ["**/conftest.py"])


# --- Staging -------------------------------------------------------------------------------


def test_staging_never_touches_disk(root: Path) -> None:
    before = snapshot(root)
    staging = Staging(root)
    staging.write("src/app.py", "x = 2\n")
    staging.write("/workspace/new/pkg/mod.py", "y = 1\n")
    assert staging.read("src/app.py") == "x = 2\n"
    assert staging.read("new/pkg/mod.py") == "y = 1\n"
    assert snapshot(root) == before


def test_staging_reads_disk_when_not_staged_and_none_when_absent(root: Path) -> None:
    staging = Staging(root)
    assert staging.read("README.md") == "hello\n"
    assert staging.read("missing.py") is None
    assert staging.read("src") is None


def test_staging_keeps_crlf(root: Path) -> None:
    (root / "win.txt").write_bytes(b"a\r\nb\r\n")
    staging = Staging(root)
    assert staging.read("win.txt") == "a\r\nb\r\n"


def test_staging_refuses_git_and_protected_paths(root: Path) -> None:
    staging = Staging(root, protected=["tests/**"])
    with pytest.raises(ProtectedPath) as caught:
        staging.write(".git/config", "x")
    assert caught.value.path == ".git/config"
    with pytest.raises(ProtectedPath):
        staging.write("/workspace/tests/test_a.py", "x")
    assert list(staging.to_proposal(0).files) == []


def test_staging_refuses_protected_path_reached_through_a_symlink(root: Path) -> None:
    (root / "tests").mkdir()
    (root / "t").symlink_to(root / "tests", target_is_directory=True)
    staging = Staging(root, protected=["tests/**"])
    with pytest.raises(ProtectedPath):
        staging.write("t/test_a.py", "x")


def test_staging_write_outside_raises_safety_violation(root: Path) -> None:
    with pytest.raises(SafetyViolation):
        Staging(root).write("../evil.py", "x")


def test_staging_refuses_a_file_under_a_file_and_a_folder_as_file(root: Path) -> None:
    staging = Staging(root)
    with pytest.raises(NotADirectoryError):
        staging.write("README.md/inner.py", "x")
    staging.write("staged.py", "x")
    with pytest.raises(NotADirectoryError):
        staging.write("staged.py/inner.py", "x")
    with pytest.raises(IsADirectoryError):
        staging.write("src", "x")


def test_staging_exists_and_is_dir_see_virtual_folders(root: Path) -> None:
    staging = Staging(root)
    assert not staging.exists("new")
    staging.write("new/pkg/mod.py", "")
    assert staging.exists("new/pkg/mod.py")
    assert staging.is_dir("new") and staging.is_dir("/workspace/new/pkg")
    assert not staging.is_dir("new/pkg/mod.py")
    assert staging.is_dir("src") and staging.is_dir("")
    assert not staging.is_dir("README.md")


def test_a_folder_only_staged_files_imply_goes_when_they_are_deleted(root: Path) -> None:
    staging = Staging(root)
    staging.write("new/a/one.py", "1")
    staging.write("new/a/one.py", "2")  # staged again: still one file under new/a
    staging.write("new/two.py", "2")
    staging.delete("new/a/one.py")
    assert not staging.is_dir("new/a") and not staging.exists("new/a")
    assert staging.is_dir("new")
    staging.delete("new/two.py")
    assert not staging.is_dir("new")
    staging.write("new/a", "now a file")  # no folder left in its way
    assert staging.exists("new/a") and not staging.is_dir("new/a")
    staging.delete("README.md")  # on disk: staged as deleted
    staging.write("src/x.py", "")
    assert staging.is_dir("src") and not staging.exists("README.md")


class CountedOverlay(dict[str, str | None]):
    """An overlay that counts how often it is walked."""

    walks = 0

    def items(self) -> Any:
        CountedOverlay.walks += 1
        return super().items()

    def __iter__(self) -> Any:
        CountedOverlay.walks += 1
        return super().__iter__()


def test_staging_a_file_does_not_walk_the_files_staged_before(root: Path) -> None:
    """A 200-file proposal's edits each walked the overlay to find implied folders: 60,000
    steps for the proposal, on the engine's thread before the review screen got it."""
    staging = Staging(root)
    staging._overlay = CountedOverlay()
    for n in range(50):
        staging.write(f"pkg/mod_{n}.py", "")
        assert staging.exists(f"pkg/mod_{n}.py") and staging.is_dir("pkg")
    assert CountedOverlay.walks == 0


def test_listing_merges_disk_and_overlay_and_skips_caches(root: Path) -> None:
    (root / ".git").mkdir()
    (root / ".git" / "HEAD").write_text("ref")
    (root / "src" / "__pycache__").mkdir()
    (root / "src" / "__pycache__" / "app.pyc").write_bytes(b"\0")
    (root / "src" / "deep" / "deeper").mkdir(parents=True)
    (root / "src" / "deep" / "deeper" / "far.py").write_text("")
    staging = Staging(root)
    staging.write("src/added.py", "")
    staging.write("pkg/sub/mod.py", "")
    assert staging.listing() == [
        "README.md",
        "pkg/",
        "pkg/sub/",
        "src/",
        "src/added.py",
        "src/app.py",
        "src/deep/",
    ]
    assert staging.listing("src", depth=1) == ["src/added.py", "src/app.py", "src/deep/"]


def test_listing_hides_symlinks_that_point_outside(root: Path, tmp_path: Path) -> None:
    (root / "escape").symlink_to(tmp_path, target_is_directory=True)
    assert "escape/" not in Staging(root).listing()


def test_to_proposal_has_only_changed_files_with_their_kinds(root: Path) -> None:
    staging = Staging(root)
    staging.write("src/app.py", "x = 2\n")
    staging.write("README.md", "hello\n")  # same as disk: not a change
    staging.write("/workspace/new.py", "print()\n")
    assert list(staging.to_proposal(0).files) == ["new.py", "src/app.py"]
    proposal = staging.to_proposal(attempt=3)
    assert proposal.attempt == 3
    by_path = {change.path: change for change in proposal.changes}
    assert [change.path for change in proposal.changes] == ["new.py", "src/app.py"]
    assert by_path["new.py"].kind is ChangeKind.ADDED
    assert by_path["new.py"].old_text is None
    assert by_path["new.py"].new_text == "print()\n"
    assert by_path["src/app.py"].kind is ChangeKind.MODIFIED
    assert by_path["src/app.py"].old_text == "x = 1\n"
    assert by_path["src/app.py"].new_text == "x = 2\n"


def test_to_proposal_reads_each_staged_file_on_disk_once(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The changes' old texts came from a second read of every file: 400 reads for a 200-file
    proposal, on the engine's thread before the review screen got it."""
    for n in range(10):
        (root / f"mod_{n}.py").write_text(f"x = {n}\n")
    staging = Staging(root)
    for n in range(10):
        staging.write(f"mod_{n}.py", f"x = {n + 1}\n" if n % 2 else f"x = {n}\n")
    staging.write("new.py", "y = 1\n")
    reads: list[str] = []
    read = Staging._disk_text

    def counted(self: Staging, key: str) -> str | None:
        reads.append(key)
        return read(self, key)

    monkeypatch.setattr(Staging, "_disk_text", counted)
    proposal = staging.to_proposal(attempt=0)
    assert sorted(reads) == sorted([*(f"mod_{n}.py" for n in range(10)), "new.py"])
    assert proposal.files == ("mod_1.py", "mod_3.py", "mod_5.py", "mod_7.py", "mod_9.py", "new.py")
    assert [change.old_text for change in proposal.changes] == [
        *(f"x = {n}\n" for n in (1, 3, 5, 7, 9)),
        None,
    ]


def test_two_names_for_one_file_share_one_overlay_entry(root: Path) -> None:
    staging = Staging(root)
    staging.write("src/app.py", "a\n")
    staging.write("/workspace/src/app.py", "b\n")
    assert staging.read("./src/app.py") == "b\n"
    assert len(staging.to_proposal(0).changes) == 1


# --- apply_change ------------------------------------------------------------------------


def test_apply_writes_adds_and_deletes(root: Path) -> None:
    apply_change(root, {"src/app.py": "x = 2\n", "new/pkg/mod.py": "y\n", "README.md": None})
    assert (root / "src" / "app.py").read_text() == "x = 2\n"
    assert (root / "new" / "pkg" / "mod.py").read_text() == "y\n"
    assert not (root / "README.md").exists()


def test_apply_twice_gives_the_same_tree(root: Path) -> None:
    change = {"src/app.py": "x = 2\n", "new.py": "y\n", "README.md": None}
    apply_change(root, change)
    once = snapshot(root)
    apply_change(root, change)
    assert snapshot(root) == once


def test_apply_preserves_crlf_and_unicode(root: Path) -> None:
    apply_change(root, {"win.txt": "é\r\nb\r\n"})
    assert (root / "win.txt").read_bytes() == "é\r\nb\r\n".encode()


def test_apply_is_all_or_nothing(root: Path) -> None:
    (root / "zfile").write_text("I am a file\n")
    before = snapshot(root)
    change = {
        "a_new.py": "new\n",
        "src/app.py": "changed\n",
        "brand/new/dir/mod.py": "x\n",
        "README.md": None,
        "zfile/impossible.py": "cannot exist: parent is a file\n",
    }
    with pytest.raises(OSError):
        apply_change(root, change)
    assert snapshot(root) == before  # no writes, no deletes, no temp files, no new folders


def test_apply_refuses_a_folder_target_before_writing(root: Path) -> None:
    before = snapshot(root)
    with pytest.raises(IsADirectoryError):
        apply_change(root, {"a.py": "x\n", "src": "not a file\n"})
    assert snapshot(root) == before


def test_apply_rechecks_paths(root: Path) -> None:
    before = snapshot(root)
    with pytest.raises(SafetyViolation):
        apply_change(root, {"ok.py": "x\n", "../escape.py": "x\n"})
    with pytest.raises(ProtectedPath):
        apply_change(root, {"ok.py": "x\n", ".git/config": "x\n"})
    assert snapshot(root) == before


def test_apply_keeps_an_existing_files_mode(root: Path) -> None:
    script = root / "run.sh"
    script.write_text("echo 1\n")
    script.chmod(0o755)
    apply_change(root, {"run.sh": "echo 2\n"})
    assert script.stat().st_mode & 0o777 == 0o755
    assert script.read_text() == "echo 2\n"


# --- read_tree / copy_tree -----------------------------------------------------------------


def test_read_tree_returns_text_files_sorted_and_skips_the_rest(root: Path, tmp_path: Path) -> None:
    (root / ".git").mkdir()
    (root / ".git" / "HEAD").write_text("ref")
    (root / "src" / "__pycache__").mkdir()
    (root / "src" / "__pycache__" / "m.pyc").write_text("cache")
    (root / ".pytest_cache").mkdir()
    (root / ".pytest_cache" / "v").write_text("cache")
    (root / "blob.bin").write_bytes(b"\x00\x01\x02")
    (root / "latin1.txt").write_bytes(b"caf\xe9")
    (root / "huge.txt").write_text("x" * 50)
    (root / "win.txt").write_bytes(b"a\r\n")
    (tmp_path / "secret.txt").write_text("secret")
    (root / "leak.txt").symlink_to(tmp_path / "secret.txt")
    tree = read_tree(root, max_file_bytes=40)
    assert list(tree) == ["README.md", "src/app.py", "win.txt"]
    assert tree["win.txt"] == "a\r\n"


def test_read_tree_and_the_listing_resolve_only_the_symlinks(
    root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A regular file reached by walking the real workspace is inside it: only a symlink is
    resolved (each resolution lstats every part of the path; the prompt and the editor's
    listing ask for every file)."""
    (root / "src" / "deep").mkdir()
    for n in range(5):
        (root / "src" / "deep" / f"m{n}.py").write_text(f"n = {n}\n")
    (root / "alias.py").symlink_to(root / "src" / "app.py")
    (tmp_path / "secret.txt").write_text("secret")
    (root / "leak.txt").symlink_to(tmp_path / "secret.txt")
    staging = Staging(root)
    resolved: list[str] = []
    realpath = os.path.realpath

    def counted(path: Any, *args: Any, **kwargs: Any) -> str:
        resolved.append(os.fspath(path))
        return realpath(path, *args, **kwargs)

    monkeypatch.setattr(os.path, "realpath", counted)
    listing = staging.listing(depth=3)
    tree = read_tree(root)

    links = sorted(str(root / name) for name in ("alias.py", "leak.txt"))
    assert sorted(resolved) == sorted([*links, *links, str(root)])  # read_tree's root, once
    assert "alias.py" in listing and "leak.txt" not in listing
    assert "src/deep/m4.py" in listing
    assert list(tree) == [
        "README.md",
        "alias.py",
        "src/app.py",
        *(f"src/deep/m{n}.py" for n in range(5)),
    ]


def test_copy_tree_copies_files_without_git_and_caches(root: Path, tmp_path: Path) -> None:
    (root / ".git").mkdir()
    (root / ".git" / "HEAD").write_text("ref")
    (root / "src" / "__pycache__").mkdir()
    (root / "src" / "__pycache__" / "m.pyc").write_text("cache")
    dst = tmp_path / "scratch"
    copy_tree(root, dst)
    assert snapshot(dst) == {
        "README.md": b"hello\n",
        "src": None,
        "src/app.py": b"x = 1\n",
    }
