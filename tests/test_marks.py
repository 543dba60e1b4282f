"""paper_claims.parse.marks: the marked document (number marks and name letters)."""

from __future__ import annotations

from paper_claims.parse.marks import letters
from tests.invented import CORVID, setup


def test_letters_are_short_and_unique() -> None:
    assert letters(3) == ["A", "B", "C"]
    many = letters(60)
    assert many[25] == "Z" and many[26] == "AA" and len(set(many)) == 60


def test_marks_of_the_invented_abstract() -> None:
    mentions, letters, marks = setup(CORVID)
    assert list(marks) == ["91.2%", "2.5x", "8 H100 GPUs", "40%", "3,000 hours"]
    assert list(letters) == ["Corvid", "BirdCall benchmark", "DenseMix", "8 H100 GPUs"]
