"""Mutants of the lines a run changed: a small mutation engine over Python's ``ast``.

Why not mutmut (3.x, the well-kept tool; 3.8.1 looked at): it mutates the files named in its
config (or, with ``mutate_only_covered_lines``, the lines coverage saw), never a chosen set of
changed lines; its mutants are trampolines that import mutmut itself inside the tests'
process, so it (with libcst, click and Textual) would have to live in the project's ``.venv``;
and it runs the tests with its own forking runner, outside our sandbox. Its line filter
exists only as internal API (``create_mutations(covered_lines=...)``) that reads its config
from the working folder. Mutating only what the run changed, sandboxed like every check, is
the point here, so this module generates the mutants itself and ``core.checks.verify_run``
runs the tests per mutant.

The operators, each applied alone to one node that starts on a chosen line:

- comparisons: ``<`` ↔ ``<=``, ``>`` ↔ ``>=``, ``==`` ↔ ``!=``, ``is`` ↔ ``is not``,
  ``in`` ↔ ``not in``;
- arithmetic (also in ``+=`` and the like): ``+`` ↔ ``-``, ``*`` ↔ ``/``, ``//`` → ``*``,
  ``%`` → ``//``, ``**`` → ``*``;
- ``True`` ↔ ``False``; ``and`` ↔ ``or``; ``not x`` → ``x``;
- integer constants off by one (``n`` → ``n + 1``);
- ``return <value>`` → ``return None``.

A mutant is the original text with only the node's own span replaced (an expression in
parentheses), so comments, formatting and every other line stay as they were. Some mutants
are equivalent to the original (no test could tell them apart): a survivor is a line to look
at, not proof of a missing test.
"""

from __future__ import annotations

import ast
import copy
from collections.abc import Collection, Iterator
from dataclasses import dataclass

_COMPARE: dict[type[ast.cmpop], type[ast.cmpop]] = {
    ast.Lt: ast.LtE,
    ast.LtE: ast.Lt,
    ast.Gt: ast.GtE,
    ast.GtE: ast.Gt,
    ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq,
    ast.Is: ast.IsNot,
    ast.IsNot: ast.Is,
    ast.In: ast.NotIn,
    ast.NotIn: ast.In,
}
_ARITHMETIC: dict[type[ast.operator], type[ast.operator]] = {
    ast.Add: ast.Sub,
    ast.Sub: ast.Add,
    ast.Mult: ast.Div,
    ast.Div: ast.Mult,
    ast.FloorDiv: ast.Mult,
    ast.Mod: ast.FloorDiv,
    ast.Pow: ast.Mult,
}


@dataclass(frozen=True)
class Mutant:
    """One mutation of one file: where, what, and the file's whole mutated text."""

    path: str
    line: int
    col: int
    description: str
    """``a < b`` → ``a <= b``."""
    text: str

    @property
    def where(self) -> str:
        return f"{self.path}:{self.line}"


def mutants(path: str, source: str, lines: Collection[int]) -> list[Mutant]:
    """Every mutant of ``source`` whose node starts on one of ``lines`` (1-based), in order.

    A source that does not parse has no mutants."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return []
    offsets = _line_offsets(source)
    found: list[Mutant] = []
    for node in _candidates(tree, set(lines)):
        for mutated in _mutations(node):
            before = ast.get_source_segment(source, node)
            if before is None:
                continue
            after = ast.unparse(mutated)
            if isinstance(node, ast.expr):
                after = f"({after})"
            start = offsets[node.lineno - 1] + _char_col(
                source, offsets, node.lineno, node.col_offset
            )
            end_line = node.end_lineno or node.lineno
            end_col = node.end_col_offset or 0
            end = offsets[end_line - 1] + _char_col(source, offsets, end_line, end_col)
            text = source[:start] + after + source[end:]
            description = f"{_one_line(before)} → {_one_line(ast.unparse(mutated))}"
            found.append(Mutant(path, node.lineno, node.col_offset, description, text))
    return found


def _candidates(tree: ast.Module, lines: set[int]) -> Iterator[ast.expr | ast.stmt]:
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
    }
    excluded = docstrings | _annotations(tree)
    for node in ast.walk(tree):
        if not isinstance(node, ast.expr | ast.stmt):
            continue
        if node.lineno in lines and id(node) not in excluded:
            yield node


def _annotations(tree: ast.Module) -> set[int]:
    """Nodes inside annotations (mutating a type hint changes nothing a test can see) and
    inside f-strings (whose inner positions Python 3.11 does not give reliably)."""
    found: set[int] = set()
    for node in ast.walk(tree):
        hints: list[ast.expr | None] = []
        if isinstance(node, ast.JoinedStr):
            hints.append(node)
        if isinstance(node, ast.arg | ast.AnnAssign):
            hints.append(node.annotation)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            hints.append(node.returns)
        for hint in hints:
            if hint is not None:
                found.update(id(inner) for inner in ast.walk(hint))
    return found


def _mutations(node: ast.AST) -> Iterator[ast.AST]:
    """The mutated copies of ``node`` (each one change)."""
    if isinstance(node, ast.Compare):
        for index, op in enumerate(node.ops):
            swap = _COMPARE.get(type(op))
            if swap is not None:
                mutated = copy.deepcopy(node)
                mutated.ops[index] = swap()
                yield mutated
    elif isinstance(node, ast.BinOp | ast.AugAssign) and type(node.op) in _ARITHMETIC:
        mutated_op = copy.deepcopy(node)
        mutated_op.op = _ARITHMETIC[type(node.op)]()
        yield mutated_op
    elif isinstance(node, ast.BoolOp):
        mutated_bool = copy.deepcopy(node)
        mutated_bool.op = ast.Or() if isinstance(node.op, ast.And) else ast.And()
        yield mutated_bool
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        yield copy.deepcopy(node.operand)
    elif isinstance(node, ast.Constant) and isinstance(node.value, bool):
        yield ast.Constant(not node.value)
    elif isinstance(node, ast.Constant) and type(node.value) is int:
        yield ast.Constant(node.value + 1)
    elif isinstance(node, ast.Return) and node.value is not None:
        if not (isinstance(node.value, ast.Constant) and node.value.value is None):
            yield ast.Return(ast.Constant(None))


def _line_offsets(source: str) -> list[int]:
    offsets = [0]
    for line in source.splitlines(keepends=True):
        offsets.append(offsets[-1] + len(line))
    return offsets


def _char_col(source: str, offsets: list[int], line: int, byte_col: int) -> int:
    """``ast`` columns count UTF-8 bytes; string slicing counts characters."""
    text = source[offsets[line - 1] : offsets[line] if line < len(offsets) else len(source)]
    return len(text.encode("utf-8")[:byte_col].decode("utf-8", errors="ignore"))


def _one_line(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= 60 else flat[:57] + "..."
