"""paper_claims.parse.marks: the marked document (number marks and name letters)."""

from __future__ import annotations

from paper_claims.parse.marks import MAX_OTHER_NAMES, letters
from paper_claims.parse.quantities import find_quantities
from tests.invented import CORVID, setup, marked


def test_letters_are_short_and_unique() -> None:
    assert letters(3) == ["A", "B", "C"]
    many = letters(60)
    assert many[25] == "Z" and many[26] == "AA" and len(set(many)) == 60


def test_marks_of_the_invented_abstract() -> None:
    mentions, letters, marks = setup(CORVID)
    assert list(marks) == ["91.2%", "2.5x", "8 H100 GPUs", "40%", "3,000 hours"]
    assert list(letters) == ["Corvid", "BirdCall benchmark", "DenseMix", "8 H100 GPUs"]


def test_without_numbers_every_name_is_marked_and_with_numbers_the_others_are_capped() -> None:
    names = " ".join(f"Tool{chr(65 + i)}x." for i in range(MAX_OTHER_NAMES + 3))
    text = "We study serving. " + names + " It runs on the Orca-7 board."
    assert [m.text for m in marked(text, []).names][-1] == "Orca-7"
    with_number = text + " It is 2.5x faster."
    mentions = find_quantities(with_number)
    assert "Orca-7" not in [m.text for m in marked(with_number, mentions).names]
