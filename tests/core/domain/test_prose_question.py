"""A question a model asks in prose becomes that question (issue 24, item 7)."""

from __future__ import annotations

from orch_tui.core.domain.asking import QuestionSource, prose_question


def test_the_question_and_its_options_as_the_model_wrote_them() -> None:
    text = (
        "I read the spec and the tests.\n\n"
        "The spec does not say what `div(a, 0)` should do. Should it raise or return None?\n"
        "1. Raise ZeroDivisionError\n"
        "2. Return None\n"
    )
    question = prose_question(text)
    assert question is not None
    assert question.text == (
        "The spec does not say what `div(a, 0)` should do. Should it raise or return None?"
    )
    assert question.options == ["Raise ZeroDivisionError", "Return None"]
    assert question.source is QuestionSource.MODEL


def test_options_listed_before_the_question() -> None:
    text = "Two ways to store the items:\n- a list\n- a dict keyed by name\nWhich do you prefer?"
    question = prose_question(text)
    assert question is not None
    assert question.text == "Which do you prefer?"
    assert question.options == ["a list", "a dict keyed by name"]


def test_text_that_asks_nothing_is_no_question() -> None:
    assert prose_question("Done. All the tests should pass now.") is None
    assert prose_question("") is None
