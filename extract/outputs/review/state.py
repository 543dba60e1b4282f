"""The review state: an extraction's output with the decisions of its log replayed over it.

Each claim of ``claims.jsonl`` gets an id within its document (``start-end``, made unique) and a
status from the last decision on it: ``pending`` (none yet), ``accepted`` (kept as extracted),
``edited`` (kept with other content), ``added`` (found by the reviewer) or ``rejected``. Later
decisions replace earlier ones (the last decision wins); the log keeps them all. A document is
reviewed once it has a decision and no pending claim.
"""

from __future__ import annotations

import secrets
from pathlib import Path
from typing import Any, Iterator, Optional, Union

from pydantic import BaseModel, Field

from paper_claims.errors import InputError, ReviewError
from paper_claims.outputs.review.docs import BUILTIN, ClaimState, DocState, ReviewSchema, Row, doc_state, same
from paper_claims.outputs.review.edits import check_overlap, checked_lists, edited, valid_claim
from paper_claims.outputs.review.log import LOG_NAME, Action, LogProblem, ReviewEvent, ReviewLog, now
from paper_claims.text import read_jsonl


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
        docs = [doc_state(row, claims.get(doc_id, []), schema) for doc_id, row in rows.items()]
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
            return [event("lists", None, dict(doc.lists), checked_lists(doc, decision.lists))]
        if decision.action == "add":
            if decision.span is None or "kind" not in decision.changes:
                raise ReviewError("adding a claim needs the chosen words (span) and a kind")
            after = edited(doc, {k: None for k in doc.schema.keys}, decision.changes, decision.span, None)
            return [event("add", f"n{secrets.token_hex(4)}", None, after)]
        claim = self.claim(doc, decision.claim_id)
        before = dict(claim.current)
        if decision.action == "reject":
            after = None
        elif decision.action == "reset":
            after = dict(claim.original or claim.current)
        elif decision.action == "edit":
            after = edited(doc, claim.current, decision.changes, decision.span, claim.id)
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
                doc.lists = checked_lists(doc, event.after)
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
            added = valid_claim(doc, event.after)
            check_overlap(doc, added, None)
            claim = doc.claims[event.claim_id] = ClaimState(event.claim_id, None, added, "add")
            return claim
        claim = self.claim(doc, event.claim_id)
        if event.action != "reject":
            after = claim.current if event.after is None else event.after
            new = after if claim.original is not None and same(after, claim.original, doc.schema.keys) \
                else valid_claim(doc, after)
            moved = (new.get("start"), new.get("end")) != (claim.current.get("start"), claim.current.get("end"))
            if moved or claim.status == "rejected":
                check_overlap(doc, new, claim.id)
            claim.current = dict(new)
        claim.decision = event.action if claim.original is not None else (
            "reject" if event.action == "reject" else "add")
        return claim

    def iter_claims(self) -> Iterator[tuple[DocState, ClaimState]]:
        for doc in self.docs.values():
            for claim in doc.ordered():
                yield doc, claim
