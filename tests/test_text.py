"""paper_claims.text: the whole-word search that stands in for a regex per name, the sentence
splitter and the one stderr printer."""

from __future__ import annotations

import random
import re

import pytest

from paper_claims.text import sentence_spans, whole_word_spans


def _regex_spans(text: str, word: str) -> list[tuple[int, int]]:
    return [m.span() for m in re.finditer(rf"(?<![\w-]){re.escape(word)}(?![\w-])", text)]


@pytest.mark.parametrize(("text", "word", "spans"), [
    ("Corvid beats Corvid-2 and Corvid.", "Corvid", [(0, 6), (26, 32)]),
    ("CIFAR-10 and CIFAR-100", "CIFAR-10", [(0, 8)]),
    ("x_Quill Quill_x Quill", "Quill", [(16, 21)]),
    ("ÉtéNet, ÉtéNet2", "ÉtéNet", [(0, 6)]),
    ("a a a", "a a", [(0, 3)]),  # matches do not overlap
    ("", "Quill", []),
])
def test_whole_word_spans_finds_the_word_only_where_it_stands_alone(text: str, word: str,
                                                                   spans: list[tuple[int, int]]) -> None:
    assert list(whole_word_spans(text, word)) == spans == _regex_spans(text, word)


def test_whole_word_spans_agrees_with_the_regex_on_random_text() -> None:
    rng = random.Random(7)
    alphabet = "aA -_1é.,(x"
    for _ in range(5000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 16)))
        word = "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 3)))
        assert list(whole_word_spans(text, word)) == _regex_spans(text, word), (text, word)


def test_overlapping_spans_are_every_place_a_search_may_try() -> None:
    assert list(whole_word_spans("a a a", "a a", overlapping=True)) == [(0, 3), (2, 5)]


def test_a_full_stop_whose_space_was_lost_still_ends_a_sentence() -> None:
    text = "We cut search costs.Kestrel is co-designed with Wren. See github.com/x, e.g.The table, et al.Their work."
    assert [text[a:b] for a, b in sentence_spans(text)] == [
        "We cut search costs.", "Kestrel is co-designed with Wren.",
        "See github.com/x, e.g.The table, et al.Their work."]


def test_a_message_printed_while_a_progress_bar_draws_stands_on_its_own_line(capsys: pytest.CaptureFixture[str]) -> None:
    """``to_stderr`` (the engine's "Assembling the embedded model ...") while ``claims extract``'s
    text bar is drawing: the message starts a line, it is not glued after the bar's ``]``."""
    import sys

    from paper_claims.progress import progress_bar
    from paper_claims.text import to_stderr

    bar = progress_bar(total=3, desc="extracting", file=sys.stderr)
    bar.update(1)
    to_stderr("Assembling the model")
    bar.update(2)
    bar.close()
    err = capsys.readouterr().err
    assert "Assembling the model\n" in err
    assert "]Assembling" not in err
    before = err[:err.index("Assembling")]
    assert before.endswith(("\r", "\n")), repr(before[-40:])
    to_stderr("after the bar")  # no bar left: printed as it is
    assert capsys.readouterr().err == "after the bar\n"
