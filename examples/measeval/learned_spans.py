"""MeasEval's annotations as examples of the span tagger (``span_tagger.py``), and the claims of
a run with their span fields chosen by a tagger trained on them.

The MeasEval schema's span fields (``entity``, ``property``, ``context``) are MeasEval's
``MeasuredEntity``, ``MeasuredProperty`` and ``Qualifier``. ``examples_of(split)`` reads a
split's paragraphs and TSVs (one example per annotated quantity), ``negatives_of(docs)`` the
parser's numbers no annotation covers; ``respan(claims, texts, tagger)`` gives each claim row
the tagger's spans in place of the model's, offsets and words of the paragraph, the rest of the
row as it was (``tagger`` is a ``SpanTagger`` or a ``transformer_spans.TransformerSpans``).

    tagger = SpanTagger(FIELDS).fit(examples_of(Path("measeval/train")))
    rows = respan(rows, texts, tagger)
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterable, Mapping, Optional

from measeval_tsv import split_rows
from span_tagger import Example, Span, SpanTagger

FIELDS = ("entity", "property", "context")
TYPES = {"MeasuredEntity": "entity", "MeasuredProperty": "property", "Qualifier": "context"}


def read_split(directory: Path) -> list[tuple[str, str, list[dict[str, Span]]]]:
    """(docId, paragraph, annotation sets) of each paragraph that has a TSV; a set maps
    ``number`` and each span field it has to offsets."""
    docs = []
    for doc_id, text, rows in split_rows(directory):
        sets: dict[str, dict[str, Span]] = {}
        for row in rows:
            name = "number" if row["annotType"] == "Quantity" else TYPES.get(row["annotType"])
            if name:
                sets.setdefault(row["annotSet"], {})[name] = (int(row["startOffset"]), int(row["endOffset"]))
        docs.append((doc_id, text, [s for s in sets.values() if "number" in s]))
    return docs


def examples_of(docs: Iterable[tuple[str, str, list[dict[str, Span]]]]) -> list[Example]:
    """One example per annotated quantity (the paragraph's other quantities given as others)."""
    examples = []
    for _, text, sets in docs:
        numbers = [s["number"] for s in sets]
        for s in sets:
            spans = {name: s[name] for name in FIELDS if name in s}
            examples.append(Example(text, s["number"], spans, [n for n in numbers if n != s["number"]]))
    return examples


def negatives_of(docs: Iterable[tuple[str, str, list[dict[str, Span]]]]) -> list[Example]:
    """The numbers the parser finds (written as MeasEval writes quantities) that overlap no
    annotated quantity: examples of what the annotators left out."""
    from measeval_tsv import every_number, measeval_quantities

    negatives = []
    for doc_id, text, sets in docs:
        gold = [s["number"] for s in sets]
        for row in measeval_quantities(every_number([], text, doc_id), text):
            number = (int(row["start"]), int(row["end"]))
            if not any(number[0] < g[1] and g[0] < number[1] for g in gold):
                negatives.append(Example(text, number, {}, gold))
    return negatives


def respan(claims: Iterable[Mapping[str, Any]], texts: Mapping[str, str], tagger: SpanTagger) -> list[dict[str, Any]]:
    """The claim rows with their span fields from ``tagger`` (each row's paragraph from
    ``texts`` by ``doc_id``; the paragraph's other claims are its other numbers)."""
    rows = [dict(claim) for claim in claims]
    numbers: dict[str, list[Span]] = {}
    for row in rows:
        numbers.setdefault(str(row["doc_id"]), []).append((int(row["start"]), int(row["end"])))
    for row in rows:
        text = texts[str(row["doc_id"])]
        number = (int(row["start"]), int(row["end"]))
        others = [n for n in numbers[str(row["doc_id"])] if n != number]
        found = tagger.predict(text, number[0], number[1], others)
        for name in tagger.fields:
            span: Optional[Span] = found.get(name)
            row[name] = text[span[0]:span[1]] if span else None
            row[f"{name}_start"], row[f"{name}_end"] = span if span else (None, None)
    return rows
