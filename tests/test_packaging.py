"""The installed shape: one top-level package, and a core that never reaches for the UI."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[1]
SOURCE_DIRS = ("core", "tui", "themes")


def _copy_sources(into: Path) -> Path:
    """Copy just what a wheel is built from, so the build leaves nothing in the checkout."""
    into.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy2(ROOT / name, into / name)
    for name in SOURCE_DIRS:
        shutil.copytree(ROOT / name, into / name, ignore=shutil.ignore_patterns("__pycache__"))
    return into


@pytest.mark.slow
def test_the_wheel_installs_only_orch_tui_at_the_top_level(tmp_path: Path) -> None:
    source = _copy_sources(tmp_path / "src")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(tmp_path / "dist"),
            str(source),
        ],
        check=True,
        capture_output=True,
        text=True,
    )
    (wheel,) = (tmp_path / "dist").glob("orch_tui-*.whl")
    names = zipfile.ZipFile(wheel).namelist()

    metadata = zipfile.ZipFile(wheel).read(next(n for n in names if n.endswith("/METADATA")))
    # An SPDX expression (PEP 639), not the deprecated license table, and the text itself.
    assert "License-Expression: MIT" in metadata.decode()
    assert any(name.endswith(".dist-info/licenses/LICENSE") for name in names)

    top_level = {name.split("/", 1)[0] for name in names}
    assert {n for n in top_level if not n.endswith(".dist-info")} == {"orch_tui"}
    for resource in (
        "orch_tui/core/attempt/prompts/system.md",
        "orch_tui/core/demo/spec.md",
        "orch_tui/tui/app.tcss",
        "orch_tui/tui/screens/dialogs.tcss",
        "orch_tui/themes/themes.toml",
        "orch_tui/core/loop/engine.py",
        "orch_tui/tui/screens/history/history.tcss",
        *(f"orch_tui/{name}/py.typed" for name in SOURCE_DIRS),
    ):
        assert resource in names
    # Every source folder that is a package is in the wheel: the explicit `packages` list in
    # pyproject.toml would drop a new folder silently.
    folders = {
        f"orch_tui/{path.parent.relative_to(ROOT).as_posix()}/__init__.py"
        for name in SOURCE_DIRS
        for path in (ROOT / name).rglob("__init__.py")
    }
    assert len(folders) > 15
    assert folders <= set(names), sorted(folders - set(names))
    assert (
        "orch-tui = orch_tui.tui.cli.executable:main"
        in zipfile.ZipFile(wheel)
        .read(next(n for n in names if n.endswith("entry_points.txt")))
        .decode()
    )


@pytest.mark.slow
@pytest.mark.timeout(900)  # a cold cache on a loaded machine takes minutes; 300 s was seen
def test_core_tui_and_themes_pass_mypy_strict(tmp_path: Path) -> None:
    """The sources as the package they install as (``orch_tui/core`` and so on: links to the
    folders at the root, so any install mode works, an editable one too), checked against
    the settings in pyproject.toml."""
    package = tmp_path / "orch_tui"
    package.mkdir()
    for name in SOURCE_DIRS:
        (package / name).symlink_to(ROOT / name, target_is_directory=True)
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--config-file",
            str(ROOT / "pyproject.toml"),
            "--cache-dir",
            str(ROOT / ".mypy_cache"),
            *("-p", "orch_tui.core", "-p", "orch_tui.tui", "-p", "orch_tui.themes"),
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )

    assert result.returncode == 0, result.stdout + result.stderr
    assert "Success: no issues found" in result.stdout


def _run_python(code: str, cwd: Path) -> str:
    """What a fresh interpreter prints running ``code`` (a fresh one: nothing imported yet)."""
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=cwd, capture_output=True, text=True, check=True
    )
    return result.stdout.strip()


def test_core_imports_no_textual_rich_or_tui(tmp_path: Path) -> None:
    modules = sorted(
        "orch_tui.core." + ".".join(path.relative_to(ROOT / "core").with_suffix("").parts)
        for path in (ROOT / "core").rglob("*.py")
        if path.name != "__init__.py" and "demo" not in path.parts
    )
    code = (
        "import importlib, sys\n"
        f"for name in {modules!r}: importlib.import_module(name)\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'rich')"
        " or m.startswith('orch_tui.tui'))\n"
        "print(','.join(bad))\n"
    )
    output = _run_python(code, tmp_path)

    assert len(modules) > 20  # every core module really was imported
    assert output == ""


def _imported_names(path: Path) -> set[str]:
    """Every module an import statement in ``path`` names, at any depth (in functions too)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def test_no_core_source_names_textual_rich_or_tui_even_in_a_function() -> None:
    """The subprocess check above sees module-level imports; this one also sees a lazy import
    inside a function that the import alone would not run."""
    offending = {
        f"{path.relative_to(ROOT)}: {name}"
        for path in (ROOT / "core").rglob("*.py")
        if "demo" not in path.parts
        for name in _imported_names(path)
        if name.split(".")[0] in ("textual", "rich") or name.startswith("orch_tui.tui")
    }
    assert offending == set()


def test_the_review_screen_does_not_import_the_app(tmp_path: Path) -> None:
    """The screen asks the app for things by message; importing it loads no app module."""
    code = "import sys\nimport orch_tui.tui.screens.review.screen\nprint('orch_tui.tui.app' in sys.modules)\n"
    output = _run_python(code, tmp_path)

    assert output == "False"


def test_the_themes_and_the_diff_view_load_without_pydantic(tmp_path: Path) -> None:
    """A diff view on its own (as the benchmarks show one) pays for Textual, not for the
    config's models: the theme names live apart from them."""
    code = (
        "import sys\nimport orch_tui.themes, orch_tui.tui.widgets.diff.view\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'pydantic'"
        " or m == 'orch_tui.core.config.models'))\n"
    )
    output = _run_python(code, tmp_path)

    assert output == "[]"


def test_the_minimum_constraints_pin_every_lower_bound_of_pyproject() -> None:
    """CI tests the lowest versions pyproject.toml allows: the pins must be those bounds."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    bounds = {}
    for line in [*project["dependencies"], *project["optional-dependencies"]["test"]]:
        requirement = Requirement(line)
        lower = [spec.version for spec in requirement.specifier if spec.operator == ">="]
        if lower:
            bounds[canonicalize_name(requirement.name)] = Version(lower[0])
    constraints = (ROOT / ".ci" / "minimum-constraints.txt").read_text(encoding="utf-8")
    pins = {}
    for line in constraints.splitlines():
        if line.strip() and not line.startswith("#"):
            name, version = line.split("==")
            pins[canonicalize_name(name)] = Version(version)

    assert pins == bounds
    assert "textual" in pins and pins["textual"] >= Version("5"), "textual.highlight is needed"
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert ".ci/test-minimums" in ci.splitlines()
    assert "-c .ci/minimum-constraints.txt" in (ROOT / ".ci" / "test-minimums").read_text()
