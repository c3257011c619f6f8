"""Reading tests from Python source with ``ast``: which tests a file defines and their parts.

The tests pytest would collect by name (a ``test*`` function, or a ``test*`` method of a
``Test*`` class), with the marks they carry and their ``parametrize`` case lists; used to judge
a change to a test (core.domain.test_weakening) and to name the tests an attempt adds.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from typing import TypeGuard

from orch_tui.core.util.records import record


@record
class TestDef:
    """One test in a file: its node id tail (``TestMath::test_add``) and syntax tree."""

    __test__ = False  # not a pytest test class, whatever its name

    name: str
    node: ast.FunctionDef | ast.AsyncFunctionDef
    scope: str
    """The class name, or "" at module level."""
    inherited_marks: list[ast.expr]


def defined_tests(source: str) -> list[str]:
    """The tests ``source`` defines (``test_add``, ``TestMath::test_add``); none if it does not
    parse."""
    try:
        return list(tests_in(ast.parse(source)))
    except (SyntaxError, ValueError):
        return []


def tests_in(tree: ast.Module) -> dict[str, TestDef]:
    def is_test(node: ast.stmt) -> TypeGuard[ast.FunctionDef | ast.AsyncFunctionDef]:
        return isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name[:4] == "test"

    found = {node.name: TestDef(node.name, node, "", []) for node in tree.body if is_test(node)}
    for group in tree.body:
        if isinstance(group, ast.ClassDef) and group.name.startswith("Test"):
            for item in filter(is_test, group.body):
                name = f"{group.name}::{item.name}"
                found[name] = TestDef(name, item, group.name, list(group.decorator_list))
    return found


def body_dump(test: TestDef) -> str:
    return "\n".join(ast.dump(statement) for statement in test.node.body)


def walk_body(test: TestDef) -> Iterator[ast.AST]:
    for statement in test.node.body:
        yield from ast.walk(statement)


def parametrized_cases(test: TestDef) -> dict[str, list[ast.expr]]:
    """The literal case lists of the test's ``parametrize`` marks, by their argument names."""
    found: dict[str, list[ast.expr]] = {}
    for mark in test.node.decorator_list:
        if not isinstance(mark, ast.Call) or mark_name(mark) != "parametrize":
            continue
        args = list(mark.args) + [k.value for k in mark.keywords if k.arg == "argvalues"]
        if len(args) < 2 or not isinstance(args[1], ast.List | ast.Tuple):
            continue
        key = ast.unparse(args[0]) if not isinstance(args[0], ast.Constant) else str(args[0].value)
        found[key] = list(args[1].elts)
    return found


def marks_of(test: TestDef) -> list[ast.expr]:
    return [*test.inherited_marks, *test.node.decorator_list]


def mark_name(mark: ast.expr) -> str:
    """``skip`` for ``@pytest.mark.skip``, ``@pytest.mark.skip(reason=...)``, ``@unittest.skip``."""
    target = mark.func if isinstance(mark, ast.Call) else mark
    return dotted_name(target).rsplit(".", 1)[-1]


def called_name(call: ast.Call) -> str:
    """The last name of what is called: ``skip`` for ``pytest.skip(...)``."""
    return dotted_name(call.func).rsplit(".", 1)[-1]


def dotted_name(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{dotted_name(node.value)}.{node.attr}"
    return ""


def line_of(node: ast.AST) -> int | None:
    return getattr(node, "lineno", None)
