"""Write paper-claims outputs in MeasEval's annotation format (SemEval-2021 Task 8 TSV).

One TSV per paragraph, columns ``docId, annotSet, annotType, startOffset, endOffset, annotId,
text, other``; one annotation set per quantity:

- ``Quantity``: the quantity's words (``evidence``, ``start``, ``end``), ``other`` holds its
  ``unit`` (as written in the quantity) and ``mods`` (IsRange, IsApproximate, IsCount, IsMean,
  ...);
- ``MeasuredProperty`` (``HasQuantity`` the quantity), ``MeasuredEntity`` (``HasProperty`` the
  property when there is one, else ``HasQuantity``), ``Qualifier`` (``Qualifies`` the
  quantity), each from a text-span field of the claim row (``entity``, ``entity_start``,
  ``entity_end``; likewise ``property`` and ``context``); a qualifier qualifies the property when there is one, else the
  quantity (the gold's most frequent choices: 132 and 96 of 309 in train and trial).

Reads a claim row as ``claims.jsonl`` holds it; works for any schema whose rows have these
columns (the MeasEval example schema's do; the parser alone gives quantity, unit and mods).
"""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path
from typing import Any, Iterable, Iterator, Mapping, Optional, Sequence

COLUMNS = ["docId", "annotSet", "annotType", "startOffset", "endOffset", "annotId", "text", "other"]
# the hedges of the parser (its ``qualifier`` column) as MeasEval modifiers
HEDGE_MODS = {"about": "IsApproximate", "up to": "IsRange", "over": "IsRange", "at least": "IsRange"}
_NUMBER = re.compile(r"[-+−–~∼≈<>≤≥±]?\s*\d[\d,.]*(?:\s*[x×]\s*10[-−]?\d+)?")
_LEAD = re.compile(r"^\W+|[^\w%‰°]+$")  # "wt.%" keeps its sign
_SCALE = re.compile(r"\s+(?:hundred|thousand|million|billion|trillion)\b", re.IGNORECASE)  # "5.9 million seeds"
_ASSIGNED = re.compile(r"^[A-Za-z]{1,3}\s*[=≈]\s*")  # "n = 8815": MeasEval's quantity is the number


def split_rows(directory: Path) -> Iterator[tuple[str, str, list[dict[str, str]]]]:
    """(docId, paragraph, TSV rows) of each paragraph of a MeasEval split folder that has a
    TSV (``text/`` or ``txt/`` beside ``tsv/``)."""
    text_dir = directory / "text" if (directory / "text").is_dir() else directory / "txt"
    for tsv in sorted((directory / "tsv").glob("*.tsv")):
        txt = text_dir / (tsv.stem + ".txt")
        if txt.exists():
            yield tsv.stem, txt.read_text(encoding="utf-8"), read_tsv(tsv)


def read_tsv(path: Path) -> list[dict[str, str]]:
    """The rows of one MeasEval TSV by column, unquoted as the task writes them (none when the
    file is missing)."""
    if not path.exists():
        return []
    with path.open(encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh, delimiter="\t", quoting=csv.QUOTE_NONE))


def write_tsv(path: Path, rows: Iterable[Sequence[Any] | Mapping[str, Any]]) -> None:
    """One MeasEval TSV: the header, then each row's cells in ``COLUMNS`` order (a row given by
    column or as a list), written as the gold files are: no quoting, a tab inside a cell a space."""
    lines = ["\t".join(COLUMNS)]
    for row in rows:
        cells = [row.get(column) for column in COLUMNS] if isinstance(row, Mapping) else row
        lines.append("\t".join("" if cell is None else " ".join(str(cell).split("\t")) for cell in cells))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def unit_as_written(row: Mapping[str, Any]) -> Optional[str]:
    """The unit as the quantity writes it: the words after the last number when they hold the
    parser's unit ("1.3 ± 0.5 wt.%" -> "wt.%", "274 Whitehall II participants"), else the
    parser's unit where it stands in the quantity's words; None for a bare number and for
    "5 or more" (a range, no unit)."""
    evidence = str(row.get("evidence") or "")
    unit = row.get("unit")
    numbers = list(_NUMBER.finditer(evidence))
    tail = _LEAD.sub("", evidence[numbers[-1].end():]).strip() if numbers else ""
    if tail.split(" ", 1)[0].lower() in _NOT_UNITS:
        tail = ""
    if unit == "x":  # a factor: MeasEval writes its word or sign as the unit ("16 times", "100×")
        return tail or ("×" if "×" in evidence else None)
    if tail and unit and str(unit) in tail:
        return tail
    if unit and str(unit) in evidence:
        return str(unit)
    if unit and str(unit).endswith("s") and re.search(rf"\b{re.escape(str(unit)[:-1])}\b", evidence):
        return str(unit)[:-1]  # "one day", "an eight-year record": the parser's "days", "years" as written
    return tail or None


_NOT_UNITS = {"or", "and", "to", "th", "st", "nd", "rd"}  # "5 or more", "1/100th": no unit words


_TOLERANCE = re.compile(r"±|\+/-")
_APPROXIMATE = re.compile(r"^\s*(?:[∼~≈]|approx\w*|about|around|roughly|nearly|almost|circa|ca\.)", re.IGNORECASE)
_MEAN = re.compile(r"\b(?:mean|average|averaged|avg\.?)\s+(?:\w+\s+){0,3}(?:of|was|is|were|=|:)?\s*$", re.IGNORECASE)
_MEDIAN = re.compile(r"\bmedian\s+(?:\w+\s+){0,3}(?:of|was|is|were|=|:)?\s*$", re.IGNORECASE)


def mods_of(row: Mapping[str, Any], text: Optional[str] = None) -> list[str]:
    """The MeasEval modifiers a claim row shows: a range, a hedge or an approximation sign, a
    tolerance ("±"), a count, a mean or median named right before the number (with the
    paragraph's ``text``), and the row's own ``mods`` (a list) or boolean ``mean``/``median``/
    ``approximate``/``tolerance`` fields when its schema has them."""
    mods: list[str] = []

    def add(mod: str) -> None:
        if mod not in mods:
            mods.append(mod)

    if row.get("value_high") is not None:
        add("IsRange")
    hedge = HEDGE_MODS.get(str(row.get("qualifier") or ""))
    if hedge:
        add(hedge)
    evidence = str(row.get("evidence") or "")
    if _APPROXIMATE.search(evidence):
        add("IsApproximate")
    if _TOLERANCE.search(evidence):
        add("HasTolerance")
    if text is not None and row.get("start") is not None:
        before = text[max(0, int(row["start"]) - 40):int(row["start"])]
        if _MEAN.search(before):
            add("IsMean")
        elif _MEDIAN.search(before):
            add("IsMedian")
    if row.get("kind") == "count":
        add("IsCount")
    for name, mod in (("approximate", "IsApproximate"), ("mean", "IsMean"), ("median", "IsMedian"),
                      ("tolerance", "HasTolerance"), ("is_list", "IsList")):
        if row.get(name) is True:
            add(mod)
    for mod in row.get("mods") or ():
        add(str(mod))
    return mods


def _span(row: Mapping[str, Any], name: str) -> Optional[tuple[int, int, str]]:
    text, start, end = row.get(name), row.get(f"{name}_start"), row.get(f"{name}_end")
    if not text or start is None or end is None:
        return None
    return int(start), int(end), str(text)


SPAN_FIELDS = ("entity", "property", "context")


def annotation_rows(doc_id: str, claims: Sequence[Mapping[str, Any]], text: Optional[str] = None,
                    parts: Sequence[str] = SPAN_FIELDS) -> list[list[Any]]:
    """The TSV rows of one paragraph's claims (one annotation set per claim, in order);
    ``text``, the paragraph, lets the modifiers read the words before a number; ``parts``: the
    span fields written (a field not listed is left out, as a user may choose). A span that
    repeats the quantity's words or another field's is left out too."""
    rows: list[list[Any]] = []
    for number, claim in enumerate(claims, start=1):
        claim = _without_assignment(claim)
        quantity = f"T1-{number}"
        other: dict[str, Any] = {}
        mods = mods_of(claim, text)
        if mods:
            other["mods"] = mods
        unit = unit_as_written(claim)
        if unit:
            other["unit"] = unit
        rows.append([doc_id, number, "Quantity", claim["start"], claim["end"], quantity, claim["evidence"],
                     json.dumps(other, ensure_ascii=False) if other else ""])
        entity, prop, context = (_span(claim, name) if name in parts else None for name in SPAN_FIELDS)
        if prop is not None and entity is not None and prop[:2] == entity[:2]:
            prop = None  # the same words twice: the entity
        entity, prop, context = (None if span is not None and span[0] < int(claim["end"]) and int(claim["start"]) < span[1]
                                 else span for span in (entity, prop, context))  # not the quantity's own words
        if prop is not None:
            rows.append([doc_id, number, "MeasuredProperty", prop[0], prop[1], f"T2-{number}", prop[2],
                         json.dumps({"HasQuantity": quantity})])
        if entity is not None:
            link = {"HasProperty": f"T2-{number}"} if prop is not None else {"HasQuantity": quantity}
            rows.append([doc_id, number, "MeasuredEntity", entity[0], entity[1], f"T3-{number}", entity[2],
                         json.dumps(link)])
        if context is not None:
            target = f"T2-{number}" if prop is not None else quantity  # as most gold qualifiers do
            rows.append([doc_id, number, "Qualifier", context[0], context[1], f"T4-{number}", context[2],
                         json.dumps({"Qualifies": target})])
    return rows


def _without_assignment(claim: Mapping[str, Any]) -> Mapping[str, Any]:
    """The claim with its quantity's words starting at the number ("n = 8815" -> "8815")."""
    evidence = str(claim.get("evidence") or "")
    assigned = _ASSIGNED.match(evidence)
    if not assigned or assigned.end() >= len(evidence):
        return claim
    return {**claim, "evidence": evidence[assigned.end():], "start": int(claim["start"]) + assigned.end()}


_RANGE_OPEN = re.compile(r"(?:\b(?:from|between)\s+)$", re.IGNORECASE)
_RANGE_JOIN = re.compile(r"^\s*(?:to|and|-|–|−)\s*$")
_LIST_JOIN = re.compile(r"^\s*(?:,|,?\s*(?:and|or))\s*$")
_LIST_NEXT = re.compile(r"^\s*,\s*$")
# not "for" or "top" ("for 24 h", "top 10 cm"): train and trial write them outside the quantity (29 of 30, 3 of 4)
_BOUND = re.compile(r"(?:\b(?:within|past|above|below|under|beyond|last|upper|down\s+to|less\s+than|more\s+than|"
                    r"greater\s+than|fewer\s+than|lower\s+than|higher\s+than|at\s+least|at\s+most|up\s+to)\s*|"
                    r"[<>≤≥⩽⩾≲≳]\s*)$", re.IGNORECASE)
CONVENTIONS = ("ranges", "bounds", "counts")  # "lists" too is written but lowers the score on train (0.364 -> 0.354)


def every_number(claims: Sequence[Mapping[str, Any]], text: str, doc_id: str) -> list[dict[str, Any]]:
    """One paragraph's claim rows with a row for every number the parser finds that no row
    stands on (MeasEval annotates every quantity; the model may have let some go): a count
    when its unit is a plural noun ("274 participants"; not a time, "12 years"), else a
    measurement; no span fields."""
    from paper_claims.parse.quantities import find_quantities
    from paper_claims.parse.units import dimension

    rows = [dict(claim) for claim in claims]
    taken = {(int(row["start"]), int(row["end"])) for row in rows}
    for mention in find_quantities(text):
        if (mention.start, mention.end) in taken:
            continue
        unit = mention.unit or ""
        counted = bool(re.fullmatch(r"[a-z][a-z-]{2,}s", unit)) and dimension(unit) is None  # "participants", not "kg"
        rows.append({"doc_id": doc_id, "kind": "count" if counted else "measurement", "value": mention.value,
                     "value_high": mention.value_high, "unit": mention.unit,
                     "qualifier": mention.qualifier.value if mention.qualifier else None,
                     "evidence": text[mention.start:mention.end], "start": mention.start, "end": mention.end})
    return sorted(rows, key=lambda row: (int(row["start"]), int(row["end"])))


def measeval_quantities(claims: Sequence[Mapping[str, Any]], text: str,
                        conventions: Sequence[str] = CONVENTIONS) -> list[dict[str, Any]]:
    """One paragraph's claim rows (in text order) as MeasEval annotates quantities: ``ranges``,
    "from 2605 m to 2634 m" and "between 200 and 1000 m" one quantity with its opening word (a
    range); ``lists``, "4.5 kg, 6 kg and 13 kg" one quantity (a list) when the numbers share a
    unit or only the last has one; ``bounds``, a bounding word before a number ("within 72 hours",
    "above 1000 °C", "<0.5 m") part of the quantity (a range); ``counts``, a count ("15 mice")
    its number alone. The first row of a merged run keeps its other fields."""
    rows = [dict(claim) for claim in sorted(claims, key=lambda c: (int(c["start"]), int(c["end"])))]
    merged: list[dict[str, Any]] = []
    i = 0
    while i < len(rows):
        row = rows[i]
        start = int(row["start"])
        opening = _RANGE_OPEN.search(text[max(0, start - 12):start]) if "ranges" in conventions else None
        if (opening and i + 1 < len(rows)
                and _RANGE_JOIN.match(text[int(row["end"]):int(rows[i + 1]["start"])])):
            last = rows[i + 1]
            merged.append(_merge(row, last, text, start - len(opening.group()), "IsRange"))
            i += 2
            continue
        if "lists" in conventions:
            j = i
            while (j + 1 < len(rows) and _LIST_JOIN.match(text[int(rows[j]["end"]):int(rows[j + 1]["start"])])
                   and (rows[j].get("unit") in (None, rows[j + 1].get("unit")))
                   and (j + 2 >= len(rows) or not _LIST_NEXT.match(text[int(rows[j + 1]["end"]):int(rows[j + 2]["start"])])
                        or rows[j + 2].get("unit") in (None, rows[j + 1].get("unit")))):
                j += 1
            if j > i:
                merged.append(_merge(row, rows[j], text, start, "IsList"))
                i = j + 1
                continue
        bound = _BOUND.search(text[max(0, start - 14):start]) if "bounds" in conventions else None
        if bound and not str(row.get("evidence", "")).lower().startswith(("up to", "over", "at least")):
            row = {**row, "start": start - len(bound.group()), "evidence": text[start - len(bound.group()):int(row["end"])],
                   "mods": [*(row.get("mods") or []), "IsRange"]}
        if "counts" in conventions and row.get("kind") == "count":
            row = _number_alone(row)
        merged.append(row)
        i += 1
    return merged


def _number_alone(row: Mapping[str, Any]) -> dict[str, Any]:
    """A count's quantity as its number alone ("15 mice" -> "15"): MeasEval's guidelines annotate
    a count's value as the Quantity and the counted noun as its MeasuredEntity, with no unit."""
    from paper_claims.parse.vocab import words

    evidence = str(row.get("evidence") or "")
    numbers = list(_NUMBER.finditer(evidence))
    if numbers:
        cut = numbers[-1].end()
    else:  # "three cores", "over eight cycles": up to the number word
        spelled = [m for m in re.finditer(r"[\w-]+", evidence) if m.group().lower() in words("number_words")]
        if not spelled:
            return dict(row)
        cut = spelled[-1].end()
    scale = _SCALE.match(evidence[cut:])
    cut += scale.end() if scale else 0
    if cut >= len(evidence.rstrip()):
        return dict(row)
    return {**row, "end": int(row["start"]) + cut, "evidence": evidence[:cut]}


def _merge(first: Mapping[str, Any], last: Mapping[str, Any], text: str, start: int, mod: str) -> dict[str, Any]:
    end = int(last["end"])
    return {**first, "start": start, "end": end, "evidence": text[start:end], "unit": last.get("unit") or first.get("unit"),
            "value_high": last.get("value") if mod == "IsRange" else first.get("value_high"),
            "mods": [*(first.get("mods") or []), mod]}


def write_paragraph(directory: Path, doc_id: str, claims: Sequence[Mapping[str, Any]],
                    text: Optional[str] = None, parts: Sequence[str] = SPAN_FIELDS) -> Optional[Path]:
    """``directory/<doc_id>.tsv`` for one paragraph; nothing for a paragraph without claims
    (the scorer then counts its gold annotations as missed)."""
    rows = annotation_rows(doc_id, claims, text, parts)
    if not rows:
        return None
    path = directory / f"{doc_id}.tsv"
    write_tsv(path, rows)
    return path


def write_submission(directory: Path, claims: Iterable[Mapping[str, Any]],
                     texts: Optional[Mapping[str, str]] = None, parts: Sequence[str] = SPAN_FIELDS) -> int:
    """One TSV per paragraph from claim rows (``doc_id`` in each, as ``claims.jsonl`` has them;
    ``texts``: the paragraphs by id); the number of files written."""
    directory.mkdir(parents=True, exist_ok=True)
    by_doc: dict[str, list[Mapping[str, Any]]] = {}
    for claim in claims:
        by_doc.setdefault(str(claim["doc_id"]), []).append(claim)
    written = 0
    for doc_id, rows in by_doc.items():
        ordered = sorted(rows, key=lambda r: (r["start"], r["end"]))
        written += write_paragraph(directory, doc_id, ordered, (texts or {}).get(doc_id), parts) is not None
    return written
