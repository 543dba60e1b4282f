"""How a ClaimTable shows itself in a notebook: a compact summary and the first claims, each
with the words of the abstract around it and its evidence highlighted."""

from __future__ import annotations

import html
from collections import Counter
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from paper_claims.outputs.table import ClaimTable

SHOWN = 10
CONTEXT = 70  # characters of the abstract on each side of the evidence


def _esc(value: object) -> str:
    return "" if value is None else html.escape(str(value), quote=True)


def _snippet(text: str, start: int, end: int) -> str:
    """The evidence highlighted in its surroundings, escaped."""
    if not (0 <= start < end <= len(text)):
        return ""
    left, right = max(0, start - CONTEXT), min(len(text), end + CONTEXT)
    return (("…" if left else "") + _esc(text[left:start]) + f"<mark>{_esc(text[start:end])}</mark>"
            + _esc(text[end:right]) + ("…" if right < len(text) else ""))


def table_html(table: "ClaimTable") -> str:
    """The summary line, claims by kind, and the first ``SHOWN`` claims."""
    kinds = Counter(row["kind"] for row in table.rows)
    summary = (f"<b>{len(table.documents)}</b> documents, <b>{len(table)}</b> claims, "
               f"<b>{len(table.errors)}</b> errors")
    if kinds:
        summary += " · " + ", ".join(f"{_esc(k)} {n}" for k, n in kinds.most_common())
    texts = {doc.doc_id: doc.text or "" for doc in table.documents}
    rows = []
    for row in table.rows[:SHOWN]:
        value = row["value"] if row["value_high"] is None else f"{row['value']}–{row['value_high']}"
        rows.append(
            f"<tr><td>{_esc(row['doc_id'])}</td><td>{_esc(row['kind'])}</td><td>{_esc(value)} {_esc(row['unit'])}</td>"
            f"<td>{_esc(row['metric'])}</td><td>{_esc(row['dataset'])}</td><td>{_esc(row['hardware'])}</td>"
            f"<td>{_esc(row['baseline'])}</td>"
            f"<td>{_snippet(texts.get(row['doc_id'], ''), row['start'], row['end'])}</td></tr>")
    more = f"<p>… and {len(table) - SHOWN} more claims (<code>claims_df()</code> has them all)</p>" if len(table) > SHOWN else ""
    head = "".join(f"<th>{h}</th>" for h in ("doc", "kind", "value", "metric", "dataset", "hardware", "baseline",
                                            "evidence in the abstract"))
    body = f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>" if rows else ""
    return f"<div class='paper-claims'><p>ClaimTable: {summary}</p>{body}{more}</div>"
