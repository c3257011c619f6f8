"""What mutmut found, read back from its ``mutants/`` folder in the throwaway copy.

For each mutated source file mutmut keeps ``mutants/<path>.meta`` (JSON: each mutant's name
and the exit code of the tests run against it, ``None`` until it ran) and ``mutants/<path>``,
the file rewritten with, for each mutated function ``f``, a copy ``x_f__mutmut_orig`` and one
function per mutant, ``x_f__mutmut_1`` and on (``xǁClassǁm__mutmut_1`` for a method). The two
copies differ only by the mutation, so their line diff gives the mutant's line in the source
(the function's ``def`` line plus the offset) and a short description of it (the code before
and after, comments dropped).

A mutant none of whose changed lines is a line the run changed is left out (see
``core.checks.mutation_marks`` for why mutmut can make a few): the report covers the changed
lines exactly. The exit codes read as: 0 survived (the tests passed); 5 or 33 survived with
no test that runs the code; none (or 2, interrupted; 34, skipped) not run; any other code
killed (a test failed, timed out or crashed).
"""

from __future__ import annotations

import ast
import difflib
import io
import json
import os
import tokenize
from collections.abc import Collection, Mapping
from dataclasses import field
from pathlib import Path
from typing import Any

from orch_tui.core.util.records import record

KILLED, SURVIVED, NO_TESTS, NOT_RUN = "killed", "survived", "no tests", "not run"
_GENERATED = "__mutmut_"
_CLASS_MARK = "ǁ"
_WIDTH = 60


@record(frozen=True)
class MutantResult:
    path: str
    line: int
    description: str
    """``return age >= 18 → return age > 18``."""
    status: str
    """:data:`KILLED`, :data:`SURVIVED`, :data:`NO_TESTS` (survived: no test runs the code)
    or :data:`NOT_RUN`."""

    @property
    def where(self) -> str:
        return f"{self.path}:{self.line}"

    @property
    def survived(self) -> bool:
        return self.status in (SURVIVED, NO_TESTS)


@record
class MutationReport:
    results: list[MutantResult] = field(default_factory=list)
    stopped: str = ""
    """Why it stopped before every mutant ran (``Ctrl+C``, a timeout); empty when it did not."""

    @property
    def total(self) -> int:
        return len(self.results)

    @property
    def cancelled(self) -> bool:
        return bool(self.stopped)

    @property
    def killed(self) -> int:
        return sum(result.status == KILLED for result in self.results)

    @property
    def survivors(self) -> list[MutantResult]:
        return [result for result in self.results if result.survived]

    def summary(self) -> str:
        """``4 mutants: 2 killed, 2 survived`` (and where it stopped, when it did)."""
        line = f"{self.total} mutants: {self.killed} killed, {len(self.survivors)} survived"
        if self.stopped:
            ran = sum(result.status != NOT_RUN for result in self.results)
            line += f"; stopped ({self.stopped}) after {ran} of {self.total}"
        return line

    def survivor_lines(self) -> list[str]:
        """``calc.py:2: return age >= 18 → return age > 18``, one per surviving mutant."""
        return [f"{r.where}: {r.description}{_note(r)}" for r in self.survivors]

    def to_json(self) -> dict[str, Any]:
        return {
            "total": self.total,
            "killed": self.killed,
            "survived": len(self.survivors),
            "cancelled": self.cancelled,
            "stopped": self.stopped,
            "survivors": [
                {"path": r.path, "line": r.line, "mutation": r.description, "status": r.status}
                for r in self.survivors
            ],
        }


def _note(result: MutantResult) -> str:
    return " (no test runs it)" if result.status == NO_TESTS else ""


def read_results(copy: Path, lines: Mapping[str, Collection[int]]) -> list[MutantResult]:
    """Every mutant of ``lines`` (path -> changed lines) that mutmut made in ``copy``, in
    file and line order. Files without results (not mutated, or stopped early) add none."""
    found: list[MutantResult] = []
    for path, wanted in sorted(lines.items()):
        meta = copy / "mutants" / f"{path}.meta"
        try:
            codes = json.loads(meta.read_text(encoding="utf-8"))["exit_code_by_key"]
            mutated = (copy / "mutants" / path).read_text(encoding="utf-8")
            generated = _functions(ast.parse(mutated))
            origins = _def_lines(ast.parse((copy / path).read_text(encoding="utf-8")))
        except (OSError, ValueError, KeyError, TypeError, SyntaxError):
            continue
        text = mutated.splitlines()
        for key, code in codes.items() if isinstance(codes, dict) else ():
            name = str(key).rpartition(".")[2]
            located = _locate(name, generated, origins, text)
            if located is None:
                continue
            changed, description = located
            on_changed = [line for line in changed if line in wanted]
            if on_changed:
                found.append(MutantResult(path, on_changed[0], description, _status(code)))
    return sorted(found, key=lambda r: (r.path, r.line))


def _status(code: object) -> str:
    if code is None or code in (2, 34):
        return NOT_RUN
    if code == 0:
        return SURVIVED
    if code in (5, 33):
        return NO_TESTS
    return KILLED


FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef


def _functions(tree: ast.Module) -> dict[str, FunctionNode]:
    """The functions of a module and the methods of its classes, by name."""
    found: dict[str, FunctionNode] = {}
    for node in tree.body:
        members = node.body if isinstance(node, ast.ClassDef) else [node]
        for member in members:
            if isinstance(member, ast.FunctionDef | ast.AsyncFunctionDef):
                found[member.name] = member
    return found


def _def_lines(tree: ast.Module) -> dict[str, int]:
    """The ``def`` line of each function and method, by the name mutmut gives it
    (``x_f``, ``xǁClassǁm``)."""
    found: dict[str, int] = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            found[f"x_{node.name}"] = node.lineno
        elif isinstance(node, ast.ClassDef):
            for member in node.body:
                if isinstance(member, ast.FunctionDef | ast.AsyncFunctionDef):
                    found[f"x{_CLASS_MARK}{node.name}{_CLASS_MARK}{member.name}"] = member.lineno
    return found


def _locate(
    name: str, generated: dict[str, FunctionNode], origins: dict[str, int], text: list[str]
) -> tuple[list[int], str] | None:
    """The source lines mutant ``name`` changes and its description, or None when the
    mutated file does not hold what mutmut's naming promises."""
    mangled = name.partition(_GENERATED)[0]
    original, mutant = generated.get(f"{mangled}{_GENERATED}orig"), generated.get(name)
    start = origins.get(mangled)
    if original is None or mutant is None or start is None:
        return None
    before, after = _body(original, text), _body(mutant, text)
    opcodes = difflib.SequenceMatcher(None, before, after, autojunk=False).get_opcodes()
    changes = [op for op in opcodes if op[0] != "equal"]
    if not changes:
        return None
    i1, j1 = changes[0][1], changes[0][3]
    i2, j2 = changes[-1][2], changes[-1][4]
    lines = list(range(start + i1, start + max(i2, i1 + 1)))
    was = _statement(original, text, original.lineno + i1, original.lineno + max(i2, i1 + 1) - 1)
    now = _statement(mutant, text, mutant.lineno + j1, mutant.lineno + max(j2, j1 + 1) - 1)
    return lines, _describe(_code(was), _code(now))


def _body(function: FunctionNode, text: list[str]) -> list[str]:
    """The function's lines, from its ``def`` line, with its generated name blanked."""
    lines = text[function.lineno - 1 : function.end_lineno]
    if lines:
        lines[0] = lines[0].replace(function.name, "", 1)
    return lines


def _statement(function: FunctionNode, text: list[str], first: int, last: int) -> list[str]:
    """The lines of the smallest statement of ``function`` holding lines ``first`` to
    ``last`` of ``text`` (a compound statement's header only), else those lines."""
    best = (first, last)
    found = False
    for node in ast.walk(function):
        if not isinstance(node, ast.stmt) or node is function:
            continue
        end = node.end_lineno or node.lineno
        body = getattr(node, "body", None)
        if isinstance(body, list) and body:
            end = max(node.lineno, body[0].lineno - 1)
        if node.lineno <= first and last <= end:
            if not found or end - node.lineno < best[1] - best[0]:
                best, found = (node.lineno, end), True
    return text[best[0] - 1 : best[1]]


def _describe(before: str, after: str) -> str:
    """``before → after``, each cut to about :data:`_WIDTH` characters around where they differ."""
    if max(len(before), len(after)) <= _WIDTH:
        return f"{before} → {after}"
    prefix = len(os.path.commonprefix([before, after]))
    suffix = len(os.path.commonprefix([before[prefix:][::-1], after[prefix:][::-1]]))
    cut = max(0, prefix - _WIDTH // 3)

    def trimmed(code: str) -> str:
        keep = min(max(len(code) - suffix + _WIDTH // 3, prefix + 1), cut + _WIDTH)
        middle = code[cut:keep]
        return ("…" if cut else "") + middle + ("…" if keep < len(code) else "")

    return f"{trimmed(before)} → {trimmed(after)}"


def _code(lines: list[str]) -> str:
    """Lines as one line of code: comments dropped, spaces collapsed."""
    if not lines:
        return "(removed)"
    return " ".join(" ".join(_without_comment(line).split()) for line in lines).strip()


def _without_comment(line: str) -> str:
    text = line.strip()
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type == tokenize.COMMENT:
                return text[: token.start[1]]
    except (tokenize.TokenError, SyntaxError):
        pass
    return text
