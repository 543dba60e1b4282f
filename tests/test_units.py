"""paper_claims.parse.units: one spelling of a physical unit or rate, and what it measures."""

from __future__ import annotations

from typing import Optional

import pytest

from paper_claims.parse.units import canonical, dimension


@pytest.mark.parametrize("written, spelled", [
    # seconds and their SI prefixes as symbols; longer spans as words (GUIDELINES: "s, days")
    ("seconds", "s"), ("sec", "s"), ("secs", "s"), ("milliseconds", "ms"), ("nanoseconds", "ns"),
    ("µs", "μs"), ("us", "μs"), ("{\\mu}s", "μs"), ("$\\mu$s", "μs"),
    ("min", "minutes"), ("hour", "hours"), ("h", "hours"), ("hrs", "hours"), ("day", "days"),
    # energy, power and frequency as SI symbols; a symbol keeps its case
    ("millijoules", "mJ"), ("Joules", "J"), ("watts", "W"), ("mW", "mW"), ("kilohertz", "kHz"),
    # a rate is numerator/denominator, its time or energy denominator spelled as a symbol or a word
    ("frames per second", "frames/s"), ("tx/sec", "tx/s"), ("queries per Joule", "queries/J"),
    ("reads per hour", "reads/hour"), ("nanoseconds per day", "ns/day"), ("ms per token", "ms/token"),
    ("samples/s/W", "samples/s/W"), ("queries per GPU", "queries/GPU"),
    # counted nouns and units it does not know are left as written
    ("GPU hours", "GPU hours"), ("parameters", "parameters"), ("kbps", "kbps"), ("x", "x"), ("%", "%"),
    (None, None),
])
def test_canonical_spells_a_unit_one_way(written: Optional[str], spelled: Optional[str]) -> None:
    assert canonical(written) == spelled


@pytest.mark.parametrize("unit, measures", [
    ("ms", "time"), ("days", "time"), ("mJ", "energy"), ("kWh", "energy"), ("mW", "energy"),
    ("Hz", "frequency"), ("frames/s", None), ("GPUs", None), ("MW", None), (None, None),
])
def test_dimension_says_what_a_unit_measures(unit: Optional[str], measures: Optional[str]) -> None:
    assert dimension(unit) == measures
