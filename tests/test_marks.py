"""paper_claims.parse.marks: the marked document (number marks and name letters)."""

from __future__ import annotations

from paper_claims.parse.marks import letters


def test_letters_are_short_and_unique() -> None:
    assert letters(3) == ["A", "B", "C"]
    many = letters(60)
    assert many[25] == "Z" and many[26] == "AA" and len(set(many)) == 60
