"""Read a JUnit XML report into per-test results with stable, workspace-relative ids.

pytest writes the report (``--junitxml``); other runners that speak JUnit XML work too. The
file is local and written by a check we just ran, so the standard library parser is used
(``defusedxml`` is not available; expat itself refuses entity-expansion bombs). A missing or
corrupt report is not an error here: :func:`parse_junit` returns ``None`` and the caller falls
back to the exit code and the output.
"""

from __future__ import annotations

import os
import stat
from dataclasses import asdict, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from orch_tui.core.util.patterns import LazyPattern
from orch_tui.core.util.records import record

if TYPE_CHECKING:
    import xml.etree.ElementTree as ET

# How bad an outcome is, for merging two reports of one test.
_SEVERITY = {"passed": 0, "xpassed": 0, "skipped": 1, "xfailed": 1, "failed": 2, "error": 3}

_TEARDOWN = "failed on teardown with "
"""How pytest's JUnit writer starts the message of an error in a test's teardown. pytest counts
that error apart from the test's own outcome (``1 passed, 1 error``), and so do we."""


@record
class TestCase:
    """One test's result. ``id`` is pytest's node id, e.g. ``tests/test_x.py::TestA::test_b``."""

    __test__ = False  # not a pytest test class, despite the name

    id: str
    outcome: str  # "passed" | "failed" | "error" | "skipped" | "xfailed" | "xpassed"
    message: str = ""
    traceback: str = ""

    def to_json(self) -> dict[str, str]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TestCase:
        return cls(
            id=str(data["id"]),
            outcome=str(data["outcome"]),
            message=str(data.get("message") or ""),
            traceback=str(data.get("traceback") or ""),
        )


# An absolute POSIX path not glued to a word, a URL scheme or another path: "/a/b/c.py" -> "c.py".
_ABSOLUTE_PATH = LazyPattern(r"(?<![\w.~/:-])/(?:[^\s/:\"'(),<>]+/)+([^\s/:\"'(),<>]+)")


def path_prefixes(workspace: Path) -> tuple[str, ...]:
    """What :func:`strip_paths` cuts from the front of a path in the workspace: its path as
    given and resolved, longest first; worked out once for a report's tests, not per test."""
    prefixes = {str(workspace), str(workspace.resolve())}
    return tuple(prefix.rstrip("/") + "/" for prefix in sorted(prefixes, key=len, reverse=True))


def strip_paths(text: str, workspace: Path | tuple[str, ...]) -> str:
    """Make paths in ``text`` say nothing about this machine.

    Paths inside the workspace become relative to it; any other absolute path (site-packages,
    the interpreter, temporary folders) is cut down to its file name. ``workspace``: the
    folder, or its :func:`path_prefixes`.
    """
    prefixes = path_prefixes(workspace) if isinstance(workspace, Path) else workspace
    for prefix in prefixes:
        text = text.replace(prefix, "")
    return _ABSOLUTE_PATH.sub(r"\1", text)


def trim_traceback(text: str, workspace: Path | tuple[str, ...], max_lines: int = 30) -> str:
    """A traceback fit for a prompt: no absolute paths, only its last ``max_lines`` lines.

    The end of a traceback is where the failure is, so the top is what gets dropped; a first
    line says how many lines were left out.
    """
    lines = strip_paths(text, workspace).strip("\n").splitlines()
    if len(lines) <= max_lines:
        return "\n".join(lines)
    dropped = len(lines) - max_lines
    return "\n".join([f"[... {dropped} earlier lines ...]", *lines[-max_lines:]])


MAX_REPORT_BYTES = 64 * 1024 * 1024
"""A report larger than this is not read: a check writes it, and a check may be hostile."""


def parse_junit(path: Path, workspace: Path) -> list[TestCase] | None:
    """The tests in the JUnit XML file at ``path``, in report order; ``None`` if unreadable."""
    tests, problem = read_junit(path, workspace)
    return None if problem is not None else tests


def read_junit(path: Path, workspace: Path) -> tuple[list[TestCase], str | None]:
    """The tests in the JUnit XML file at ``path``, or why it cannot be read (naming it).

    The check wrote the file, so it is opened as a regular file only: a symlink, a FIFO (which
    would block the read forever) or a huge file is refused with a sentence saying so.
    """
    import xml.etree.ElementTree as ET  # after the checks: not at a run's start (issue 26)

    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags)
        with open(fd, "rb") as file:
            status = os.fstat(file.fileno())
            if not stat.S_ISREG(status.st_mode):
                return [], f"the JUnit report {path} is not a regular file"
            if status.st_size > MAX_REPORT_BYTES:
                return [], f"the JUnit report {path} is too large to read ({status.st_size} bytes)"
            root = ET.parse(file).getroot()
    except OSError as exc:
        return [], f"the JUnit report {path} cannot be read: {exc.strerror or exc}"
    except ET.ParseError as exc:
        return [], f"the JUnit report {path} is not valid XML ({exc})"
    return _cases(root, workspace), None


def _cases(root: ET.Element, workspace: Path) -> list[TestCase]:
    merged: dict[tuple[str, bool], TestCase] = {}
    prefixes = path_prefixes(workspace)
    for element in root.iter("testcase"):
        for case in _test_cases(element, workspace, prefixes):
            key = (case.id, case.message.startswith(_TEARDOWN))  # a teardown error stays apart
            earlier = merged.get(key)
            merged[key] = case if earlier is None else _merge(earlier, case)
    return list(merged.values())


def _test_cases(element: ET.Element, workspace: Path, prefixes: tuple[str, ...]) -> list[TestCase]:
    """The results one ``<testcase>`` holds: one, or a pass and its teardown error."""
    test_id = node_id_of(
        classname=element.get("classname", ""),
        name=element.get("name", ""),
        file=element.get("file"),
        workspace=workspace,
    )
    for tag, outcome in (("error", "error"), ("failure", "failed"), ("skipped", "skipped")):
        detail = element.find(tag)
        if detail is None:
            continue
        message = strip_paths(detail.get("message", ""), prefixes).strip()
        case = TestCase(
            id=test_id,
            outcome=_label(outcome, detail),
            message=message,
            traceback=trim_traceback(detail.text or "", prefixes),
        )
        if outcome == "error" and message.startswith(_TEARDOWN) and len(element) == 1:
            return [TestCase(id=test_id, outcome="passed"), case]  # passed, then teardown broke
        return [case]
    return [TestCase(id=test_id, outcome="passed")]


def label_xpassed(tests: list[TestCase], output: str) -> list[TestCase]:
    """``tests`` with the passes pytest's summary calls ``XPASS`` labelled ``xpassed``.

    A non-strict xfail that passed is a plain pass in pytest's JUnit report; only the ``-rX``
    summary (``XPASS <node id>`` or ``XPASS <node id> - <reason>``) tells it apart.
    """
    named = [line[len("XPASS ") :] for line in output.splitlines() if line.startswith("XPASS ")]
    if not named:
        return tests

    def xpassed(test_id: str) -> bool:
        return any(name == test_id or name.startswith(f"{test_id} - ") for name in named)

    return [
        replace(test, outcome="xpassed") if test.outcome == "passed" and xpassed(test.id) else test
        for test in tests
    ]


def _label(outcome: str, detail: ET.Element) -> str:
    """pytest's own label for an expected failure: ``xfailed``, or ``xpassed`` (a non-strict
    xfail that passed; pytest writes it as a plain pass, or as this skip in some versions)."""
    if outcome != "skipped":
        return outcome
    if detail.get("type") == "pytest.xfail":
        return "xfailed"
    if detail.get("message") == "xfail-marked test passes unexpectedly":
        return "xpassed"
    return outcome


def _merge(first: TestCase, second: TestCase) -> TestCase:
    worse = second if _SEVERITY[second.outcome] > _SEVERITY[first.outcome] else first
    return TestCase(
        id=first.id,
        outcome=worse.outcome,
        message="\n".join(m for m in (first.message, second.message) if m),
        traceback="\n\n".join(t for t in (first.traceback, second.traceback) if t),
    )


def node_id_of(classname: str, name: str, file: str | None, workspace: Path) -> str:
    """pytest's node id rebuilt from a ``<testcase>``'s attributes.

    pytest's JUnit writer turns ``tests/test_x.py::TestA::test_b`` into classname
    ``tests.test_x.TestA`` and name ``test_b`` (and a collection error of a module into an empty
    classname and the dotted module as the name). With ``junit_family=xunit1`` it also writes
    the ``file``. Which dotted parts are folders is found by looking for the file in the
    workspace, so ids stay relative to the workspace even when pytest chose a parent folder as
    its rootdir.
    """
    dotted = [part for part in classname.split(".") if part] if classname else []
    if not dotted:  # a module-level collection error: the module is the name
        if file:
            return _workspace_relative(file, workspace)
        found = _find_module(name.split("."), workspace)
        return found[0] if found and not found[1] else name
    # The classname names the module that collected the test; ``file`` is where the function is
    # defined, which for a test inherited from a mixin in another module is the mixin's file.
    found = _find_module(dotted, workspace)
    if found is not None:
        module_path, inner = found
        return "::".join([module_path, *inner, name])
    if file and file.endswith(".py"):  # a folder name with a dot: the dotted path is ambiguous
        rel = _workspace_relative(file, workspace)
        module_parts = Path(file).with_suffix("").parts
        inner = _after_module(dotted, module_parts)
        return "::".join([rel, *inner, name])
    return "::".join([classname, name])


def _after_module(dotted: list[str], module_parts: tuple[str, ...]) -> list[str]:
    """The class names in ``dotted`` that follow the module's own dotted path."""
    for start in range(len(dotted)):
        tail = dotted[start:]
        for length in range(len(tail), 0, -1):
            if tuple(tail[:length]) == module_parts[-length:]:
                return tail[length:]
    return []


def _find_module(dotted: list[str], workspace: Path) -> tuple[str, list[str]] | None:
    """Split dotted parts into a ``.py`` file that exists in the workspace and what follows it.

    Leading parts that are not in the workspace (pytest's rootdir was a parent folder) are
    skipped; the longest existing module wins.
    """
    for start in range(len(dotted)):
        for end in range(len(dotted), start, -1):
            candidate = "/".join(dotted[start:end]) + ".py"
            if (workspace / candidate).is_file():
                return candidate, dotted[end:]
    return None


def _workspace_relative(file: str, workspace: Path) -> str:
    """``file`` (relative to pytest's rootdir) made relative to the workspace, if it can be."""
    parts = Path(file).parts
    for start in range(len(parts)):
        candidate = "/".join(parts[start:])
        if (workspace / candidate).exists():
            return candidate
    return Path(file).as_posix()
