"""Count words in text."""

import re
from collections import Counter

WORD = re.compile(r"[A-Za-z0-9']+")


def count_words(text: str) -> dict[str, int]:
    """How often each word occurs, ignoring case."""
    return dict(Counter(word.lower() for word in WORD.findall(text)))


def top_words(text: str, n: int) -> list[tuple[str, int]]:
    """The n most frequent words, most frequent first; ties alphabetically."""
    if n <= 0:
        return []
    counts = count_words(text)
    return sorted(counts.items(), key=lambda item: (-item[1], item[0]))[:n]
