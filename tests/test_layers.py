"""The layer rule of DESIGN.md section 8, as import-linter contracts (pyproject.toml).

core is layered, lowest first: util < config < domain < runlog < workspace, providers < checks <
attempt < loop, history < doctor; loop and history never import each other; core never imports
Textual, Rich or tui; the command line imports no Textual of its own.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LINT_IMPORTS = shutil.which("lint-imports", path=str(Path(sys.executable).parent))


def _installed_shape(into: Path) -> Path:
    """``orch_tui/core`` and so on as links to the folders at the root, so the contracts read
    the sources whatever the install mode (an editable install has no ``orch_tui`` folder)."""
    package = into / "orch_tui"
    package.mkdir(parents=True)
    # A regular package here wins over an installed orch_tui (a namespace portion) on the path.
    (package / "__init__.py").write_text("")
    for name in ("core", "tui", "themes"):
        (package / name).symlink_to(ROOT / name, target_is_directory=True)
    return into


def _lint(config: Path, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    assert LINT_IMPORTS, "import-linter comes with the test extra"
    return subprocess.run(
        [LINT_IMPORTS, str(config), "--no-cache"],
        cwd=ROOT,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(_installed_shape(tmp_path / "src"))},
        capture_output=True,
        text=True,
    )


def test_every_layer_contract_is_kept(tmp_path: Path) -> None:
    result = _lint(ROOT / "pyproject.toml", tmp_path)

    assert result.returncode == 0, result.stdout + result.stderr
    assert "3 kept, 0 broken" in result.stdout


def test_the_layers_name_every_folder_of_core() -> None:
    """A new folder of core has a place in the layer order (or the contract would not see it)."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    (layered,) = [c for c in config["contracts"] if c["type"] == "layers"]
    named = {name.strip() for layer in layered["layers"] for name in layer.split("|")}
    folders = {p.parent.name for p in (ROOT / "core").glob("*/__init__.py")}

    assert folders <= named, sorted(folders - named)
    assert [p.stem for p in (ROOT / "core").glob("*.py") if p.stem != "__init__"] == ["doctor"]


@pytest.mark.parametrize(
    ("module", "line"),
    [
        ("core/util/wording.py", "from orch_tui.core.domain import events"),
        ("core/history/costs.py", "from orch_tui.core.loop import engine"),
        ("core/domain/spec.py", "import textual"),
    ],
)
def test_an_upward_import_breaks_a_contract(
    tmp_path: Path, module: str, line: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The contracts really bite: the same sources with one forbidden import added fail."""
    copy = tmp_path / "repo"
    for name in ("core", "tui", "themes"):
        shutil.copytree(ROOT / name, copy / name, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy2(ROOT / "pyproject.toml", copy / "pyproject.toml")
    target = copy / module
    target.write_text(target.read_text() + "\n" + line + "  # noqa\n")
    monkeypatch.setattr(sys.modules[__name__], "ROOT", copy)

    result = _lint(copy / "pyproject.toml", tmp_path)

    assert result.returncode != 0
    assert "BROKEN" in result.stdout
