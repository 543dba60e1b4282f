"""Tests for paper_claims.sources: text layouts, JSONL/CSV records, ids and bad input."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from paper_claims.errors import InputError
from paper_claims.sources.files import MAX_TEXT_CHARS, iter_documents, load_documents
from paper_claims.sources.formats.text import classify_paragraph

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "examples" / "abstracts"
F000 = CORPUS / "000_366288a7efcd1d64.txt"
F001 = CORPUS / "001_438ee5a4149529fe.txt"
F004 = CORPUS / "004_45b06b36914cb107.txt"
GOLD = ROOT / "eval" / "gold" / "dev.jsonl"
GOLD_INPUTS = ROOT / "eval" / "gold" / "dev_inputs.jsonl"

NAME_LIST = re.compile(r"^[A-Z][\w.'\- ]+(, [A-Z][\w.'\- ]+)+( et al\.)?$")


def _paragraphs(path: Path) -> list[str]:
    return [p.strip() for p in path.read_text(encoding="utf-8").split("\n\n") if p.strip()]


def _jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


# --- the three seed layouts ---------------------------------------------------------------


@pytest.mark.parametrize("path, count", [(F000, 6), (F001, 109), (F004, 14)])
def test_seed_layout_counts(path: Path, count: int) -> None:
    docs = load_documents([path])
    assert len(docs) == count
    assert [d.id for d in docs] == [f"{path.name[:3]}#{i}" for i in range(count)]
    assert all(d.error is None and d.source == str(path) for d in docs)


def test_no_title_or_author_line_taken_for_an_abstract() -> None:
    docs = load_documents([F000, F001, F004])
    assert min(len(d.text) for d in docs) > 200
    assert not any(NAME_LIST.match(d.text) for d in docs)
    texts = {d.text for d in docs}
    assert "Yanping Huang" not in texts and "Eddie Yan, Yanping Huang" not in texts
    assert not any(t.startswith(("Sijun Tan", "Open X-Embodiment")) for t in texts)


def test_000_titles_and_authors_are_metadata() -> None:
    docs = load_documents([F000])
    assert docs[0].title == "TensorFlow: A system for large-scale machine learning"
    assert docs[0].authors.startswith("Martín Abadi, Paul Barham")
    assert docs[0].text.startswith("TensorFlow is a machine learning system")
    # "Open X-Embodiment" has authors but no abstract: it must not leak into the next one.
    assert docs[5].title.startswith("Robotic Table Tennis")
    assert docs[5].authors.startswith("David B. D'Ambrosio, Jonathan Abelian")
    assert all(d.title and d.authors for d in docs)


def test_004_author_lines_without_et_al_are_metadata() -> None:
    docs = load_documents([F004])
    by_id = {d.id: d for d in docs}
    assert by_id["004#0"].authors == "Michael Luo, Justin Wong, Brandon Trabucco et al."
    assert by_id["004#8"].authors == "Eddie Yan, Yanping Huang"
    assert by_id["004#12"].authors == "Yanping Huang"
    assert by_id["004#13"].authors == "Yanping Huang, Sai Zhang"
    assert all(d.title is None for d in docs)


def test_001_citation_line_is_skipped_not_attached() -> None:
    docs = load_documents([F001])
    assert all(d.authors is None and d.title is None for d in docs)
    assert docs[20].text.startswith("Natural language to code generation")


def test_classifier_is_layout_independent() -> None:
    assert classify_paragraph("Yanping Huang") == "authors"
    assert classify_paragraph("Ada Lovelace and Charles Babbage") == "authors"
    assert classify_paragraph("Attention Is All You Need") == "title"
    assert classify_paragraph("SFT, LoRA, and ICL") == "title"
    prose = "We present a system. " + "It is fast and it scales to many machines. " * 3
    assert classify_paragraph(prose) == "abstract"
    citation = _paragraphs(F001)[20]
    assert classify_paragraph(citation) == "other"


def test_other_files_in_the_same_layouts(tmp_path: Path) -> None:
    paras = _paragraphs(F000)[:9] + _paragraphs(F004)[:5]
    path = tmp_path / "mixed.txt"
    path.write_text("\r\n\r\n".join(paras) + "\r\n", encoding="utf-8")
    docs = load_documents([path])
    assert [d.id for d in docs] == [f"mix#{i}" for i in range(5)]
    assert docs[2].title.startswith("A Comparative Analysis")
    assert docs[3].title is None and docs[3].authors.startswith("Michael Luo, Justin")
    assert all("\r" not in d.text for d in docs)


# --- ids ----------------------------------------------------------------------------------


def test_gold_ids_and_first_words_match() -> None:
    by_id = {d.id: d for d in load_documents([CORPUS])}
    gold = _jsonl(GOLD)
    assert len(gold) == 40
    for row in gold:
        doc = by_id[row["id"]]
        assert doc.text.split()[:8] == row["first_words"].split(), row["id"]
        assert row["file"][:3] == row["id"].split("#")[0]


def test_gold_inputs_text_is_exact() -> None:
    by_id = {d.id: d for d in load_documents([CORPUS])}
    for row in _jsonl(GOLD_INPUTS):
        assert by_id[row["id"]].text == row["text"]


def test_ids_stable_across_loads() -> None:
    first = load_documents([CORPUS])
    second = load_documents([str(CORPUS)])
    assert [(d.id, d.text) for d in first] == [(d.id, d.text) for d in second]
    assert len({d.id for d in first}) == len(first) == 129


# --- JSONL, CSV, directories --------------------------------------------------------------


def test_jsonl_keeps_given_ids_and_metadata(tmp_path: Path) -> None:
    path = tmp_path / "papers.jsonl"
    rows = [
        {"id": "p1", "text": "First abstract.\r\nMore.", "title": "T1", "authors": ["A B", "C D"]},
        {"doc_id": 7, "abstract": "  Second abstract.  "},
        {"text": "No id here."},
    ]
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n\n", encoding="utf-8")
    docs = load_documents([path])
    assert [d.id for d in docs] == ["p1", "7", "papers#2"]
    assert docs[0].text == "First abstract.\nMore."
    assert (docs[0].title, docs[0].authors) == ("T1", "A B, C D")
    assert docs[1].text == "Second abstract."
    assert all(d.error is None and d.source == str(path) for d in docs)


def test_csv_keeps_given_ids_and_metadata(tmp_path: Path) -> None:
    path = tmp_path / "papers.csv"
    path.write_text(
        'doc_id,title,authors,abstract\r\n'
        'x1,A title,"Ann Lee, Bo Chen","Multi-line\nabstract, with comma."\r\n'
        ',,,Second one.\r\n',
        encoding="utf-8",
    )
    docs = load_documents([path])
    assert [d.id for d in docs] == ["x1", "papers#1"]
    assert docs[0].text == "Multi-line\nabstract, with comma."
    assert (docs[0].title, docs[0].authors) == ("A title", "Ann Lee, Bo Chen")
    assert docs[1].title is None and docs[1].text == "Second one."


def test_directory_loads_supported_files_sorted(tmp_path: Path) -> None:
    (tmp_path / "b.jsonl").write_text('{"id": "j1", "text": "From JSONL."}\n', encoding="utf-8")
    (tmp_path / "a.csv").write_text("id,text\nc1,From CSV.\n", encoding="utf-8")
    (tmp_path / "004_copy.txt").write_text(F004.read_text(encoding="utf-8"), encoding="utf-8")
    (tmp_path / "notes.pdf").write_bytes(b"%PDF-1.4")
    docs = load_documents([tmp_path])
    assert [d.id for d in docs][:3] == ["004#0", "004#1", "004#2"]
    assert [d.id for d in docs][14:] == ["c1", "j1"]
    assert docs[-1].source == str(tmp_path / "b.jsonl")


def test_iter_documents_single_file() -> None:
    docs = list(iter_documents(F004))
    assert len(docs) == 14 and docs[0].id == "004#0"


def test_same_file_twice_is_loaded_once() -> None:
    docs = load_documents([F004, str(F004), CORPUS])
    assert len(docs) == 129


# --- bad files ----------------------------------------------------------------------------


def _one_line_error(paths: list) -> str:
    with pytest.raises(InputError) as info:
        load_documents(paths)
    message = str(info.value)
    assert "\n" not in message
    return message


def test_missing_path(tmp_path: Path) -> None:
    path = tmp_path / "nope.txt"
    assert _one_line_error([path]) == f"cannot read {path}: no such file or directory"


@pytest.mark.parametrize("content", [b"", b"  \n\n\t \r\n"])
@pytest.mark.parametrize("name", ["e.txt", "e.jsonl", "e.csv"])
def test_empty_file(tmp_path: Path, name: str, content: bytes) -> None:
    path = tmp_path / name
    path.write_bytes(content)
    assert _one_line_error([path]) == f"cannot read {path}: empty file"


def test_binary_file(tmp_path: Path) -> None:
    path = tmp_path / "bin.txt"
    path.write_bytes(b"abc\x00\x01\x02")
    assert _one_line_error([path]) == f"cannot read {path}: binary file (NUL byte at offset 3)"


def test_non_utf8_file(tmp_path: Path) -> None:
    path = tmp_path / "latin.txt"
    path.write_bytes("Some abstract ".encode() + b"caf\xe9 more")
    expected = f"cannot read {path}: not UTF-8 text (byte 0xe9 at offset 17)"
    assert _one_line_error([path]) == expected


def test_unsupported_extension(tmp_path: Path) -> None:
    path = tmp_path / "paper.pdf"
    path.write_bytes(b"%PDF-1.4 ...")
    assert "unsupported file type '.pdf'" in _one_line_error([path])


def test_txt_without_any_abstract(tmp_path: Path) -> None:
    path = tmp_path / "titles.txt"
    path.write_text("A Title\n\nAda Lovelace, Charles Babbage\n", encoding="utf-8")
    assert "no paragraph reads as an abstract" in _one_line_error([path])


def test_csv_without_text_column(tmp_path: Path) -> None:
    path = tmp_path / "meta.csv"
    path.write_text("id,title\n1,Hello\n", encoding="utf-8")
    assert "no 'text' or 'abstract' column" in _one_line_error([path])


def test_bad_path_stops_the_whole_batch(tmp_path: Path) -> None:
    assert "missing.jsonl" in _one_line_error([F004, tmp_path / "missing.jsonl"])


# --- bad records --------------------------------------------------------------------------


def test_bad_jsonl_records_become_error_documents(tmp_path: Path) -> None:
    path = tmp_path / "recs.jsonl"
    lines = [
        '{"id": "ok1", "text": "Fine."}',
        "{not json",
        "[1, 2]",
        '{"id": "nt", "title": "no text"}',
        '{"id": "et", "text": "   "}',
        '{"id": "nn", "text": 42}',
        '{"id": "ok2", "text": "Also fine."}',
    ]
    path.write_text("\n".join(lines), encoding="utf-8")
    docs = load_documents([path])
    assert [d.id for d in docs] == ["ok1", "recs#1", "recs#2", "nt", "et", "nn", "ok2"]
    assert [d.error is None for d in docs] == [True] + [False] * 5 + [True]
    assert docs[1].error.startswith("line 2: not JSON")
    assert docs[2].error == "line 3: not a JSON object (list)"
    assert docs[3].error == "line 4: no 'text' or 'abstract' field"
    assert docs[4].error == "line 5: empty text"
    assert docs[5].error == "line 6: text is not a string"
    assert all(d.text == "" and "\n" not in d.error for d in docs[1:6])


def test_csv_row_with_empty_text_is_error_document(tmp_path: Path) -> None:
    path = tmp_path / "rows.csv"
    path.write_text("id,text\na,Good.\nb,\n", encoding="utf-8")
    docs = load_documents([path])
    assert docs[0].error is None
    assert (docs[1].id, docs[1].text, docs[1].error) == ("b", "", "row 2: empty text")


def test_megabyte_abstract_is_error_document(tmp_path: Path) -> None:
    huge = "We measure speed. " * (1_000_000 // 18)
    (tmp_path / "big.jsonl").write_text(json.dumps({"id": "big", "text": huge}) + "\n")
    (tmp_path / "big.txt").write_text("A Title\n\n" + huge + "\n\n" + _paragraphs(F001)[0])
    docs = load_documents([tmp_path])
    n = len(huge.strip())
    expected = f"text too long: {n} characters (limit {MAX_TEXT_CHARS})"
    big_jsonl, big_txt, next_txt = docs
    assert (big_jsonl.id, big_jsonl.text, big_jsonl.error) == ("big", "", expected)
    assert (big_txt.id, big_txt.text, big_txt.error) == ("big#0", "", expected)
    assert next_txt.id == "big#1" and next_txt.error is None and next_txt.text


def test_duplicate_ids_become_error_documents(tmp_path: Path) -> None:
    a = tmp_path / "a.jsonl"
    b = tmp_path / "b.jsonl"
    a.write_text('{"id": "x", "text": "One."}\n{"id": "x", "text": "Two."}\n')
    b.write_text('{"id": "x", "text": "Three."}\n{"id": "x~dup1", "text": "Four."}\n')
    docs = load_documents([a, b])
    assert [d.id for d in docs] == ["x", "x~dup1", "x~dup2", "x~dup1~dup1"]
    assert docs[0].error is None and docs[0].text == "One."
    assert docs[1].error == f"duplicate id x (first seen in {a})"
    assert docs[2].error == f"duplicate id x (first seen in {a})"
    assert docs[1].text == docs[2].text == ""
    assert docs[3].error == f"duplicate id x~dup1 (first seen in {a})"
    assert len({d.id for d in docs}) == len(docs)
