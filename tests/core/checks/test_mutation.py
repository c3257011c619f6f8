"""``verify --mutation``'s parts around mutmut: the pragmas that keep it to the changed lines
(checked with mutmut's own pragma reader), reading its results back, a Ctrl+C part-way and a
``.venv`` it cannot be put into. The real run is in ``test_verify_run``."""

from __future__ import annotations

import json
import sys
import tomllib
from pathlib import Path

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper
from mutmut.mutation.pragma_handling import PragmaVisitor

from orch_tui.core.checks.mutation import MutationUnavailable, prepare_copy, run_mutation
from orch_tui.core.checks.mutation_marks import PRAGMA, mark_unchanged
from orch_tui.core.checks.mutation_results import KILLED, NOT_RUN, SURVIVED
from orch_tui.core.checks.runner import CheckSpec
from orch_tui.core.checks.sandbox import Limits, resolve_sandbox
from orch_tui.core.config.models import Config

SOURCE = '''import os


def f(a, b):
    """A docstring
    of two lines."""
    x = foo(a,
            b + 1)
    if (a and
            b):
        return 1
    s = """text # not a comment
    more""" + str(a)
    y = 1 + \\
        2
    return x  # keep


class C:
    def m(self, n=3):
        return n * 2
'''
STATEMENTS = {1, 4, 5, 7, 9, 11, 12, 14, 16, 19, 20, 21}
"""The lines a statement or a clause header starts on."""


def no_mutate_lines(source: str) -> set[int]:
    """The lines mutmut reads as ``# pragma: no mutate`` in ``source``."""
    visitor = PragmaVisitor("f.py")
    MetadataWrapper(cst.parse_module(source)).visit(visitor)
    return visitor.no_mutate_lines


@pytest.mark.parametrize("wanted", [set(), {8}, {7}, {9, 10}, {11}, {13}, {16, 21}, {12, 13}])
def test_the_pragmas_keep_mutmut_off_every_unchanged_statement_and_never_a_changed_line(
    wanted: set[int],
) -> None:
    marked = mark_unchanged(SOURCE, wanted)
    compile(marked, "f.py", "exec")
    after_string = '    more""" + str(a)' + ("" if 12 in wanted else "  " + PRAGMA)
    assert marked.splitlines()[12] == after_string  # marks the line the statement starts on
    assert "text # not a comment\n" in marked  # inside it: untouched
    assert "1 + \\\n" in marked  # a backslash continuation: untouched
    ignored = no_mutate_lines(marked)
    assert not ignored & wanted
    assert STATEMENTS - wanted <= ignored | {13}  # 13 is inside a string
    # Inside brackets each line is marked on its own (7 and 9 open them):
    assert {7, 9} - wanted <= ignored


def test_a_file_that_does_not_tokenize_is_left_alone() -> None:
    assert mark_unchanged("def broken(:\n    (\n", {1}) == "def broken(:\n    (\n"


# A mutants folder as mutmut 3.8 leaves it: the rewritten file and its meta.
MUTATED = """from mutmut.mutation.trampoline import wrap_in_trampoline as _mutmut_mutated, MutantDict
mutants_x_is_adult__mutmut: MutantDict = {}  # type: ignore
@_mutmut_mutated(mutants_x_is_adult__mutmut)
def is_adult(age):
    return age >= 18  # the law
def x_is_adult__mutmut_orig(age):
    return age >= 18  # the law
def x_is_adult__mutmut_1(age):
    return age > 18  # the law
def x_is_adult__mutmut_2(age):
    return age >= 19  # the law


class Box:
    def xǁBoxǁopen__mutmut_orig(self):
        self.state = "open"
        return dict(state=self.state,
                    ok=True)
    def xǁBoxǁopen__mutmut_1(self):
        self.state = "open"
        return dict(state=self.state,
                    ok=False)
"""
CALC = (
    "def is_adult(age):\n    return age >= 18  # the law\n\n\n"
    'class Box:\n    def open(self):\n        self.state = "open"\n'
    "        return dict(state=self.state,\n                    ok=True)\n"
)


def fake_mutmut(copy: Path, codes: dict[str, int | None]) -> None:
    (copy / "mutants").mkdir()
    (copy / "mutants" / "calc.py").write_text(MUTATED)
    (copy / "mutants" / "calc.py.meta").write_text(json.dumps({"exit_code_by_key": codes}))


def test_ctrl_c_part_way_reports_the_mutants_done_by_then(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    copy = tmp_path / "copy"
    copy.mkdir()
    (copy / "calc.py").write_text(CALC)
    venv_python = tmp_path / ".venv" / "bin" / "python"
    venv_python.parent.mkdir(parents=True)
    venv_python.symlink_to(sys.executable)
    config = Config()
    config.checks.python = sys.executable  # has mutmut: nothing to install
    progress: list[tuple[int, int]] = []
    steps: list[str] = []

    def interrupted(spec: CheckSpec, workspace: Path, *_args: object, **kwargs: object) -> None:
        assert "# pragma: no mutate" in (workspace / "calc.py").read_text()  # line 1 unchanged
        # One check like the tests: the project's interpreter, the same sandbox and limits
        # (bubblewrap wherever it works), the project's .venv read-only.
        assert spec.command[:2] == [sys.executable, "-c"] and spec.command[-1] == "run"
        limits = Limits.from_config(config.checks)
        assert kwargs["sandbox"] == resolve_sandbox(config.checks.sandbox).with_limits(limits)
        assert kwargs["read_only"] == [tmp_path / ".venv"]
        on_output = kwargs["on_output"]
        assert callable(on_output)
        on_output("\r⠋ Generating mutants\r⠙ Generating mutants\n    done in 3ms\n\r⠹ Running st")
        on_output("ats\n    done\nRunning mutation testing\n")
        on_output("\r⠋ 0/3  🎉 0 🫥 0  ⏰ 0  🤔 0  🙁 0  🔇 0  🧙 0")
        on_output("\r⠙ 2/3  🎉 1 🫥 0  ⏰ 0  🤔 0  🙁 1  🔇 0  🧙 0")
        fake_mutmut(workspace, {"calc.x_is_adult__mutmut_1": 0, "calc.xǁBoxǁopen__mutmut_1": 1})
        with (workspace / "mutants" / "calc.py.meta").open("r+") as meta:
            data = json.load(meta)
            data["exit_code_by_key"]["calc.x_is_adult__mutmut_2"] = None  # not run yet
            meta.seek(0)
            json.dump(data, meta)
        raise KeyboardInterrupt  # the runner has killed mutmut's process group by then

    monkeypatch.setattr("orch_tui.core.checks.mutation.run_check", interrupted)
    report = run_mutation(
        config,
        tmp_path,
        copy,
        tmp_path / "reports",
        {"calc.py": [2, 9]},
        on_progress=lambda done, total: progress.append((done, total)),
        on_step=steps.append,
    )
    assert progress == [(0, 3), (2, 3)]
    assert steps == [
        "making the mutants of the changed lines",
        "running the tests once to see which tests run which function",  # split across reads
        "running the tests against each mutant",
    ]
    assert [(r.where, r.status) for r in report.results] == [
        ("calc.py:2", SURVIVED),
        ("calc.py:2", NOT_RUN),
        ("calc.py:9", KILLED),
    ]
    assert report.results[0].description == "return age >= 18 → return age > 18"
    assert report.results[2].description == (  # the whole statement, on the line it changes
        "return dict(state=self.state, ok=True) → return dict(state=self.state, ok=False)"
    )
    assert report.summary() == "3 mutants: 1 killed, 1 survived; stopped (Ctrl+C) after 2 of 3"
    assert report.to_json()["cancelled"] is True


def calc_copy(tmp_path: Path) -> tuple[Path, Config]:
    """A copy holding ``calc.py``, and a config whose checks run on this interpreter."""
    copy = tmp_path / "copy"
    copy.mkdir()
    (copy / "calc.py").write_text(CALC)
    config = Config()
    config.checks.python = sys.executable
    return copy, config


def test_a_mutant_off_the_changed_lines_is_left_out_of_the_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    copy, config = calc_copy(tmp_path)

    def ran(spec: object, workspace: Path, *_args: object, **_kwargs: object) -> object:
        fake_mutmut(workspace, {"calc.x_is_adult__mutmut_1": 0, "calc.xǁBoxǁopen__mutmut_1": 1})
        return type("Done", (), {"timed_out": False, "exit_code": 0})()

    monkeypatch.setattr("orch_tui.core.checks.mutation.run_check", ran)
    report = run_mutation(config, tmp_path, copy, tmp_path / "reports", {"calc.py": [9]})
    assert report.summary() == "1 mutants: 1 killed, 0 survived"


def test_mutmut_not_installable_in_a_persons_own_venv_is_said_not_crashed(
    tmp_path: Path,
) -> None:
    workspace = tmp_path / "workspace"
    own = workspace / ".venv" / "bin" / "python"  # theirs: no marker of orch-tui's
    own.parent.mkdir(parents=True)
    own.symlink_to(sys.executable)
    (workspace / "calc.py").write_text(CALC)
    with pytest.raises(MutationUnavailable, match="mutmut is not installed in .*own environment"):
        run_mutation(Config(), workspace, workspace, tmp_path / "reports", {"calc.py": [2]})
    assert "pragma" not in (workspace / "calc.py").read_text()  # nothing was prepared


def test_the_copy_gets_mutmuts_config_beside_the_projects_own(tmp_path: Path) -> None:
    (tmp_path / "calc.py").write_text(CALC)
    (tmp_path / "tests").mkdir()
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "calc"\n\n[tool.pytest.ini_options]\naddopts = "-q"\n\n'
        '[tool.mutmut]\nsource_paths = ["elsewhere"]\n'
    )
    (tmp_path / "mutants").mkdir()  # a person's earlier mutmut run: its results are stale
    (tmp_path / "mutants" / "calc.py.meta").write_text("{}")
    prepare_copy(tmp_path, {"calc.py": [2]})
    assert not (tmp_path / "mutants").exists()

    data = tomllib.loads((tmp_path / "pyproject.toml").read_text())
    assert data["project"] == {"name": "calc"}
    assert data["tool"]["pytest"] == {"ini_options": {"addopts": "-q"}}
    assert data["tool"]["mutmut"]["source_paths"] == ["calc.py"]
    assert data["tool"]["mutmut"]["also_copy"] == ["calc.py", "pyproject.toml", "tests"]
    assert data["tool"]["mutmut"]["pytest_add_cli_args"][-2:] == ["-c", "pyproject.toml"]
    (tmp_path / "pyproject.toml").write_text("[broken\n")
    with pytest.raises(MutationUnavailable, match="pyproject.toml"):
        prepare_copy(tmp_path, {"calc.py": [2]})


STOPPED_EARLY = (
    "\r⠋ Running stats\n    done\nStopping early, because we could not find any test case "
    "for any mutant. It seems that the selected tests do not cover any code that we mutated.\n"
)


@pytest.mark.parametrize(
    ("codes", "expected"),
    [
        ({"calc.x_is_adult__mutmut_1": None}, "mutmut stopped: .*Stopping early"),  # no test
        (None, "mutmut stopped: .*Stopping early"),  # it made no mutants folder at all
        ({}, None),  # nothing to mutate on the changed lines: an empty report, no error
    ],
)
def test_mutmut_failing_before_any_mutant_ran_is_a_clear_error(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    codes: dict[str, int | None] | None,
    expected: str | None,
) -> None:
    copy, config = calc_copy(tmp_path)

    def failed(spec: object, workspace: Path, *_args: object, **_kwargs: object) -> object:
        if codes is not None:
            fake_mutmut(workspace, codes)
        fields = {"timed_out": False, "exit_code": 1, "output": STOPPED_EARLY, "error": None}
        return type("Done", (), fields)()

    monkeypatch.setattr("orch_tui.core.checks.mutation.run_check", failed)
    if expected is None:
        report = run_mutation(config, tmp_path, copy, tmp_path / "reports", {"calc.py": [2]})
        assert report.summary() == "0 mutants: 0 killed, 0 survived"
        return
    with pytest.raises(MutationUnavailable, match=expected) as raised:
        run_mutation(config, tmp_path, copy, tmp_path / "reports", {"calc.py": [2]})
    assert "⠋" not in str(raised.value)  # its spinner is left out
