"""Property-based tests (hypothesis) of every input format and the quantity parser (issue 40):

* arbitrary bytes, in any format's name or named with ``--format``, plain or compressed, end as
  documents or error rows, or as one ``InputError`` for the file; never another exception;
* arbitrary records of each format's shape are each one document or one error row: the count
  in is the count out, nothing is missing silently;
* the parser finds numbers whose offsets point into the text, in time bounded per kilobyte on
  adversarial text (long runs of digits, ``±``, units, brackets).

The examples are few and fixed (``derandomize``) so ``make test`` stays fast and stable;
``HYPOTHESIS_PROFILE=fuzz`` draws many more, new ones each run. A case that found a bug is kept
as an ``@example`` (and as a plain test where it says more).
"""

from __future__ import annotations

import gzip
import json
import os
import string
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, example, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from paper_claims.errors import InputError  # noqa: E402
from paper_claims.parse.quantities import find_quantities  # noqa: E402
from paper_claims.sources.files import load_documents  # noqa: E402
from paper_claims.sources.formats import FORMATS  # noqa: E402

settings.register_profile("ci", max_examples=25, deadline=None, derandomize=True, database=None,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
settings.register_profile("fuzz", max_examples=2000, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
SLOW_EXAMPLES = 10 if settings().derandomize else 300  # properties that run the whole pipeline or time the parser

SUFFIXES = {"text": ".txt", "jsonl": ".jsonl", "csv": ".csv", "bibtex": ".bib", "ris": ".ris", "csl-json": ".json",
            "arxiv": ".json", "openalex": ".jsonl", "s2": ".jsonl", "crossref": ".json"}
assert set(SUFFIXES) == set(FORMATS)  # a new format gets its fuzzing here


def _read(data: bytes, name: str, format: Any = None) -> list[Any]:
    """The documents of a file holding ``data``, or [] when it is refused as a whole (an
    ``InputError``, one line): anything else raised fails the test."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / name
        path.write_bytes(data)
        try:
            docs = load_documents([path], format=format)
        except InputError as e:
            assert "\n" not in e.one_line()
            return []
    for doc in docs:
        assert bool(doc.error) != bool(doc.text), doc  # a document with text, or an error row with its reason
        assert doc.error is None or "\n" not in doc.error
    return docs


# --- arbitrary bytes -------------------------------------------------------------------------

@pytest.mark.parametrize("format", sorted(FORMATS))
@given(data=st.binary(max_size=600))
@example(data=b'@article{a,\n  abstract = {x} # y # {\n}')  # concatenation across an unclosed brace
@example(data=b'{"results": [1, {"id": 2}]}')
@example(data=b"TY  - JOUR\nAB  - x\n")
def test_arbitrary_bytes_are_documents_error_rows_or_one_input_error(format: str, data: bytes) -> None:
    _read(data, "data" + SUFFIXES[format])
    _read(data, "data.dat", format=format)


@pytest.mark.parametrize("format", sorted(FORMATS))
@given(text=st.text(alphabet=st.characters(blacklist_categories=["Cs"]), max_size=400))
def test_arbitrary_text_in_each_format_is_read_or_refused_in_one_line(format: str, text: str) -> None:
    _read(text.encode("utf-8"), "data" + SUFFIXES[format])


@given(data=st.binary(min_size=1, max_size=300), cut=st.integers(min_value=4, max_value=400))
def test_compressed_and_cut_anywhere_is_read_whole_or_refused(data: bytes, cut: int) -> None:
    zstandard = pytest.importorskip("zstandard")
    record = json.dumps({"id": "a", "text": data.decode("latin-1")}).encode("utf-8") + b"\n"
    for compressed in (gzip.compress(record), zstandard.ZstdCompressor().compress(record)):
        whole = _read(compressed, "works.jsonl.gz")
        assert [d.id for d in whole] == ["a"]
        if cut < len(compressed):
            assert _read(compressed[:cut], "works.jsonl.gz") == []  # cut past its magic bytes: refused whole


# --- arbitrary records of each shape: the count in is the count out ---------------------------

WORDS = st.text(alphabet=string.ascii_letters + string.digits + " .,;:%$\\{}()[]-_^~&'\"±×–é#!?/", max_size=60)
LINE = WORDS.map(lambda s: s.replace("\n", " "))
MAYBE_TEXT = st.one_of(st.none(), WORDS, st.text(max_size=80))
KEY = st.from_regex(r"[a-z][a-z0-9]{0,8}", fullmatch=True)
JSON_VALUES = st.recursive(st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), WORDS),
                           lambda inner: st.lists(inner, max_size=3) | st.dictionaries(KEY, inner, max_size=3),
                           max_leaves=6)


def _fields(*names: str, extra: Any = None) -> st.SearchStrategy[dict[str, Any]]:
    """Records with some of ``names`` (each a text, None or any JSON value) and extra fields."""
    values = st.one_of(MAYBE_TEXT, JSON_VALUES)
    return st.fixed_dictionaries({}, optional={name: values for name in names}).flatmap(
        lambda record: st.dictionaries(KEY.filter(lambda k: k not in ("results", "data", "items", "message")),
                                       JSON_VALUES, max_size=2).map(lambda more: {**more, **record}))


def _jsonl(records: list[Any]) -> bytes:
    return "".join(json.dumps(r) + "\n" for r in records).encode("utf-8")


def _bibtex(records: list[dict[str, Any]]) -> bytes:
    lines = []
    for n, record in enumerate(records):
        fields = ",\n".join(f"  {name} = {{{value}}}" for name, value in record.items())
        lines += [f"@article{{key{n},", fields, "}", ""]
    return "\n".join(lines).encode("utf-8")


def _ris(records: list[dict[str, Any]]) -> bytes:
    lines = []
    for record in records:
        lines += ["TY  - JOUR", *(f"{tag}  - {value}" for tag, value in record.items()), "ER  - ", ""]
    return "\r\n".join(lines).encode("utf-8-sig")


def _csv(records: list[dict[str, Any]]) -> bytes:
    import csv
    import io

    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=["id", "text", "title", "year"])
    writer.writeheader()
    writer.writerows(records)
    return buffer.getvalue().encode("utf-8")


def _text(paragraphs: list[str]) -> bytes:
    return "\n\n".join(paragraphs).encode("utf-8")


PROSE = st.lists(st.sampled_from("we the model runs faster on GPUs with less memory and reaches accuracy".split()),
                 min_size=24, max_size=40).map(lambda words: " ".join(words).capitalize() + " 3x.")

SHAPES: dict[str, tuple[st.SearchStrategy[Any], Callable[[list[Any]], bytes], str]] = {
    "jsonl": (st.one_of(_fields("id", "text", "abstract", "title", "doi", "year", "authors"), JSON_VALUES),
              _jsonl, "records.jsonl"),
    "csv": (st.fixed_dictionaries({"id": LINE, "text": WORDS, "title": WORDS, "year": LINE}), _csv, "records.csv"),
    "bibtex": (st.dictionaries(st.sampled_from(["title", "abstract", "author", "year", "doi", "note"]),
                               LINE.map(lambda s: s.replace("{", "(").replace("}", ")").replace("@", "a")),
                               max_size=5), _bibtex, "library.bib"),
    "ris": (st.dictionaries(st.sampled_from(["ID", "TI", "AB", "N2", "AU", "PY", "DO"]),
                            LINE.map(str.strip).filter(bool), max_size=6), _ris, "library.ris"),
    "csl-json": (_fields("title", "abstract", "DOI", "issued", "author").map(
        lambda r: {**r, "id": f"item{id(r)}", "type": "article-journal", "title": str(r.get("title"))}),
                 lambda records: json.dumps(records, indent=1).encode("utf-8"), "zotero.json"),
    "arxiv": (_fields("title", "abstract", "authors", "doi", "versions").map(
        lambda r: {**r, "id": "2401.00001", "abstract": r.get("abstract"), "categories": "cs.DC"}),
              _jsonl, "arxiv.json"),
    "openalex": (st.fixed_dictionaries({"id": st.just("https://openalex.org/W1"), "display_name": MAYBE_TEXT,
                                        "abstract_inverted_index": st.one_of(
                                            st.none(), JSON_VALUES,
                                            st.dictionaries(WORDS, st.lists(st.integers(-2, 60), max_size=3)))}),
                 _jsonl, "works.jsonl"),
    "s2": (_fields("abstract", "title", "year", "externalids", "authors").map(lambda r: {**r, "corpusid": 7}),
           _jsonl, "s2.jsonl"),
    "crossref": (_fields("abstract", "title", "author", "issued").map(
        lambda r: {**r, "DOI": "10.1/x", "member": "1"}),
                 lambda records: json.dumps({"message": {"items": records}}).encode("utf-8"), "crossref.json"),
    "text": (PROSE, _text, "corpus.txt"),
}
assert set(SHAPES) == set(FORMATS)


@pytest.mark.parametrize("format", sorted(SHAPES))
@given(data=st.data())
def test_every_record_of_each_shape_is_a_document_or_an_error_row(format: str, data: st.DataObject) -> None:
    strategy, write, name = SHAPES[format]
    records = data.draw(st.lists(strategy, min_size=1, max_size=6))
    docs = _read(write(records), name)
    assert len(docs) == len(records), [d.error for d in docs]
    assert all(d.source.endswith(name) for d in docs)


# --- through the whole pipeline ---------------------------------------------------------------

ABSTRACT_WORDS = st.sampled_from("We our model X-Net runs 3.2x 2–4 faster than on 8 A100 GPUs with 45% less memory "
                                 "and reaches 81.2% accuracy on ImageNet ( ) , . ± 10^6 ms tokens/s $\\times$ "
                                 "up to about over 1,000 B 7B parameters versus vLLM".split())
ABSTRACT = st.lists(st.one_of(ABSTRACT_WORDS, st.text(max_size=6)), min_size=1, max_size=60).map(
    lambda words: "We measure " + " ".join(words))


@pytest.fixture(scope="module")
def endpoint() -> Any:
    from tests.fakeserver import FakeServer

    with FakeServer() as server:
        yield server


@settings(max_examples=SLOW_EXAMPLES)
@given(texts=st.lists(ABSTRACT, min_size=1, max_size=4))
def test_any_abstracts_through_the_pipeline_are_each_one_row_with_grounded_claims(endpoint: Any, texts: list[str]) -> None:
    from paper_claims import extract_claims

    table = extract_claims(texts, base_url=endpoint.base_url, api_key="sk-fuzz", use_cache=False)
    assert len(table.documents) == len(texts)
    for document, text in zip(table.documents, texts):  # the text as given, its line ends normalised
        assert document.text == text.replace("\r\n", "\n").replace("\r", "\n").strip() or document.error, document
    for row in table.rows:
        text = next(d.text for d in table.documents if d.doc_id == row["doc_id"])
        assert text[row["start"]:row["end"]] == row["evidence"]
        assert text[row["sentence_start"]:row["sentence_end"]] == row["sentence"]


# --- the quantity parser ----------------------------------------------------------------------

ADVERSARIAL = st.lists(st.sampled_from(["1", "12", "3.5", " ", "±", "×", "x", "%", "(", ")", "[", "]", "-", "–",
                                        "/", ",", ".", "e", "^", "ms", "GB", "Hz", "tokens", "per", "second", "up to",
                                        "about", "$", "\\times", "~", "10", "0", "1,000", "k", "M", "B"]),
                       min_size=200, max_size=1500).map("".join)
MAX_MS_PER_KB = 150.0  # the worst found (a run of "1 1 1 ..."): 22 ms per KB on a loaded 2-core machine


@given(text=st.text(max_size=300))
def test_the_parser_reads_any_text_with_offsets_into_it(text: str) -> None:
    for mention in find_quantities(text):
        assert text[mention.start:mention.end] == mention.text


@settings(max_examples=SLOW_EXAMPLES)
@given(text=ADVERSARIAL)
@example(text="1 " * 1000)
@example(text="1±" * 1000)
@example(text="([" * 500 + "1" + ")]" * 500)
def test_the_parsers_time_per_kilobyte_is_bounded_on_adversarial_text(text: str) -> None:
    find_quantities("warm 3x up")
    times = []
    for copies in (1, 4):
        started = time.process_time()
        mentions = find_quantities(text * copies)
        times.append((time.process_time() - started) * 1000 / (len(text) * copies / 1000))
        assert all((text * copies)[m.start:m.end] == m.text for m in mentions)
    assert max(times) < MAX_MS_PER_KB, times
    assert times[1] < 3 * times[0] + 5, times  # four times the text: about four times the time, not sixteen
