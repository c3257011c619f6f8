"""Text written into the export's Markdown reads as written, whatever it holds.

Rendered with markdown-it-py (CommonMark with GFM tables; Textual's own Markdown parser), as a
reader's viewer would render the report.
"""

from __future__ import annotations

from typing import Any

from hypothesis import example, given
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from orch_tui.core.util.markdown_text import code_span, inline_text, one_line

MARKDOWN = MarkdownIt("commonmark").enable("table")

# Printable text dense in Markdown's punctuation, with spaces and line breaks between.
TEXT = st.text(
    alphabet=st.sampled_from(list("`*_[]()<>#|~&!\\-+=.:1 \n\tabcé✓")), min_size=1, max_size=40
).filter(lambda text: one_line(text) != "")


def inline_children(markdown: str) -> list[Any]:
    tokens = MARKDOWN.parse(markdown)
    assert [token.type for token in tokens] == ["paragraph_open", "inline", "paragraph_close"]
    children = tokens[1].children
    assert children is not None
    return children


def table_cells(markdown_cell: str) -> list[list[Any]]:
    """The inline tokens of each cell of a one-row table whose only body cell is ``markdown_cell``."""
    tokens = MARKDOWN.parse(f"| a | b |\n|---|---|\n| {markdown_cell} | end |\n")
    body = tokens[[t.type for t in tokens].index("tbody_open") :]
    return [t.children or [] for t in body if t.type == "inline"]


@given(TEXT)
@example("# not a heading")
@example("1. not a list")
@example("- not a list either")
@example("[a link](http://x) <b>bold</b> &amp; **strong**")
def test_inline_text_renders_as_the_same_text_and_nothing_else(text: str) -> None:
    children = inline_children(inline_text(text))
    assert {child.type for child in children} == {"text"}
    assert "".join(child.content for child in children) == one_line(text)


@given(TEXT)
@example("test_path[`x`]")
@example("`")
@example("a``b")
def test_a_code_span_holds_the_text_exactly(text: str) -> None:
    children = inline_children(f"x {code_span(text)}")
    assert [child.type for child in children] == ["text", "code_inline"]
    assert children[1].content == one_line(text)


@given(TEXT)
@example("test_x[a|b]")
def test_in_a_table_cell_both_keep_the_row_whole(text: str) -> None:
    plain, end = table_cells(inline_text(text))
    assert "".join(child.content for child in plain) == one_line(text)
    assert end[0].content == "end"  # the cell was not split at a | inside the text
    code, end = table_cells(code_span(text, in_table=True))
    assert [child.type for child in code] == ["code_inline"]
    assert code[0].content == one_line(text)
    assert end[0].content == "end"
