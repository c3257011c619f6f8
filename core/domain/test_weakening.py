"""Weakened tests, found by comparing the syntax trees of a test file before and after a change.

A regex cannot tell ``assert add(2, 3) == 5`` from ``assert True``; Python's ``ast`` can. For
each test that existed before the change (a ``test*`` function, or a ``test*`` method of a
``Test*`` class) :func:`find_weakenings` compares the old and the new form and reports:

- an assert removed (``assert``, or a unittest ``self.assert*`` call), or replaced by an assert
  of a constant (``assert True``, ``assert 1``, ``assert "x"``);
- a skip, skipif or xfail added: a mark (``@pytest.mark.skip``, ``@unittest.skip``, on the test,
  its class or the module's ``pytestmark``) or a call (``pytest.skip(...)``,
  ``pytest.xfail(...)``, ``self.skipTest(...)``);
- ``pytest.raises(X)`` (or ``assertRaises``) broadened to ``Exception`` or ``BaseException``;
- a test deleted; a case removed from a ``parametrize`` list.

A test whose name changed but whose body did not is a rename, not a deletion; the other tests
that lost their name are paired in order with new ones in the same class, and compared as
above. Reformatting changes no tree, so it is never reported. Tests a change adds are not
judged here (whether they test anything is asked by running them on the old code). A new text
that does not parse is one finding of its own, never an exception.

Pure: text in, findings out. Lines are 1-based, ``line`` in the new text, ``old_line`` in the
old one.
"""

from __future__ import annotations

import ast
from collections import Counter
from collections.abc import Iterator
from enum import StrEnum

from orch_tui.core.domain.proposal import FileChange
from orch_tui.core.domain.test_syntax import (
    TestDef,
    body_dump,
    called_name,
    dotted_name,
    line_of,
    mark_name,
    marks_of,
    parametrized_cases,
    tests_in,
    walk_body,
)
from orch_tui.core.util.records import record


class WeakeningKind(StrEnum):
    REMOVED_ASSERT = "removed_assert"
    CONSTANT_ASSERT = "constant_assert"
    SKIP_ADDED = "skip_added"
    RAISES_BROADENED = "raises_broadened"
    TEST_DELETED = "test_deleted"
    PARAMETRIZE_CASE_REMOVED = "parametrize_case_removed"
    UNPARSABLE = "unparsable"


@record(frozen=True)
class Weakening:
    """One way a change weakens a test file."""

    kind: WeakeningKind
    test: str
    """``test_add``, ``TestMath::test_add``; empty for the whole module."""
    line: int | None = None
    old_line: int | None = None
    detail: str = ""
    """What exactly: the mark's name, the exception, the removed case."""

    def describe(self) -> str:
        """A sentence for the review: ``assert replaced by a constant in test_add``."""
        where = f" in {self.test}" if self.test else " in the module"
        if self.kind is WeakeningKind.CONSTANT_ASSERT and self.detail == REPLACED:
            return f"assert replaced by a constant{where}"
        detail = f" ({self.detail})" if self.detail else ""
        texts = {
            WeakeningKind.REMOVED_ASSERT: f"assert removed{where}",
            WeakeningKind.CONSTANT_ASSERT: f"assert of a constant{where}",
            WeakeningKind.SKIP_ADDED: f"skip or xfail added{where}",
            WeakeningKind.RAISES_BROADENED: f"pytest.raises broadened{where}",
            WeakeningKind.TEST_DELETED: f"test deleted: {self.test}",
            WeakeningKind.PARAMETRIZE_CASE_REMOVED: f"parametrize case removed{where}",
            WeakeningKind.UNPARSABLE: "the test file does not parse",
        }
        return texts[self.kind] + detail


REPLACED = "replaces an assert"
"""The detail of a constant assert that took the place of a real one."""
SKIP_NAMES = frozenset({"skip", "skipif", "xfail", "skipIf", "skipUnless", "expectedFailure"})
SKIP_CALLS = frozenset({"skip", "xfail", "skipTest"})
SKIP_CALLERS = frozenset({"", "pytest", "self", "unittest"})
"""What a skip call is called on: ``pytest.skip``, ``self.skipTest``, a bare imported ``skip``."""
BROAD = frozenset({"Exception", "BaseException"})
RAISES = frozenset({"raises", "assertRaises", "assertRaisesRegex"})


def find_weakenings(old: str | None, new: str | None) -> list[Weakening]:
    """How ``new`` weakens the tests of ``old`` (None: the file is added or deleted)."""
    new_tree: ast.Module | None = None
    if new is not None:
        try:
            new_tree = ast.parse(new)
        except (SyntaxError, ValueError) as exc:
            line = getattr(exc, "lineno", None)
            message = getattr(exc, "msg", None) or str(exc)
            return [Weakening(WeakeningKind.UNPARSABLE, "", line, None, message)]
    if old is None:
        return []
    try:
        old_tree = ast.parse(old)
    except (SyntaxError, ValueError):
        return []  # nothing to compare with: the old text was not Python either
    old_tests = tests_in(old_tree)
    new_tests = tests_in(new_tree) if new_tree is not None else {}
    findings: list[Weakening] = []
    for before, after in _pairs(old_tests, new_tests, findings):
        findings += _compare(before, after)
    if new_tree is not None:
        findings += _module_skips(old_tree, new_tree)
    return sorted(findings, key=lambda f: (f.line or 0, f.old_line or 0, f.kind))


def findings_by_hunk(change: FileChange) -> dict[int, list[Weakening]]:
    """The findings of ``change`` by the index of the hunk that holds their line."""
    found: dict[int, list[Weakening]] = {}
    for finding in find_weakenings(change.old_text, change.new_text):
        index = hunk_of(change, finding)
        if index is not None:
            found.setdefault(index, []).append(finding)
    return found


def hunk_of(change: FileChange, finding: Weakening) -> int | None:
    """The hunk holding the finding's new (else old) line; else the nearest hunk after it."""
    hunks = change.hunks
    if not hunks:
        return None
    for hunk in hunks:
        if finding.line is not None and hunk.new_start < finding.line <= hunk.new_end:
            return hunk.index
        if finding.old_line is not None and hunk.old_start < finding.old_line <= hunk.old_end:
            return hunk.index
    if finding.line is not None:
        after = [h for h in hunks if h.new_start >= finding.line - 1]
    else:
        after = [h for h in hunks if h.old_start >= (finding.old_line or 1) - 1]
    return (after[0] if after else hunks[-1]).index


# -- collecting ------------------------------------------------------------------------------


def _pairs(
    old: dict[str, TestDef], new: dict[str, TestDef], findings: list[Weakening]
) -> Iterator[tuple[TestDef, TestDef]]:
    """Old and new forms of each test: same name, else same body (a rename), else in order
    within a class; an old test left without a partner was deleted."""
    gone = [test for name, test in old.items() if name not in new]
    added = [test for name, test in new.items() if name not in old]
    for name, test in old.items():
        if name in new:
            yield test, new[name]
    for test in list(gone):
        twin = next((a for a in added if body_dump(a) == body_dump(test)), None)
        if twin is not None:
            gone.remove(test)
            added.remove(twin)
            yield test, twin
    for test in gone:
        partner = next((a for a in added if a.scope == test.scope), None)
        if partner is None:
            findings.append(
                Weakening(WeakeningKind.TEST_DELETED, test.name, None, test.node.lineno)
            )
            continue
        added.remove(partner)
        yield test, partner


# -- comparing one test ----------------------------------------------------------------------


def _compare(old: TestDef, new: TestDef) -> list[Weakening]:
    name = new.name if new.name == old.name else f"{new.name} (was {old.name})"
    findings = _asserts(old, new, name)
    findings += _skips(old, new, name)
    findings += _raises(old, new, name)
    findings += _cases(old, new, name)
    return findings


def _assertions(test: TestDef) -> list[ast.AST]:
    found: list[ast.AST] = []
    for node in walk_body(test):
        if isinstance(node, ast.Assert):
            found.append(node)
        elif isinstance(node, ast.Call) and called_name(node).startswith("assert"):
            if called_name(node) not in RAISES:
                found.append(node)
    return found


def _is_constant(node: ast.AST) -> bool:
    if isinstance(node, ast.Assert):
        test = node.test
    elif isinstance(node, ast.Call) and node.args:
        if called_name(node) not in ("assertTrue", "assertFalse"):
            return False
        test = node.args[0]
    else:
        return False
    while isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        test = test.operand
    return isinstance(test, ast.Constant)


def _asserts(old: TestDef, new: TestDef, name: str) -> list[Weakening]:
    """Constant asserts the change brings (replacing a real one when real ones went), and
    asserts of any kind it takes away beyond those it adds."""
    old_all, new_all = _assertions(old), _assertions(new)
    real_lost = sum(not _is_constant(a) for a in old_all) - sum(
        not _is_constant(a) for a in new_all
    )
    fresh_constants = [a for a in _unmatched(new_all, old_all) if _is_constant(a)]
    findings = [
        Weakening(
            WeakeningKind.CONSTANT_ASSERT, name, line_of(node), None, REPLACED * (n < real_lost)
        )
        for n, node in enumerate(fresh_constants)
    ]
    lost = len(old_all) - len(new_all)
    for node in _unmatched(old_all, new_all)[: max(0, lost)]:
        findings.append(Weakening(WeakeningKind.REMOVED_ASSERT, name, None, line_of(node)))
    return findings


def _unmatched(nodes: list[ast.AST], others: list[ast.AST]) -> list[ast.AST]:
    """The nodes with no equal (same tree, wherever it is) among ``others``, one for one."""
    remaining = Counter(ast.dump(other) for other in others)
    found = []
    for node in nodes:
        if remaining[ast.dump(node)] > 0:
            remaining[ast.dump(node)] -= 1
        else:
            found.append(node)
    return found


def _skips(old: TestDef, new: TestDef, name: str) -> list[Weakening]:
    findings = []
    before = Counter(mark_name(m) for m in marks_of(old) if mark_name(m) in SKIP_NAMES)
    for mark in marks_of(new):
        kind = mark_name(mark)
        if kind not in SKIP_NAMES:
            continue
        if before[kind] > 0:
            before[kind] -= 1
        else:
            findings.append(
                Weakening(WeakeningKind.SKIP_ADDED, name, line_of(mark), None, f"mark {kind}")
            )
    calls = Counter(
        called_name(c) for c in walk_body(old) if isinstance(c, ast.Call) and _is_skip_call(c)
    )
    for node in walk_body(new):
        if isinstance(node, ast.Call) and _is_skip_call(node):
            if calls[called_name(node)] > 0:
                calls[called_name(node)] -= 1
            else:
                detail = f"{called_name(node)}() call"
                findings.append(
                    Weakening(WeakeningKind.SKIP_ADDED, name, line_of(node), None, detail)
                )
    return findings


def _raises(old: TestDef, new: TestDef, name: str) -> list[Weakening]:
    def expected(test: TestDef) -> list[tuple[ast.Call, bool]]:
        return [
            (node, _is_broad(node.args[0]))
            for node in walk_body(test)
            if isinstance(node, ast.Call) and called_name(node) in RAISES and node.args
        ]

    before, after = expected(old), expected(new)
    narrow_lost = sum(not broad for _n, broad in before) - sum(not broad for _n, broad in after)
    broad_gained = [node for node, broad in after if broad][sum(b for _n, b in before) :]
    return [
        Weakening(
            WeakeningKind.RAISES_BROADENED, name, line_of(node), None, ast.unparse(node.args[0])
        )
        for node in broad_gained[: max(0, narrow_lost)]
    ]


def _is_broad(node: ast.expr) -> bool:
    if isinstance(node, ast.Tuple):
        return any(_is_broad(item) for item in node.elts)
    return dotted_name(node).rsplit(".", 1)[-1] in BROAD


def _cases(old: TestDef, new: TestDef, name: str) -> list[Weakening]:
    kept = {
        key: Counter(ast.dump(c) for c in cases) for key, cases in parametrized_cases(new).items()
    }
    findings = []
    for key, cases in parametrized_cases(old).items():
        remaining = kept.get(key, Counter())
        for case in cases:
            dumped = ast.dump(case)
            if remaining[dumped] > 0:
                remaining[dumped] -= 1
            else:
                detail = f"{key}: {ast.unparse(case)}"
                findings.append(
                    Weakening(
                        WeakeningKind.PARAMETRIZE_CASE_REMOVED, name, None, line_of(case), detail
                    )
                )
    return findings


def _module_skips(old: ast.Module, new: ast.Module) -> list[Weakening]:
    """``pytestmark`` skip marks and module-level ``pytest.skip(...)`` calls the change adds."""

    def module_level(tree: ast.Module) -> list[ast.expr]:
        found: list[ast.expr] = []
        for statement in tree.body:
            if isinstance(statement, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "pytestmark" for t in statement.targets
            ):
                value = statement.value
                marks = value.elts if isinstance(value, ast.List | ast.Tuple) else [value]
                found += [m for m in marks if mark_name(m) in SKIP_NAMES]
            elif isinstance(statement, ast.Expr) and _is_skip_call(statement.value):
                assert isinstance(statement.value, ast.Call)
                found.append(statement.value)
        return found

    before = Counter(ast.dump(node) for node in module_level(old))
    findings = []
    for node in module_level(new):
        key = ast.dump(node)
        if before[key] > 0:
            before[key] -= 1
            continue
        detail = f"module-level {ast.unparse(node)}"
        findings.append(Weakening(WeakeningKind.SKIP_ADDED, "", line_of(node), None, detail))
    return findings


def _is_skip_call(node: ast.AST) -> bool:
    if not isinstance(node, ast.Call) or called_name(node) not in SKIP_CALLS:
        return False
    dotted = dotted_name(node.func)
    return dotted.rpartition(".")[0] in SKIP_CALLERS
