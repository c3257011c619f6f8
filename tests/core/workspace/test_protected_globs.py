"""The protected globs, matched as one regular expression made once per set of globs."""

from __future__ import annotations

import fnmatch
import itertools

import pytest

from orch_tui.core.workspace import boundary
from orch_tui.core.workspace.boundary import is_protected

GLOBS = ["tests/test_spec_*.py", "**/secret.txt", "data/", "  ", "*.lock", "docs/**"]
PATHS = [
    "tests/test_spec_a.py",
    "tests/test_other.py",
    "tests/deep/test_spec_b.py",
    "secret.txt",
    "pkg/secret.txt",
    "pkg/secret.txt.bak",
    "data",
    "data/rows.csv",
    "database.py",
    "poetry.lock",
    "pkg/uv.lock",
    "docs/index.md",
    "docs",
    "src/.git/config",
    ".venv/bin/python",
    "pkg/mod.py",
]


def one_by_one(rel: str, protected: list[str]) -> bool:
    """The globs matched one candidate at a time with fnmatchcase (the earlier code)."""
    normalised = rel.lstrip("/")
    parts = normalised.split("/")
    if ".git" in parts or parts[0] == ".venv":
        return True
    for pattern in protected:
        pattern = pattern.strip().rstrip("/")
        if not pattern:
            continue
        candidates = [pattern, f"{pattern}/*"]
        if pattern.startswith("**/"):
            candidates += [pattern[3:], f"{pattern[3:]}/*"]
        if any(fnmatch.fnmatchcase(normalised, candidate) for candidate in candidates):
            return True
    return False


@pytest.mark.parametrize("globs", [GLOBS, GLOBS[:1], [], ["**/x"], ["a[bc]/?.py"]])
def test_the_globs_match_as_fnmatchcase_matches_them_one_by_one(globs: list[str]) -> None:
    for path in [*PATHS, "ab/x.py", "ad/x.py", "x", "q/x/y"]:
        assert is_protected(path, globs) == one_by_one(path, globs), (path, globs)


def test_checking_many_paths_builds_the_globs_matcher_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    translated: list[str] = []
    translate = fnmatch.translate
    monkeypatch.setattr(
        boundary.fnmatch, "translate", lambda glob: translated.append(glob) or translate(glob)
    )
    monkeypatch.setattr(
        boundary.fnmatch,
        "fnmatchcase",
        lambda *args: pytest.fail("a glob matched one candidate at a time"),
    )
    globs = (*GLOBS, "unique/*.py")  # a set of globs no other test has made a matcher for
    for path, _ in itertools.product(PATHS, range(20)):
        is_protected(path, globs)
    assert len(translated) == 14  # each glob's candidates, once for the 320 checks
