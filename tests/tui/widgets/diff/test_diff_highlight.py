"""Syntax spans of a diff's lines: lexing in context, chunk by chunk, the lexer lookup."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from pygments.lexers.python import PythonLexer
from pygments.token import Text

from orch_tui.tui.widgets.diff.highlight import LineHighlighter, lexer_class_for_filename
from orch_tui.tui.widgets.diff.rows import line_text


def styles_of(spans: tuple[tuple[int, int, str], ...], text: str) -> dict[str, str]:
    return {text[start:end]: style for start, end, style in spans}


def test_highlighter_lexes_multi_line_strings_in_context() -> None:
    lines = 'def f():\n    """Doc\n    return 1\n    """\n'.splitlines(keepends=True)
    highlighter = LineHighlighter("f.py", lines, lambda token: str(token))
    assert highlighter.language == "Python"
    inside = styles_of(highlighter.spans(2), line_text(lines[2]))
    assert all("String" in style for style in inside.values())
    first = styles_of(highlighter.spans(0), line_text(lines[0]))
    assert first["def"] == "Token.Keyword"


def test_highlighter_knows_no_lexer_for_unknown_files() -> None:
    highlighter = LineHighlighter("notes.unknown-ext", ["x = 1\n"], str)
    assert highlighter.language is None
    assert highlighter.spans(0) == ()


def _names_pygments_knows() -> list[str]:
    """A name for every filename pattern of every lexer: the literal ones as they are, the
    globbed ones with each ``*`` filled in and each ``[...]`` set's first character."""
    import re

    from pygments.lexers import get_all_lexers

    names = {"README", "Makefile.am", "x.py", "x.pyw", "x.h", "x.tcss", "x.unknown-ext"}
    for _name, _aliases, patterns, _mimetypes in get_all_lexers(plugins=True):
        for pattern in patterns:
            name = re.sub(r"\[!?(.)[^\]]*\]", r"\1", pattern).replace("*", "file")
            names.add(name.replace("?", "x"))
    return sorted(names)


def test_lexer_lookup_picks_what_pygments_picks_for_every_known_name() -> None:
    from pygments.lexers import find_lexer_class_for_filename

    names = _names_pygments_knows()
    assert len(names) > 800
    differ = {
        name: (lexer_class_for_filename(name), find_lexer_class_for_filename(name))
        for name in names
        if lexer_class_for_filename(name) is not find_lexer_class_for_filename(name)
    }
    assert differ == {}


def test_plugin_lexers_are_looked_for_only_for_a_name_no_own_lexer_takes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Issue 26: finding Pygments' plugins reads every installed package's entry points (25 ms
    before the review screen's first diff): a Python file's lexer is found without them, a
    name only a plugin takes still finds the plugin's."""
    from pygments import plugin
    from pygments.lexer import RegexLexer

    class OrchxLexer(RegexLexer):
        name = "Orchx"
        filenames = ["*.orchx"]
        tokens = {"root": [(r".+", Text)]}

    looked: list[str] = []

    def plugin_lexers() -> Iterator[type[RegexLexer]]:
        looked.append("plugins")
        yield OrchxLexer

    monkeypatch.setattr(plugin, "find_plugin_lexers", plugin_lexers)
    assert lexer_class_for_filename("calc.py") is PythonLexer
    assert looked == []
    assert lexer_class_for_filename("notes.orchx") is OrchxLexer
    assert looked == ["plugins"]


def test_highlighter_lexes_big_files_chunk_by_chunk() -> None:
    lines = [f"value_{i} = {i}\n" for i in range(3 * LineHighlighter.CHUNK)]
    highlighter = LineHighlighter("big.py", lines, lambda token: str(token))
    last = len(lines) - 1
    spans = highlighter.spans(last)
    assert styles_of(spans, line_text(lines[last]))[str(last)] == "Token.Literal.Number.Integer"
    assert list(highlighter._chunks) == [2]  # only the chunk holding that line was lexed


def test_highlighting_uses_only_public_pygments_api() -> None:
    source = (
        Path(__file__).resolve().parents[4] / "tui" / "widgets" / "diff" / "highlight.py"
    ).read_text()
    assert "pygments.lexers._" not in source
