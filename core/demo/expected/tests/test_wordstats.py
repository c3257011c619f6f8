from wordstats import count_words, top_words


def test_counts_each_word():
    assert count_words("a b a") == {"a": 2, "b": 1}


def test_counting_ignores_case():
    assert count_words("The the THE") == {"the": 3}


def test_apostrophes_stay_inside_words():
    assert count_words("don't stop") == {"don't": 1, "stop": 1}


def test_top_words_orders_by_count_then_alphabet():
    assert top_words("b a c a b d", 3) == [("a", 2), ("b", 2), ("c", 1)]


def test_top_words_with_no_room():
    assert top_words("a b", 0) == []
