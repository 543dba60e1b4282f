"""How a ClaimTable shows itself in a notebook: a compact summary and the first claims, each
with the words of the abstract around it and its evidence highlighted."""

from __future__ import annotations

from collections import Counter
from typing import Any, Sequence

from paper_claims.outputs.escaping import esc
from paper_claims.schemas import DocumentResult

SHOWN = 10
CONTEXT = 70  # characters of the abstract on each side of the evidence


def _snippet(text: str, start: int, end: int) -> str:
    """The evidence highlighted in its surroundings, escaped."""
    if not (0 <= start < end <= len(text)):
        return ""
    left, right = max(0, start - CONTEXT), min(len(text), end + CONTEXT)
    return (("…" if left else "") + esc(text[left:start]) + f"<mark>{esc(text[start:end])}</mark>"
            + esc(text[end:right]) + ("…" if right < len(text) else ""))


def table_html(documents: Sequence[DocumentResult], rows: Sequence[dict[str, Any]], *,
               n_claims: int, n_errors: int) -> str:
    """The summary line, claims by kind, and the first ``SHOWN`` of the claim ``rows``."""
    kinds = Counter(row["kind"] for row in rows)
    summary = (f"<b>{len(documents)}</b> documents, <b>{n_claims}</b> claims, "
               f"<b>{n_errors}</b> errors")
    if kinds:
        summary += " · " + ", ".join(f"{esc(k)} {n}" for k, n in kinds.most_common())
    texts = {doc.doc_id: doc.text or "" for doc in documents}
    shown = []
    for row in rows[:SHOWN]:
        value = row["value"] if row["value_high"] is None else f"{row['value']}–{row['value_high']}"
        shown.append(
            f"<tr><td>{esc(row['doc_id'])}</td><td>{esc(row['kind'])}</td><td>{esc(value)} {esc(row['unit'])}</td>"
            f"<td>{esc(row['metric'])}</td><td>{esc(row['dataset'])}</td><td>{esc(row['hardware'])}</td>"
            f"<td>{esc(row['baseline'])}</td>"
            f"<td>{_snippet(texts.get(row['doc_id'], ''), row['start'], row['end'])}</td></tr>")
    more = f"<p>… and {n_claims - SHOWN} more claims (<code>claims_df()</code> has them all)</p>" if n_claims > SHOWN else ""
    head = "".join(f"<th>{h}</th>" for h in ("doc", "kind", "value", "metric", "dataset", "hardware", "baseline",
                                            "evidence in the abstract"))
    body = f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(shown)}</tbody></table>" if shown else ""
    return f"<div class='paper-claims'><p>ClaimTable: {summary}</p>{body}{more}</div>"
