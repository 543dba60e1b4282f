"""The review state: an extraction's output with the decisions of its log replayed over it.

Each claim of ``claims.jsonl`` gets an id within its document (``start-end``, made unique) and a
status from the last decision on it: ``pending`` (none yet), ``accepted`` (kept as extracted),
``edited`` (kept with other content), ``added`` (found by the reviewer) or ``rejected``. Later
decisions replace earlier ones (the last decision wins); the log keeps them all. A document is
reviewed once it has a decision and no pending claim.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator, Optional, Union

from pydantic import BaseModel, Field, ValidationError

from paper_claims.errors import InputError, ReviewError
from paper_claims.outputs.review.log import LOG_NAME, Action, LogProblem, ReviewEvent, ReviewLog, now
from paper_claims.outputs.review.spans import grounded_name, span_claim
from paper_claims.outputs.table import read_manifest
from paper_claims.parse.canonical import canonical_hardware
from paper_claims.parse.document import parse_text
from paper_claims.rules.spans import locate
from paper_claims.schemas import Claim, Kind, Qualifier, SchemaClaim
from paper_claims.schemas.claims import certainty, uncertain
from paper_claims.schemas.columns import SENTENCE_COLUMNS
from paper_claims.text import read_jsonl

Row = dict[str, Any]
CLAIM_KEYS: tuple[str, ...] = tuple(Claim.model_fields)
EDITABLE: tuple[str, ...] = ("kind", "metric", "dataset", "hardware", "model", "baseline", "qualifier")
NAME_FIELDS: tuple[str, ...] = ("dataset", "hardware", "model", "baseline")
LIST_FIELDS: tuple[str, ...] = ("system", "datasets", "hardware", "models")
MAX_METRIC = 300


@dataclass(frozen=True)
class ReviewSchema:
    """What a reviewer may change in a claim: the built-in schema's fields, or those of the
    claim schema an output folder was written with (``schema.json``)."""

    kinds: tuple[str, ...]
    keys: tuple[str, ...]  # a claim row's keys (without doc_id)
    spans: tuple[str, ...]  # fields that are words of the text
    choices: tuple[tuple[str, tuple[Any, ...]], ...] = ()  # plain fields and their values
    builtin: bool = True

    @classmethod
    def of(cls, out_dir: Union[str, Path]) -> "ReviewSchema":
        manifest = read_manifest(out_dir)
        if manifest is None:
            return BUILTIN
        fields = manifest["fields"]
        derived = ("doc_id", *SENTENCE_COLUMNS)  # the sentence follows from the evidence
        return cls(tuple(manifest["kinds"]), tuple(c for c in manifest["columns"] if c not in derived),
                   tuple(f["name"] for f in fields if f["span"]),
                   tuple((f["name"], tuple(f["choices"]) + ((None,) if f["optional"] else ())) for f in fields
                         if not f["span"]), builtin=False)

    @property
    def editable(self) -> tuple[str, ...]:
        return EDITABLE if self.builtin else ("kind", *self.spans, *(name for name, _ in self.choices))

    def to_json(self) -> Optional[Row]:
        """The fields the page edits (None: the built-in schema's own form)."""
        if self.builtin:
            return None
        return {"spans": list(self.spans), "choices": {name: list(values) for name, values in self.choices}}


BUILTIN = ReviewSchema(tuple(k.value for k in Kind), CLAIM_KEYS, NAME_FIELDS)


class Decision(BaseModel):
    """What the page asks for. ``span`` is [start, end] of words chosen in the abstract (a new
    evidence for ``edit``, the claim's words for ``add``); ``changes`` holds edited fields (for
    ``add``: at least the kind); ``lists`` the document lists for ``lists``; ``rev`` the claim's
    revision the page saw, to tell when another tab decided in between."""

    doc_id: str
    action: Action
    claim_id: Optional[str] = None
    changes: dict[str, Any] = Field(default_factory=dict)
    span: Optional[tuple[int, int]] = None
    lists: Optional[dict[str, Any]] = None
    rev: Optional[int] = None
    tab: Optional[str] = Field(default=None, max_length=64)


@dataclass
class ClaimState:
    """One claim under review: as extracted (None when added), as it stands, and its last decision."""

    id: str
    original: Optional[Row]
    current: Row
    decision: Optional[str] = None
    rev: int = 0
    last: Optional[Row] = None  # who, at, tab and action of the last decision
    confidence: Optional[float] = None  # as extracted: the probability that every field is right
    certainty: tuple[float, float] = (1.0, 1.0)  # as extracted: schemas.claims.certainty
    uncertain: bool = False  # as extracted: a decision below even odds (schemas.claims.uncertain)

    @property
    def status(self) -> str:
        if self.decision == "reject":
            return "rejected"
        if self.original is None:
            return "added"
        if self.decision in (None, "reset"):
            return "pending"
        return "accepted" if _same(self.current, self.original) else "edited"

    def to_json(self) -> Row:
        return {"id": self.id, "status": self.status, "rev": self.rev, "claim": self.current,
                "original": self.original, "last": self.last, "confidence": self.confidence,
                "uncertain": self.uncertain}


@dataclass
class DocState:
    """One document under review: its row, its claims in reading order, its lists."""

    row: Row
    claims: dict[str, ClaimState]
    lists: Row
    original_lists: Row
    decisions: int = 0
    schema: ReviewSchema = BUILTIN

    @property
    def doc_id(self) -> str:
        return str(self.row.get("doc_id"))

    @property
    def text(self) -> str:
        text = self.row.get("text")
        return text if isinstance(text, str) else ""

    @property
    def pending(self) -> int:
        return sum(c.status == "pending" for c in self.claims.values())

    @property
    def reviewed(self) -> bool:
        return self.decisions > 0 and self.pending == 0

    @property
    def least_certainty(self) -> tuple[float, float]:
        """How sure the decisions were of its least certain claim (``certainty``: the confidence,
        then the weakest decision; 1 when no claim has one)."""
        return min((c.certainty for c in self.claims.values()), default=(1.0, 1.0))

    def ordered(self) -> list[ClaimState]:
        """The claims by position in the text."""
        return sorted(self.claims.values(), key=lambda c: (_int(c.current.get("start")), _int(c.current.get("end"))))

    def known_names(self) -> set[str]:
        """Names the output already gave this document (kept even where not verbatim in the text)."""
        names = {str(self.original_lists.get("system") or "")}
        for key in LIST_FIELDS[1:]:
            names.update(str(n) for n in self.original_lists.get(key) or [])
        for claim in self.claims.values():
            if claim.original:
                names.update(str(claim.original.get(k) or "") for k in self.schema.spans)
        return names - {""}

    def to_json(self) -> Row:
        return {
            "doc_id": self.doc_id, "title": self.row.get("title"), "source": self.row.get("source"),
            "status": self.row.get("status") or "ok", "error": self.row.get("error"), "text": self.text,
            "lists": self.lists, "claims": [c.to_json() for c in self.ordered()],
            "reviewed": self.reviewed, "pending": self.pending, "decisions": self.decisions,
        }


class ReviewState:
    """Every document of an output folder with the decisions of its review log applied."""

    def __init__(self, docs: list[DocState], problems: Optional[list[str]] = None) -> None:
        self.docs = {d.doc_id: d for d in docs}
        self.schema = BUILTIN  # the claim schema of the output (set by load)
        self.problems = list(problems or [])
        self.last: Optional[Row] = None  # where the last decision was made: doc_id, claim_id

    # ------------------------------------------------------------------ loading

    @classmethod
    def load(cls, out_dir: Union[str, Path]) -> "ReviewState":
        """Read ``documents.jsonl`` and ``claims.jsonl`` of ``out_dir`` and replay ``review.jsonl``."""
        out = Path(out_dir)
        if not (out / "documents.jsonl").is_file():
            raise InputError(f"no documents.jsonl in output directory {out}")
        schema = ReviewSchema.of(out)
        rows = {str(r.get("doc_id")): r for r in read_jsonl(out / "documents.jsonl", strict=True)}
        claims: dict[str, list[Row]] = {}
        for row in read_jsonl(out / "claims.jsonl", strict=True):
            claims.setdefault(str(row.get("doc_id")), []).append(row)
        docs = [_doc_state(row, claims.get(doc_id, []), schema) for doc_id, row in rows.items()]
        # the least certain first: review checks where the decisions were least sure (stable: ties keep input order)
        state = cls(sorted(docs, key=lambda d: d.least_certainty))
        state.schema = schema
        orphans = sorted(set(claims) - set(rows))
        if orphans:
            state.problems.append(f"claims of {len(orphans)} document(s) without a document row are not shown: "
                                  + ", ".join(orphans[:5]))
        events, problems = ReviewLog(out / LOG_NAME).read()
        for number, event in events:
            try:
                state.apply(event)
            except ReviewError as exc:
                problems.append(LogProblem(number, exc.one_line()))
        state.problems += [str(p) for p in sorted(problems, key=lambda p: p.line)]
        return state

    # ------------------------------------------------------------------ reading

    def doc(self, doc_id: str) -> DocState:
        try:
            return self.docs[doc_id]
        except KeyError:
            raise ReviewError(f"no document {doc_id!r} in this output") from None

    def claim(self, doc: DocState, claim_id: Optional[str]) -> ClaimState:
        if claim_id is None or claim_id not in doc.claims:
            raise ReviewError(f"document {doc.doc_id!r} has no claim {claim_id!r}")
        return doc.claims[claim_id]

    def progress(self) -> Row:
        """Reviewed / total, for claims (added ones included) and documents."""
        claims = [c for d in self.docs.values() for c in d.claims.values()]
        return {"claims_reviewed": sum(c.status != "pending" for c in claims), "claims_total": len(claims),
                "docs_reviewed": sum(d.reviewed for d in self.docs.values()), "docs_total": len(self.docs)}

    def replaced(self, decision: Decision) -> Optional[Row]:
        """The decision another tab made on this claim since the page saw it, if any."""
        doc = self.docs.get(decision.doc_id)
        claim = doc.claims.get(decision.claim_id or "") if doc else None
        if claim is None or decision.rev is None or decision.rev == claim.rev:
            return None
        return claim.last

    # ------------------------------------------------------------------ deciding

    def events_for(self, decision: Decision, who: str) -> list[ReviewEvent]:
        """The log events a decision makes (validated; nothing applied yet).

        ``confirm`` accepts the document's pending claims (one event each) and then marks it
        reviewed; every other action is one event.
        """
        doc = self.doc(decision.doc_id)

        def event(action: Action, claim_id: Optional[str], before: Optional[Row], after: Optional[Row]) -> ReviewEvent:
            return ReviewEvent(at=now(), who=who, tab=decision.tab, doc_id=doc.doc_id, claim_id=claim_id,
                               action=action, before=before, after=after)

        if decision.action == "confirm":
            accepts = [event("accept", c.id, dict(c.current), dict(c.current))
                       for c in doc.ordered() if c.status == "pending"]
            return [*accepts, event("confirm", None, None, None)]
        if decision.action == "lists":
            return [event("lists", None, dict(doc.lists), _checked_lists(doc, decision.lists))]
        if decision.action == "add":
            if decision.span is None or "kind" not in decision.changes:
                raise ReviewError("adding a claim needs the chosen words (span) and a kind")
            after = _edited(doc, {k: None for k in doc.schema.keys}, decision.changes, decision.span, None)
            return [event("add", f"n{secrets.token_hex(4)}", None, after)]
        claim = self.claim(doc, decision.claim_id)
        before = dict(claim.current)
        if decision.action == "reject":
            after = None
        elif decision.action == "reset":
            after = dict(claim.original or claim.current)
        elif decision.action == "edit":
            after = _edited(doc, claim.current, decision.changes, decision.span, claim.id)
        else:  # accept
            if decision.changes or decision.span:
                raise ReviewError("accept takes no changes; use edit")
            after = before
        return [event(decision.action, claim.id, before, after)]

    def apply(self, event: ReviewEvent) -> None:
        """Apply one logged decision (on replay too); ReviewError when it does not fit this output."""
        doc = self.doc(event.doc_id)
        who = {"who": event.who, "at": event.at, "tab": event.tab, "action": event.action}
        if event.action in ("lists", "confirm"):
            if event.action == "lists":
                doc.lists = _checked_lists(doc, event.after)
        else:
            claim = self._apply_claim(doc, event)
            claim.rev += 1
            claim.last = who
        doc.decisions += 1
        self.last = {"doc_id": doc.doc_id, "claim_id": event.claim_id}

    def _apply_claim(self, doc: DocState, event: ReviewEvent) -> ClaimState:
        """Checks everything before it changes anything, so a failed event leaves no trace."""
        if event.action == "add":
            if not event.claim_id or event.claim_id in doc.claims:
                raise ReviewError(f"an added claim needs a new id, not {event.claim_id!r}")
            added = _valid(doc, event.after)
            _check_overlap(doc, added, None)
            claim = doc.claims[event.claim_id] = ClaimState(event.claim_id, None, added, "add")
            return claim
        claim = self.claim(doc, event.claim_id)
        if event.action != "reject":
            after = claim.current if event.after is None else event.after
            new = after if claim.original is not None and _same(after, claim.original, doc.schema.keys) \
                else _valid(doc, after)
            moved = (new.get("start"), new.get("end")) != (claim.current.get("start"), claim.current.get("end"))
            if moved or claim.status == "rejected":
                _check_overlap(doc, new, claim.id)
            claim.current = dict(new)
        claim.decision = event.action if claim.original is not None else (
            "reject" if event.action == "reject" else "add")
        return claim

    def iter_claims(self) -> Iterator[tuple[DocState, ClaimState]]:
        for doc in self.docs.values():
            for claim in doc.ordered():
                yield doc, claim


# ---------------------------------------------------------------------- helpers


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else -1


def _same(a: Row, b: Row, keys: tuple[str, ...] = CLAIM_KEYS) -> bool:
    return all(a.get(k) == b.get(k) for k in keys)


def _doc_state(row: Row, claims: list[Row], schema: ReviewSchema = BUILTIN) -> DocState:
    """A document as extracted: claims with ids unique in the document, its lists."""
    states: dict[str, ClaimState] = {}
    for index, claim in enumerate(claims):
        start, end = _int(claim.get("start")), _int(claim.get("end"))
        base = f"{start}-{end}" if start >= 0 and end >= 0 else f"i{index}"
        claim_id, n = base, 1
        while claim_id in states:
            n += 1
            claim_id = f"{base}.{n}"
        content = {k: claim.get(k) for k in schema.keys}
        confidence = claim.get("confidence")
        states[claim_id] = ClaimState(claim_id, content, dict(content),
                                      confidence=float(confidence) if isinstance(confidence, (int, float)) else None,
                                      certainty=certainty(claim), uncertain=uncertain(claim))
    lists = {"system": row.get("system") or None,
             **{k: [str(n) for n in row.get(k) or [] if n] for k in LIST_FIELDS[1:]}}
    return DocState(row=row, claims=states, lists=lists, original_lists={k: v for k, v in lists.items()},
                    schema=schema)


def _edited(doc: DocState, claim: Row, changes: dict[str, Any], span: Optional[tuple[int, int]],
            claim_id: Optional[str]) -> Row:
    """The claim with new words (span: value, unit, qualifier, evidence, offsets from the parser)
    and edited fields, every field checked."""
    schema = doc.schema
    unknown = sorted(set(changes) - set(schema.editable))
    if unknown:
        raise ReviewError(f"cannot edit {', '.join(unknown)}: value, unit and evidence change only by "
                          "choosing other words of the text")
    after = dict(claim)
    if span is not None:
        words = span_claim(doc.text, *span)
        after.update({k: words[k] for k in ("value", "value_high", "unit", "qualifier", "evidence", "start", "end")})
        if claim_id is None and "metric" not in changes and schema.builtin:
            after["metric"] = words["metric"]
        _check_overlap(doc, after, claim_id)
    if not schema.builtin:
        return _edited_fields(doc, after, changes)
    known = doc.known_names()
    for key, value in changes.items():
        if key == "kind":
            after["kind"] = _enum(Kind, value, "kind")
        elif key == "qualifier":
            after["qualifier"] = None if value in (None, "") else _enum(Qualifier, value, "qualifier")
        elif key == "metric":
            metric = " ".join(str(value or "").split()) or None
            if metric and len(metric) > MAX_METRIC:
                raise ReviewError(f"metric is longer than {MAX_METRIC} characters")
            after["metric"] = metric
        else:
            after[key] = grounded_name(doc.text, key, value, known=known)
    if "hardware" in changes:
        after["hardware_canonical"] = canonical_hardware(after["hardware"])
    return _valid(doc, after)


def _edited_fields(doc: DocState, after: Row, changes: dict[str, Any]) -> Row:
    """A custom schema's claim with edited fields: a kind of the schema, span fields that are
    words of the text (found nearest the claim's number, with their offsets), plain fields
    among their values."""
    schema, choices = doc.schema, dict(doc.schema.choices)
    start, end = _int(after.get("start")), _int(after.get("end"))
    for key, value in changes.items():
        if key == "kind":
            if value not in schema.kinds:
                raise ReviewError(f"kind {value!r} is not one of {', '.join(schema.kinds)}")
            after["kind"] = value
        elif key in schema.spans:
            words = " ".join(str(value or "").split())
            place = locate(parse_text(doc.text), words, start, end) if words else None
            if words and place is None:
                raise ReviewError(f"{key} {words!r} is not words of the text; select words of the text")
            after[key] = doc.text[place[0]:place[1]] if place else None
            after[f"{key}_start"], after[f"{key}_end"] = place if place else (None, None)
        else:
            match = [c for c in choices[key] if c == value or (c is not None and str(c).lower() == str(value).lower())]
            if not match:
                raise ReviewError(f"{key} {value!r} is not one of {', '.join(str(c) for c in choices[key])}")
            after[key] = match[0]
    for name, values in schema.choices:  # a claim added by a reviewer starts with each field's first value
        if after.get(name) is None and None not in values:
            after[name] = values[0]
    return _valid(doc, after)


def _enum(enum: Any, value: Any, name: str) -> str:
    try:
        return str(enum(value).value)
    except ValueError:
        raise ReviewError(f"{name} {value!r} is not one of {', '.join(e.value for e in enum)}") from None


def _valid(doc: DocState, row: Optional[Row]) -> Row:
    """A complete claim, grounded in the document's text."""
    if row is None:
        raise ReviewError("a claim is missing")
    if not doc.schema.builtin:
        return _valid_schema_claim(doc, row)
    try:
        claim = Claim.model_validate({k: row.get(k) for k in CLAIM_KEYS})
        claim.check_grounded(doc.text)
    except (ValidationError, ValueError) as exc:
        raise ReviewError(f"not a grounded claim: {' '.join(str(exc).split())[:200]}") from None
    return claim.model_dump(mode="json")


def _valid_schema_claim(doc: DocState, row: Row) -> Row:
    """A complete claim of a custom schema: its number and every span grounded in the text."""
    schema = doc.schema
    values = {k: row.get(k) for k in schema.keys}
    if values.get("kind") not in schema.kinds:
        raise ReviewError(f"not a claim of this schema: kind {values.get('kind')!r}")
    try:
        claim = SchemaClaim.model_validate(values)
    except ValidationError as exc:
        raise ReviewError(f"not a grounded claim: {' '.join(str(exc).split())[:200]}") from None
    spans = [("evidence", claim.start, claim.end)] + [(name, values.get(f"{name}_start"), values.get(f"{name}_end"))
                                                       for name in schema.spans if values.get(name) is not None]
    for name, start, end in spans:
        if not isinstance(start, int) or not isinstance(end, int) or doc.text[start:end] != values.get(name):
            raise ReviewError(f"not a grounded claim: {name} {values.get(name)!r} is not text[{start}:{end}]")
    return values


def _check_overlap(doc: DocState, row: Row, claim_id: Optional[str]) -> None:
    """Two claims that are not rejected may not share words of the text."""
    start, end = _int(row.get("start")), _int(row.get("end"))
    for other in doc.claims.values():
        if other.id == claim_id or other.status == "rejected":
            continue
        o_start, o_end = _int(other.current.get("start")), _int(other.current.get("end"))
        if start < o_end and o_start < end:
            raise ReviewError(f"those words overlap the claim {other.current.get('evidence')!r}; "
                              "edit or reject that claim instead")


def _checked_lists(doc: DocState, lists: Optional[Row]) -> Row:
    """Document lists (system, datasets, hardware, models) whose new names are words of the text."""
    if not isinstance(lists, dict):
        raise ReviewError("document lists are missing")
    unknown = sorted(set(lists) - set(LIST_FIELDS))
    if unknown:
        raise ReviewError(f"unknown document list(s): {', '.join(unknown)}")
    known = doc.known_names()
    result = dict(doc.lists)
    if "system" in lists:
        result["system"] = grounded_name(doc.text, "system", lists["system"], known=known)
    for key in LIST_FIELDS[1:]:
        if key in lists:
            values = lists[key]
            if not isinstance(values, list):
                raise ReviewError(f"{key} must be a list of names")
            names = [grounded_name(doc.text, key, v, known=known) for v in values]
            result[key] = list(dict.fromkeys(n for n in names if n))
    return result
