"""A self-contained HTML report of an extraction run.

``write_report(out_dir)`` reads ``OUT_DIR/claims.jsonl`` and ``OUT_DIR/documents.jsonl`` and
writes ``OUT_DIR/report.html``: a summary, charts drawn as inline SVG (outputs/charts.py), the failed
documents, and every abstract with its claims highlighted at their character offsets. The file
works offline: no external URL, inline CSS and JS only (the page's own, ``static/report.css`` and
``static/report.js``, read when rendering). Abstracts are untrusted input, so every piece of text
goes through ``escaping.esc``. The summary's counts are outputs/summary.py's.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any, Iterable, Optional
from urllib.parse import quote

from paper_claims.errors import InputError
from paper_claims.outputs.charts import bar_chart, strip_chart
from paper_claims.outputs.escaping import esc
from paper_claims.outputs.files import atomic_write_text
from paper_claims.outputs.summary import KINDS, Row, Summary, Tally, is_error, summarize
from paper_claims.outputs.table import read_manifest
from paper_claims.schemas.claims import uncertain
from paper_claims.text import iter_jsonl

KIND_COLORS: dict[str, str] = {
    "speedup": "#e8590c",
    "efficiency": "#2b8a3e",
    "accuracy": "#1c7ed6",
    "improvement": "#9c36b5",
    "scale": "#a07a12",
    "other": "#757575",
}
CLAIM_FIELDS: tuple[str, ...] = (
    "kind", "value", "value_high", "unit", "qualifier", "metric",
    "dataset", "hardware", "model", "baseline", "confidence",
)
DEFAULT_ABSTRACTS = 500  # abstracts written into the page unless asked for all


# --------------------------------------------------------------------------- charts


def kind_chart(by_kind: dict[str, int]) -> Optional[str]:
    """Horizontal bar chart of claims by kind, as SVG; None when there are no claims."""
    if not any(by_kind.values()):
        return None
    return bar_chart("kinds", [(k, n, kind_color(k, by_kind)) for k, n in by_kind.items()], "claims")


def speedup_chart(points: list[tuple[str, float, Optional[float]]]) -> Optional[str]:
    """Strip chart of speedup factors by (canonical) hardware, as SVG; None without data."""
    if not points:
        return None
    return strip_chart("speedups", points, "reported speedup factor (log scale)", colour=KIND_COLORS["speedup"])


# --------------------------------------------------------------------------- html pieces


def _fmt(value: Any) -> str:
    """A field value for display: numbers without trailing .0, lists joined."""
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, list):
        return ", ".join(str(v) for v in value)
    return "" if value is None else str(value)


def claim_fields(claim: Row) -> tuple[str, ...]:
    """The fields a claim row shows: the built-in schema's, or a custom schema's own columns
    (the parser's number and the schema's fields; a span's offsets left out)."""
    if "hardware_canonical" in claim or "metric" in claim:
        return CLAIM_FIELDS
    return tuple(k for k in claim if k not in ("doc_id", "evidence", "start", "end")
                 and not k.endswith(("_start", "_end")))


def claim_tooltip(claim: Row) -> str:
    """The claim's fields, one 'name: value' per line (unescaped)."""
    lines = []
    for name in claim_fields(claim):
        value = claim.get(name)
        if name == "hardware" and claim.get("hardware_canonical"):
            value = f"{_fmt(value)} → {claim['hardware_canonical']}"
        lines.append(f"{name}: {_fmt(value) if value not in (None, '') else '—'}")
    return "\n".join(lines)


@dataclass
class Highlighted:
    """An abstract rendered with <mark> elements, and how many claims could not be marked."""

    html: str
    marked: int = 0
    skipped: list[Row] = field(default_factory=list)


def highlight(text: str, claims: list[Row]) -> Highlighted:
    """Escaped text with every well-placed claim wrapped in a <mark>.

    Offsets outside the text, empty spans, spans whose text differs from the evidence and spans
    overlapping an earlier mark are skipped (and returned) rather than raising.
    """
    result = Highlighted(html="")
    pieces: list[str] = []
    pos = 0
    ordered = sorted(claims, key=lambda c: (_offset(c.get("start")), _offset(c.get("end"))))
    for claim in ordered:
        start, end = _offset(claim.get("start")), _offset(claim.get("end"))
        evidence = claim.get("evidence")
        if not (pos <= start < end <= len(text)) or (evidence is not None and text[start:end] != evidence):
            result.skipped.append(claim)
            continue
        pieces.append(esc(text[pos:start]))
        pieces.append(_mark(claim, text[start:end]))
        pos = end
        result.marked += 1
    pieces.append(esc(text[pos:]))
    result.html = "".join(pieces)
    return result


def _offset(value: Any) -> int:
    """An offset as int; -1 for anything that is not an integer."""
    if isinstance(value, bool):
        return -1
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return -1


def _mark(claim: Row, span: str) -> str:
    """One <mark> element for a claim (an uncertain one dashed)."""
    kind = str(claim.get("kind") or "other")
    unsure = " uncertain" if uncertain(claim) else ""
    return (
        f'<mark class="claim k-{esc(kind)}{unsure}" data-kind="{esc(kind)}" data-doc="{esc(claim.get("doc_id"))}"'
        f' data-start="{esc(claim.get("start"))}" data-end="{esc(claim.get("end"))}"'
        f' title="{esc(claim_tooltip(claim))}">{esc(span)}</mark>'
    )


def _chips(label: str, values: Any) -> str:
    """A labelled row of chips for a list field; '' when empty."""
    items = [v for v in (values or []) if v not in (None, "")] if isinstance(values, list) else (
        [values] if values else [])
    if not items:
        return ""
    chips = "".join(f'<span class="chip">{esc(v)}</span>' for v in items)
    return f'<div class="meta-row"><span class="meta-label">{esc(label)}</span>{chips}</div>'


def _claims_table(claims: list[Row]) -> str:
    """A collapsible table of a document's claims."""
    if not claims:
        return ""
    fields = claim_fields(claims[0])
    head = "".join(f"<th>{esc(name)}</th>" for name in (*fields, "evidence", "offsets"))
    rows = []
    for claim in sorted(claims, key=lambda c: _offset(c.get("start"))):
        flag = ' <span class="unsure" title="a decision below even odds: check before citing">?</span>' if uncertain(claim) else ""
        cells = [f'<td><span class="dot k-{esc(claim.get("kind"))}"></span>{esc(claim.get("kind"))}{flag}</td>']
        for name in fields[1:]:
            value = claim.get(name)
            if name == "hardware" and claim.get("hardware_canonical"):
                value = f"{_fmt(value)} ({claim['hardware_canonical']})"
            cells.append(f"<td>{esc(_fmt(value))}</td>")
        cells.append(f'<td class="ev">{esc(claim.get("evidence"))}</td>')
        cells.append(f'<td class="num">{esc(claim.get("start"))}–{esc(claim.get("end"))}</td>')
        rows.append(f"<tr>{''.join(cells)}</tr>")
    return (
        f'<details class="claims"><summary>{len(claims)} claim{"s" if len(claims) != 1 else ""}'
        f'</summary><div class="scroll"><table><thead><tr>{head}</tr></thead><tbody>{"".join(rows)}'
        "</tbody></table></div></details>"
    )


def _search_blob(doc: Row, claims: list[Row]) -> str:
    """Lower-cased metadata and claim fields the search box matches (besides the text)."""
    parts: list[str] = [_fmt(doc.get(k)) for k in ("doc_id", "title", "doi", "year", "system", "source", "error")]
    parts += [_fmt(doc.get(k)) for k in ("datasets", "hardware", "models")]
    for claim in claims:
        parts += [_fmt(claim.get(k)) for k in (*claim_fields(claim), "hardware_canonical", "evidence")]
    return " ".join(p for p in parts if p).lower()


def heading(doc: Row, words: int = 8) -> str:
    """A document's heading: its title, else the first words of its text (most abstracts come
    without a title), else its id."""
    if doc.get("title"):
        return str(doc["title"])
    text = doc.get("text")
    if isinstance(text, str) and text.split():
        first = text.split()
        return " ".join(first[:words]) + ("…" if len(first) > words else "")
    return str(doc.get("doc_id") or "")


def _reference(doc: Row) -> str:
    """" · 2024 · doi:10.1/x" (the DOI a link), or ""."""
    parts = []
    if doc.get("year"):
        parts.append(esc(doc["year"]))
    if doc.get("doi"):
        doi = str(doc["doi"])
        parts.append(f'<a href="https://doi.org/{esc(quote(doi, safe="/:;()"))}">doi:{esc(doi)}</a>')
    return "".join(f" · {part}" for part in parts)


def document_section(doc: Row, claims: list[Row]) -> tuple[str, int]:
    """One document's <article>: header, lists, highlighted abstract, claims table.

    Returns the HTML and the number of claims that could not be highlighted.
    """
    text = doc.get("text")
    marked = highlight(text, claims) if isinstance(text, str) else Highlighted(esc(text), 0, list(claims))
    kinds = sorted({str(c.get("kind") or "other") for c in claims})
    status = "error" if is_error(doc) else "ok"
    title = heading(doc)
    badges = f'<span class="badge {status}">{status}</span>'
    badges += f'<span class="badge n">{len(claims)} claim{"s" if len(claims) != 1 else ""}</span>'
    if doc.get("dropped"):
        badges += f'<span class="badge warn">{esc(doc.get("dropped"))} dropped</span>'
    parts = [
        f'<article class="doc {status}" id="doc-{esc(doc.get("doc_id"))}" data-doc="{esc(doc.get("doc_id"))}"'
        f' data-kinds="{esc(" ".join(kinds))}" data-search="{esc(_search_blob(doc, claims))}">',
        f'<header><h3>{esc(title)}</h3><div class="ids"><code>{esc(doc.get("doc_id"))}</code>'
        f'{" · " + esc(doc.get("source")) if doc.get("source") else ""}{_reference(doc)}{badges}</div></header>',
        _chips("system", doc.get("system")),
        _chips("datasets", doc.get("datasets")),
        _chips("hardware", doc.get("hardware")),
        _chips("models", doc.get("models")),
    ]
    if is_error(doc):
        parts.append(f'<p class="error-msg">{esc(doc.get("error") or "unknown error")}</p>')
    if marked.skipped:
        parts.append(f'<p class="note">{len(marked.skipped)} claim(s) not highlighted: offsets out of '
                     "range, overlapping or not matching the evidence.</p>")
    parts.append(f'<p class="abstract">{marked.html}</p>' if text else '<p class="note">no text</p>')
    parts.append(_claims_table(claims))
    parts.append("</article>")
    return "".join(parts), len(marked.skipped)


def _stat(label: str, value: Any, cls: str = "") -> str:
    """One summary card."""
    return f'<div class="stat {cls}"><div class="v">{esc(value)}</div><div class="l">{esc(label)}</div></div>'


def _count_table(title: str, rows: list[tuple[str, int]], unit: str) -> str:
    """A small two-column table of names and counts, or a 'no data' note."""
    if not rows:
        return f'<div class="counts"><h3>{esc(title)}</h3><p class="nodata">no data</p></div>'
    body = "".join(f"<tr><td>{esc(name)}</td><td class='num'>{n}</td></tr>" for name, n in rows)
    return (f'<div class="counts"><h3>{esc(title)}</h3><table><thead><tr><th>name</th>'
            f"<th class='num'>{esc(unit)}</th></tr></thead><tbody>{body}</tbody></table></div>")


def summary_section(summary: Summary) -> str:
    """Stat cards and the top-datasets / top-hardware / by-kind tables."""
    cards = [
        _stat("documents", summary.documents),
        _stat("ok", summary.ok, "ok"),
        _stat("errors", summary.errors, "error" if summary.errors else ""),
        _stat("claims", summary.claims),
    ]
    if summary.skipped:
        cards.append(_stat("not highlighted", summary.skipped, "warn"))
    if summary.orphans:
        cards.append(_stat("claims without document", summary.orphans, "warn"))
    kinds = [(k, n) for k, n in summary.by_kind.items() if n]
    return (
        f'<section id="summary"><h2>Summary</h2><div class="stats">{"".join(cards)}</div>'
        f'<div class="tables">{_count_table("Claims by kind", kinds, "claims")}'
        f'{_count_table("Most frequent datasets", summary.top_datasets, "claims")}'
        f'{_count_table("Most frequent hardware", summary.top_hardware, "claims")}</div></section>'
    )


def _chart_box(title: str, svg: Optional[str]) -> str:
    """A chart with its title, or a 'no data' note."""
    body = svg if svg else '<p class="nodata">no data</p>'
    return f'<figure class="chart-box"><figcaption>{esc(title)}</figcaption>{body}</figure>'


def charts_section(summary: Summary) -> str:
    """The two charts side by side, over every claim (speedups sampled evenly past a few hundred)."""
    title = "Reported speedup factors (unit ×) by hardware"
    if summary.speedups_total > len(summary.speedups):
        title += f" — an even sample of {len(summary.speedups)} of {summary.speedups_total}"
    return (
        '<section id="charts"><h2>Charts</h2><div class="charts">'
        f'{_chart_box("Claims by kind", kind_chart(summary.by_kind))}'
        f'{_chart_box(title, speedup_chart(summary.speedups))}'
        "</div></section>"
    )


def errors_section(summary: Summary) -> str:
    """Table of failed documents with their error (the first few hundred)."""
    failed = summary.failed
    if not failed:
        return '<section id="errors"><h2>Failed documents</h2><p class="nodata">none</p></section>'
    rows = "".join(
        f'<tr><td><a href="#doc-{esc(d.get("doc_id"))}"><code>{esc(d.get("doc_id"))}</code></a></td>'
        f'<td>{esc(d.get("title"))}</td><td class="num">{esc(d.get("attempts"))}</td>'
        f'<td class="error-msg">{esc(d.get("error") or "unknown error")}</td></tr>'
        for d in failed
    )
    more = (f'<p class="note">The first {len(failed)} of {summary.errors} failed documents; '
            "documents.jsonl lists them all (status error).</p>") if summary.errors > len(failed) else ""
    return (
        f'<section id="errors"><h2>Failed documents ({summary.errors})</h2>{more}<table class="errors">'
        "<thead><tr><th>doc_id</th><th>title</th><th class='num'>attempts</th><th>error</th></tr>"
        f"</thead><tbody>{rows}</tbody></table></section>"
    )


def filter_bar(by_kind: dict[str, int], empty: int) -> str:
    """Kind checkboxes, a 'without claims' toggle, a search box and a visible-count label."""
    boxes = "".join(
        f'<label class="kind-box"><input type="checkbox" class="kind-filter" value="{esc(k)}" checked>'
        f'<span class="dot k-{esc(k)}"></span>{esc(k)} <span class="muted">({n})</span></label>'
        for k, n in by_kind.items()
    )
    return (
        '<div class="filters" id="filters">'
        f'<div class="kinds">{boxes}<label class="kind-box"><input type="checkbox" id="show-empty" checked>'
        f'no claims <span class="muted">({empty})</span></label></div>'
        '<input type="search" id="search" placeholder="Search text, titles, claims…"'
        ' aria-label="search documents"><span id="shown" class="muted"></span></div>'
    )


PALETTE = ("#0b7285", "#d9480f", "#5c940d", "#862e9c", "#c2255c", "#364fc7", "#e67700", "#495057")


def kind_color(kind: str, kinds: Iterable[str] = ()) -> str:
    """A kind's color: the built-in kinds' own, else one of PALETTE by the kind's place."""
    if kind in KIND_COLORS:
        return KIND_COLORS[kind]
    order = [k for k in kinds if k not in KIND_COLORS]
    return PALETTE[order.index(kind) % len(PALETTE)] if kind in order else "#757575"


def _kind_css(kinds: Iterable[str] = ()) -> str:
    """Per-kind highlight and dot colors (the built-in kinds and a custom schema's)."""
    rules = []
    kinds = list(kinds)
    colors = {**KIND_COLORS, **{k: kind_color(k, kinds) for k in kinds}}
    for kind, color in colors.items():
        rules.append(f".k-{kind}.claim{{background:{color}26;border-bottom-color:{color}}}")
        rules.append(f".dot.k-{kind}{{background:{color}}}")
    return "\n".join(rules)


@lru_cache(maxsize=None)
def page_asset(name: str) -> str:
    """A file of the page shipped in the package (``static/``): ``report.css`` or ``report.js``."""
    return resources.files("paper_claims.outputs").joinpath("static", name).read_text(encoding="utf-8")


def render(docs: list[Row], claims: list[Row], title: str = "paper-claims report",
           summary: Optional[Summary] = None, note: str = "") -> str:
    """The whole report as one HTML string: ``docs`` are the abstracts written into the page,
    ``summary`` (default: computed from ``docs`` and ``claims``) covers the whole run."""
    by_doc: dict[Any, list[Row]] = {}
    for claim in claims:
        by_doc.setdefault(claim.get("doc_id"), []).append(claim)
    if summary is None:
        summary = summarize(docs, claims)
    articles = []
    for doc in docs:
        article, skipped = document_section(doc, by_doc.get(doc.get("doc_id"), []))
        articles.append(article)
        summary.skipped += skipped
    empty = sum(1 for doc in docs if not by_doc.get(doc.get("doc_id")))
    shown_kinds = Counter(str(c.get("kind") or "other") for d in docs for c in by_doc.get(d.get("doc_id"), []))
    note_html = f'<p class="note" id="limit-note">{esc(note)}</p>' if note else ""
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{esc(title)}</title><style>\n{page_asset('report.css')}{_kind_css(summary.by_kind)}</style>"
        "</head><body><main>"
        f'<h1>{esc(title)}</h1><p class="sub">{summary.documents} documents · {summary.claims} claims'
        " · hover a highlight for the claim's fields</p>"
        f"{summary_section(summary)}{charts_section(summary)}{errors_section(summary)}"
        f'<section id="documents"><h2>Abstracts</h2>{note_html}'
        f'{filter_bar({k: shown_kinds.get(k, 0) for k in summary.by_kind}, empty)}'
        f'{"".join(articles) or "<p class=nodata>no documents</p>"}</section>'
        "<footer>Generated by paper-claims · self-contained, works offline</footer>"
        f"</main><script>\n{page_asset('report.js')}</script></body></html>\n"
    )


def write_report(out_dir: str | Path, path: str | Path | None = None, *,
                 max_abstracts: Optional[int] = DEFAULT_ABSTRACTS) -> Path:
    """Write the HTML report of OUT_DIR's claims.jsonl and documents.jsonl; return its path.

    Summary, tables and charts cover every document and claim; the page holds the first
    ``max_abstracts`` abstracts (None: all) with a note saying so, so a report of a large run
    stays small and opens fast. Both files are read as streams. The report goes to ``path``
    if given, else ``OUT_DIR/report.html``. InputError when OUT_DIR is not an output folder.
    """
    out = Path(out_dir)
    if not out.is_dir():
        raise InputError(f"output directory not found: {out}")
    if not (out / "documents.jsonl").is_file():
        raise InputError(f"no documents.jsonl in output directory {out} (run claims extract ... --out {out} first)")
    manifest = read_manifest(out)  # a custom schema's kinds
    tally = Tally(tuple(manifest["kinds"]) if manifest else KINDS)
    shown: list[Row] = []
    for doc in iter_jsonl(out / "documents.jsonl"):
        tally.add_document(doc)
        if max_abstracts is None or len(shown) < max_abstracts:
            shown.append(doc)
    shown_ids = {doc.get("doc_id") for doc in shown}
    claims: list[Row] = []
    for claim in iter_jsonl(out / "claims.jsonl"):
        tally.add_claim(claim)
        if claim.get("doc_id") in shown_ids:
            claims.append(claim)
    note = ""
    if len(shown) < tally.documents:
        note = (f"Showing the first {len(shown)} of {tally.documents} abstracts (input order); the summary, "
                f"tables and charts cover all of them. `claims report {out} --all` writes every abstract; "
                "claims.csv and documents.jsonl hold every row.")
    target = Path(path) if path is not None else out / "report.html"
    return atomic_write_text(target, render(shown, claims, summary=tally.summary(), note=note))
