"""Which specs a batch runs, and the names their folders get."""

from __future__ import annotations

from pathlib import Path

import pytest

from orch_tui.core.batch.specs import BatchError, collect_specs, spec_name


def write(path: Path, text: str = "# a spec\n") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def binary_spec(root: Path) -> Path:
    path = root / "bin.md"
    path.write_bytes(b"\xff\xfe\x00")
    return path


def test_files_and_folders_give_named_specs_in_order(tmp_path: Path) -> None:
    write(tmp_path / "dir" / "b.md")
    write(tmp_path / "dir" / "a.md")
    write(tmp_path / "dir" / "notes.json", "{}")  # not a spec: a folder's other files are skipped
    single = write(tmp_path / "z spec.txt")

    specs = collect_specs([tmp_path / "dir", single])

    assert [s.name for s in specs] == ["a", "b", "z-spec"]
    assert specs[2].path == single.resolve()


def test_the_same_file_twice_is_one_run(tmp_path: Path) -> None:
    spec = write(tmp_path / "a.md")
    assert len(collect_specs([spec, spec])) == 1


@pytest.mark.parametrize(
    ("make", "says"),
    [
        (lambda root: root / "missing.md", "no such file or folder"),
        (lambda root: (root / "empty").mkdir() or root / "empty", "no specs in this folder"),
        (lambda root: write(root / "data.csv", "a,b\n"), "not a spec"),
        (lambda root: write(root / "blank.md", "  \n"), "the spec is empty"),
        (binary_spec, "cannot be read as text"),
    ],
)
def test_bad_input_names_the_file_and_what_is_wrong(
    tmp_path: Path, make: object, says: str
) -> None:
    target = make(tmp_path)  # type: ignore[operator]
    with pytest.raises(BatchError) as caught:
        collect_specs([target])
    assert says in str(caught.value) and str(target.name) in str(caught.value)


def test_two_specs_with_one_name_are_refused(tmp_path: Path) -> None:
    first = write(tmp_path / "one" / "calc.md")
    second = write(tmp_path / "two" / "calc.md")
    with pytest.raises(BatchError, match="two specs are named 'calc'"):
        collect_specs([first, second])


def test_a_spec_name_is_safe_as_a_folder_name() -> None:
    assert spec_name(Path("../My Spec (v2).md")) == "My-Spec-v2"
    assert spec_name(Path("...md")) == "spec"
