"""Prompts that scale to a real project: a map, the files that matter, AGENTS.md, overrides."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from orch_tui.core.attempt.feedback import generation_prompt, patch_prompt, system_prompt
from orch_tui.core.attempt.project_map import (
    files_that_matter,
    project_files,
    project_map,
    top_level_names,
    unparsable_files,
)
from orch_tui.core.checks.runner import TestCase, TestReport
from orch_tui.core.config.models import Config
from orch_tui.core.domain.proposal import Decisions, Proposal
from tests.core.attempt.test_feedback import failed_report
from tests.core.loop.test_engine import GOOD, TEST
from tests.core.workspace.test_existing_project import make_engine
from tests.support.scripting import attempt, create
from tests.support.spying import calls_to


def big_project(root: Path, files: int = 200) -> None:
    """``files`` modules of about 2 KB each in pkg/ and one test file per ten of them."""
    (root / "pkg").mkdir(parents=True)
    (root / "tests").mkdir()
    body = "".join(f"    value_{i} = {i} * 2\n" for i in range(70))
    for number in range(files):
        folder = "tests" if number % 10 == 0 else "pkg"
        prefix = "test_" if folder == "tests" else "mod_"
        (root / folder / f"{prefix}{number:03d}.py").write_text(
            f"class Thing{number}:\n    pass\n\n\ndef func_{number}():\n{body}"
        )


def failing_report(root: Path) -> TestReport:
    failing = TestCase(
        id="tests/test_150.py::test_thing",
        outcome="failed",
        message="assert 1 == 2",
        traceback=f"{root}/pkg/mod_151.py:3: in func_151\n    raise ValueError\nE   ValueError",
    )
    return failed_report(failing, "FAILED tests/test_150.py::test_thing")


def test_top_level_names_come_from_ast() -> None:
    source = "import os\nX = 1\nclass A:\n    def inner(self): pass\nasync def b(): pass\n"
    assert top_level_names(source) == ["class A", "def b"]
    assert top_level_names("def broken(:\n") == []


def test_a_file_that_does_not_parse_is_marked_in_the_map_and_listed(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "good.py").write_text("def ok():\n    pass\n")
    (tmp_path / "pkg" / "bad.py").write_text("x = (\n")
    (tmp_path / "notes.txt").write_text("def not python(:\n")
    lines = project_map(tmp_path, 10_000).splitlines()
    assert lines[0].startswith("- notes.txt (")  # not Python: not parsed
    assert lines[1] == "- pkg/bad.py (6 bytes): does not parse (line 1: '(' was never closed)"
    assert lines[2] == "- pkg/good.py (19 bytes): def ok"
    assert unparsable_files(tmp_path) == {"pkg/bad.py": "line 1: '(' was never closed"}


def test_the_patch_prompt_of_a_200_file_project_stays_in_budget_and_names_what_matters(
    tmp_path: Path,
) -> None:
    big_project(tmp_path)
    total = sum(p.stat().st_size for p in tmp_path.rglob("*.py"))
    config = Config()
    config.feedback.file_chars = 30_000
    assert total > 10 * config.feedback.file_chars
    prompt = patch_prompt(
        previous=0,
        report=failing_report(tmp_path),
        proposal=Proposal([]),
        decisions=Decisions(),
        workspace=tmp_path,
        config=config,
        changed=["pkg/mod_007.py"],
    )
    files_part = prompt[prompt.index("Project map") :]
    assert len(files_part) <= config.feedback.file_chars
    assert len(prompt) < config.feedback.file_chars + config.feedback.output_chars
    named = files_part.split("Unchanged: ", 1)[1].splitlines()[0]
    for path in ("pkg/mod_007.py", "tests/test_150.py", "pkg/mod_151.py"):
        assert path in named, path
    assert "pkg/mod_008.py" not in named and "### pkg/mod_008.py\n" not in files_part
    assert "- pkg/mod_001.py (" in files_part and "class Thing1, def func_1" in files_part
    assert "read any other file with `view`" in files_part


def test_the_opening_check_and_the_map_parse_each_file_once_and_a_change_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import ast  # project_map imports it where it parses

    unique = f"# {tmp_path.name}\n"  # no other test's file has this text
    parsed: list[str] = []
    parse = ast.parse

    def counted(source: Any, *args: Any, **kwargs: Any) -> Any:
        if isinstance(source, str) and source.startswith(unique):
            parsed.append(source)
        return parse(source, *args, **kwargs)

    monkeypatch.setattr(ast, "parse", counted)
    (tmp_path / "good.py").write_text(f"{unique}def ok_1(): pass\n")
    (tmp_path / "bad.py").write_text(f"{unique}def no_2(:\n")
    assert unparsable_files(tmp_path) == {"bad.py": "line 2: invalid syntax"}
    assert project_map(tmp_path, 10_000).splitlines()[1].endswith(": def ok_1")
    assert len(parsed) == 2  # the map read both outlines the opening check made
    (tmp_path / "bad.py").write_text(f"{unique}def ok_2(): 1\n")  # the same size
    assert unparsable_files(tmp_path) == {}
    assert project_map(tmp_path, 10_000).splitlines()[0].endswith(": def ok_2")
    assert len(parsed) == 3


def walked_files(root: Path) -> dict[str, int]:
    """The listing as ``os.walk`` and ``pathlib`` made it before the folders' own entries."""
    found: dict[str, int] = {}
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d not in {".git", ".venv", "__pycache__", "node_modules"}]
        for name in files:
            path = Path(folder, name)
            if path.is_file():
                found[path.relative_to(root).as_posix()] = path.stat().st_size
    return dict(sorted(found.items()))


def test_the_project_is_listed_as_a_walk_lists_it_from_the_folders_entries_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each file was made a ``Path``, checked and stat'ed twice (``is_file``, ``stat``): about
    half of a 200-file listing, which a run's opening and its first prompt each make."""
    big_project(tmp_path, files=30)
    for left_out in (".git", ".venv", "__pycache__", "pkg/node_modules", "pkg/sub/__pycache__"):
        (tmp_path / left_out).mkdir(parents=True, exist_ok=True)
        (tmp_path / left_out / "x.py").write_text("x = 1\n")
    (tmp_path / "pkg" / "sub" / "deep.py").write_text("y = 2\n")
    (tmp_path / "empty").mkdir()
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "o.py").write_text("o = 3\n")
    (tmp_path / "pkg" / "linked_folder").symlink_to(tmp_path / "outside")
    (tmp_path / "linked.py").symlink_to(tmp_path / "pkg" / "sub" / "deep.py")
    (tmp_path / "broken.py").symlink_to(tmp_path / "nowhere.py")
    expected = walked_files(tmp_path)
    stats = calls_to(monkeypatch, os, "stat")
    listed = project_files(tmp_path)
    assert listed == expected
    assert {"linked.py", "outside/o.py", "pkg/sub/deep.py"} <= set(listed)
    assert not {"broken.py", "pkg/linked_folder/o.py", "pkg/node_modules/x.py"} & set(listed)
    assert stats == []  # each file's size is its folder entry's


def test_files_that_matter_keep_changed_first_then_named(tmp_path: Path) -> None:
    big_project(tmp_path, files=20)
    named = files_that_matter(tmp_path, ["pkg/mod_003.py"], ["error in /x/pkg/mod_011.py line 2"])
    assert named == ["pkg/mod_003.py", "pkg/mod_011.py"]


def test_the_map_stays_in_its_budget(tmp_path: Path) -> None:
    big_project(tmp_path)
    text = project_map(tmp_path, 2_000)
    assert len(text) <= 2_100 and "more files (list them with `view /workspace`)" in text


def test_a_small_project_is_still_sent_whole(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text("print('hi')\n")
    prompt = patch_prompt(
        previous=0,
        report=None,
        proposal=None,
        decisions=None,
        workspace=tmp_path,
        config=Config(),
    )
    assert "m.py" in prompt and "Project map" not in prompt


def test_templates_beside_the_config_override_the_packaged_ones(tmp_path: Path) -> None:
    prompts = tmp_path / "prompts"
    prompts.mkdir()
    (prompts / "generate.md").write_text("OURS: build it. Files: $listing $$5\n")
    assert generation_prompt(tmp_path / "ws", prompts) == (
        "OURS: build it. Files: (none: the workspace is empty) $5\n"
    )
    assert "Build the project the spec describes" in generation_prompt(tmp_path / "ws", None)
    assert "str_replace_based_edit_tool" in system_prompt(Config(), prompts)  # not overridden


@pytest.fixture(autouse=True)
def _no_plugin_autoload(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")


def test_agents_md_and_prompt_overrides_reach_the_model(tmp_path: Path) -> None:
    project, folder = tmp_path / "orch", tmp_path / "mine"
    project.mkdir()
    folder.mkdir()
    (project / "spec.md").write_text("# calc\n")
    (project / "prompts").mkdir()
    (project / "prompts" / "generate.md").write_text("House rules first. $listing\n")
    (folder / "AGENTS.md").write_text("Always use tabs, never spaces.\n")
    engine = make_engine(
        project, folder, [attempt(create("calc.py", GOOD), create("tests/test_calc.py", TEST))]
    )
    engine.run()
    request = engine.provider.requests[0]  # type: ignore[attr-defined]
    system = "\n".join(block["text"] for block in request.system)
    assert "Always use tabs, never spaces." in system
    content = request.messages[0]["content"]
    text = content if isinstance(content, str) else "".join(b.get("text", "") for b in content)
    assert text.startswith("House rules first. - AGENTS.md (")
