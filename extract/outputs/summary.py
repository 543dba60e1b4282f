"""The summary of a run the HTML report shows: counts over every document and claim, the most
frequent datasets and hardware, the failed documents and a sample of the speedup factors.

``Tally`` counts documents and claims as they stream by; ``summarize`` counts lists of them.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Iterable, Optional

from paper_claims.schemas.claims import Kind

KINDS: tuple[str, ...] = tuple(kind.value for kind in Kind)  # the built-in claims' kinds, in order
TOP_N = 8
MAX_ERRORS_SHOWN = 200
MAX_SPEEDUP_POINTS = 400

Row = dict[str, Any]


def hardware_name(claim: Row) -> Optional[str]:
    """The claim's canonical hardware name, else its hardware as written, else None."""
    return claim.get("hardware_canonical") or claim.get("hardware") or None


def is_error(doc: Row) -> bool:
    """Whether a document row records a failed extraction."""
    return doc.get("status") == "error"


@dataclass
class Summary:
    """Counts shown at the top of the report."""

    documents: int
    ok: int
    errors: int
    claims: int
    by_kind: dict[str, int]
    top_datasets: list[tuple[str, int]]
    top_hardware: list[tuple[str, int]]
    orphans: int = 0  # claims whose doc_id has no document row
    skipped: int = 0  # claims that could not be highlighted (bad or overlapping offsets)
    without_claims: int = 0  # documents with no claim
    speedups: list[tuple[str, float, Optional[float]]] = field(default_factory=list)
    speedups_total: int = 0  # speedup factors in all (the chart may show a sample)
    failed: list[Row] = field(default_factory=list)  # the first MAX_ERRORS_SHOWN failed documents


class Tally:
    """Counts over every document and claim of a run, in memory that does not grow with it
    (but for the set of document ids): the report's summary and charts."""

    def __init__(self, kinds: tuple[str, ...] = KINDS) -> None:
        self.kind_order = kinds  # the claim schema's kinds (the built-in ones by default)
        self.documents = self.errors = self.claims = 0
        self.kinds: Counter[str] = Counter()
        self.datasets: Counter[str] = Counter()
        self.hardware: Counter[str] = Counter()
        self.doc_ids: set[Any] = set()
        self.with_claims: set[Any] = set()
        self.failed: list[Row] = []
        self.speedups: list[tuple[str, float, Optional[float]]] = []
        self.speedups_total = 0
        self._stride = 1
        self.orphans = 0

    def add_document(self, doc: Row) -> None:
        self.documents += 1
        self.doc_ids.add(doc.get("doc_id"))
        if is_error(doc):
            self.errors += 1
            if len(self.failed) < MAX_ERRORS_SHOWN:
                self.failed.append({k: doc.get(k) for k in ("doc_id", "title", "attempts", "error")})

    def add_claim(self, claim: Row) -> None:
        """Count a claim (after every document was added)."""
        self.claims += 1
        self.orphans += claim.get("doc_id") not in self.doc_ids
        self.kinds[str(claim.get("kind") or "other")] += 1
        self.with_claims.add(claim.get("doc_id"))
        if claim.get("dataset"):
            self.datasets[str(claim["dataset"])] += 1
        if hardware_name(claim):
            self.hardware[str(hardware_name(claim))] += 1
        for point in speedup_points([claim]):
            # keep every stride-th point; halve the sample when it grows past twice the cap
            if self.speedups_total % self._stride == 0:
                self.speedups.append(point)
                if len(self.speedups) >= 2 * MAX_SPEEDUP_POINTS:
                    self.speedups = self.speedups[::2]
                    self._stride *= 2
            self.speedups_total += 1

    def summary(self) -> Summary:
        by_kind = {k: self.kinds.get(k, 0) for k in self.kind_order}
        by_kind.update({k: n for k, n in self.kinds.items() if k not in by_kind})
        return Summary(
            documents=self.documents, ok=self.documents - self.errors, errors=self.errors, claims=self.claims,
            by_kind=by_kind,
            top_datasets=sorted(self.datasets.items(), key=lambda i: (-i[1], i[0]))[:TOP_N],
            top_hardware=sorted(self.hardware.items(), key=lambda i: (-i[1], i[0]))[:TOP_N],
            orphans=self.orphans, without_claims=len(self.doc_ids - self.with_claims),
            speedups=self.speedups, speedups_total=self.speedups_total, failed=self.failed,
        )


def summarize(docs: Iterable[Row], claims: Iterable[Row]) -> Summary:
    """Document, status and claim counts, the most frequent datasets and hardware, speedups."""
    tally = Tally()
    for doc in docs:
        tally.add_document(doc)
    for claim in claims:
        tally.add_claim(claim)
    return tally.summary()


def speedup_points(claims: list[Row]) -> list[tuple[str, float, Optional[float]]]:
    """(hardware, value, value_high) of every speedup claim given as a factor (unit x)."""
    points = []
    for claim in claims:
        unit = str(claim.get("unit") or "").strip().lower()
        value = _number(claim.get("value"))
        if claim.get("kind") != "speedup" or unit not in ("x", "×") or value is None or value <= 0:
            continue
        points.append((hardware_name(claim) or "(unspecified)", value, _number(claim.get("value_high"))))
    return points


def _number(value: Any) -> Optional[float]:
    """A float, or None for anything that is not a finite number."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if number == number and abs(number) != float("inf") else None
