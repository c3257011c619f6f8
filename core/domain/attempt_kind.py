"""What each attempt of a run is, in one word or two: ``generate``, ``patch``, and after a
question ``generate + answer`` or ``patch + answer``.

After the model's question (``ask_user``), the next attempt is the asking attempt's prompt
again with the person's answer: a generation when the question came during one, never a
patch. After a judge's or a stuck run's question, it is a patch with the answer.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable

GENERATE = "generate"
PATCH = "patch"


def attempt_kinds(
    numbers: Iterable[int],
    firsts: Collection[int],
    model_asked: Collection[int],
    answered: Collection[int],
) -> dict[int, str]:
    """Attempt number -> its label. ``firsts``: attempts that start the run or a task (plan
    mode); ``model_asked``: attempts the model asked a question in; ``answered``: attempts
    whose prompt carries a person's answer or guidance."""
    bases: dict[int, str] = {}
    kinds = {}
    for number in sorted(numbers):
        if number == 0 or number in firsts:
            base = GENERATE
        elif number - 1 in model_asked:
            base = bases.get(number - 1, PATCH)
        else:
            base = PATCH
        bases[number] = base
        kinds[number] = f"{base} + answer" if number in answered else base
    return kinds
