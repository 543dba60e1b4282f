"""Inputs in the formats researchers keep abstracts in (tests/data/formats/, written for these
tests from each format's public documentation): what each record becomes, records without an
abstract as error rows with the reason, compression, --format, --where, and every claim's
offsets pointing into the text the outputs carry."""

from __future__ import annotations

import gzip
import json
import re
import shutil
from pathlib import Path
from typing import Any, Iterator

import pytest

from paper_claims import write_claims
from paper_claims.cli import main
from paper_claims.errors import InputError
from paper_claims.sources.files import load_documents
from paper_claims.sources.formats import detect
from paper_claims.sources.formats.crossref import jats_text
from paper_claims.sources.formats.openalex import rebuild_abstract
from tests.conftest import read_jsonl
from tests.fakeserver import FakeServer

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data" / "formats"
CORPUS = ROOT / "examples" / "abstracts"
FASTSERVE = ("We present FastServe, a serving system for large language models. On 8 A100 GPUs, FastServe achieves "
             "a 3.1x higher throughput than vLLM and reduces the median latency by 45%.")
SPARSE = "Our sparse attention kernel runs 2.4x faster than dense attention on one H100 GPU and uses 38% less memory."

# file -> (format told, [(id, title, doi, year, error fragment or None)])
EXPECTED: dict[str, tuple[str, list[tuple[str, Any, Any, Any, Any]]]] = {
    "library.bib": ("bibtex", [
        ("lee2024fastserve", "FastServe: Serving LLMs Three Times Faster", "10.5555/fastserve.2024", 2024, None),
        ("chen2023sparse", "Sparse Attention at Scale", None, 2023, None),
        ("nguyen2022survey", "A Survey Without an Abstract", None, 2022, "entry nguyen2022survey (line 26): no abstract"),
        ("library#3", None, None, None, "line 32: bad BibTeX entry (aborted on line 36: Unexpected block start"),
        ("ito2021graph", "Graph Partitioning for Training", None, 2021, None),
    ]),
    "library.ris": ("ris", [
        ("ris-fastserve", "FastServe: Serving LLMs Three Times Faster", "10.5555/fastserve.2024", 2024, None),
        ("library#1", "Sparse Attention at Scale", None, 2023, None),
        ("ris-survey", "A Survey Without an Abstract", None, 2022, "record 3 (line 20): no abstract (AB or N2)"),
    ]),
    "zotero.json": ("csl-json", [
        ("http://zotero.org/users/1/items/FASTSRV1", "FastServe: Serving LLMs Three Times Faster",
         "10.5555/fastserve.2024", 2024, None),
        ("chen2023sparse", "Sparse Attention at Scale", None, 2023, None),
        ("nguyen2022survey", "A Survey Without an Abstract", None, 2022, "item 3: no abstract field"),
    ]),
    "arxiv-metadata-oai-snapshot.json": ("arxiv", [
        ("2401.00001", "FastServe: Serving Large Language Models Three Times Faster", "10.5555/fastserve.2024", 2024,
         None),
        ("2302.00002", "Sparse Attention at Scale", None, 2023, None),
        ("hep-ph/0701001", "A Calculation Nobody Extracts", None, 2007, None),
        ("2105.00004", "Graph Partitioning for Training", None, 2021, "line 4: empty text"),
    ]),
    "openalex_works.jsonl": ("openalex", [
        ("W4390000001", "FastServe: Serving LLMs Three Times Faster", "10.5555/fastserve.2024", 2024, None),
        ("W4320000002", "Sparse Attention at Scale", None, 2023, None),
        ("W2220000003", "A Survey Without an Abstract", "10.5555/survey.2022", 2022,
         "line 3: no abstract (abstract_inverted_index is null)"),
    ]),
    "s2_abstracts.jsonl": ("s2", [
        ("265000001", None, "10.5555/fastserve.2024", None, None),
        ("256000002", None, None, None, None),
        ("140000003", None, None, None, "line 3: no abstract"),
    ]),
    "s2_papers.json": ("s2", [
        ("265000001", "FastServe: Serving LLMs Three Times Faster", "10.5555/fastserve.2024", 2024, None),
        ("0a1b2c3d4e5f60718293a4b5c6d7e8f901234567", "A Survey Without an Abstract", None, 2022, "item 2: no abstract"),
    ]),
    "crossref_works.json": ("crossref", [
        ("10.5555/fastserve.2024", "FastServe: Serving LLMs Three Times Faster", "10.5555/fastserve.2024", 2024, None),
        ("10.5555/sparse.2023", "Sparse Attention at Scale", "10.5555/sparse.2023", 2023, None),
        ("10.5555/survey.2022", "A Survey Without an Abstract", "10.5555/survey.2022", 2022,
         "no abstract (the work's Crossref record has none)"),
    ]),
}


@pytest.fixture(scope="module")
def server() -> Iterator[FakeServer]:
    with FakeServer() as fake:
        yield fake


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_each_format_is_told_and_read_with_its_metadata_and_missing_abstracts_as_error_rows(name: str) -> None:
    path = DATA / name
    told, expected = EXPECTED[name]
    assert detect(path, str(path)).name == told
    docs = load_documents([path])
    assert [(d.id, d.title, d.doi, d.year) for d in docs] == [e[:4] for e in expected]
    for doc, (*_, error) in zip(docs, expected):
        if error is None:
            assert doc.error is None and doc.text
        else:
            assert doc.error and error in doc.error and doc.text == "" and "\n" not in doc.error


def test_the_texts_are_what_the_formats_hold_with_markup_and_wraps_removed() -> None:
    texts = {d.id: d.text for name in EXPECTED for d in load_documents([DATA / name])}
    for doc_id in ("ris-fastserve", "http://zotero.org/users/1/items/FASTSRV1", "W4390000001", "265000001"):
        assert texts[doc_id] == FASTSERVE
    assert texts["W4320000002"] == texts["256000002"] == SPARSE
    # BibTeX and arXiv: LaTeX read as text, line wraps joined, a blank line (arXiv: an indented line) a
    # paragraph, protective braces gone
    assert texts["lee2024fastserve"] == texts["2401.00001"] == (
        "We present FastServe, a serving system for large language models. On 8 A100 GPUs, FastServe achieves a "
        "3.1× higher throughput than vLLM and reduces the median latency by 45%.\nIt keeps 81.2% accuracy on MMLU.")
    # with keep_latex, as written
    kept = {d.id: d.text for name in ("library.bib", "arxiv-metadata-oai-snapshot.json")
            for d in load_documents([DATA / name], keep_latex=True)}
    assert kept["lee2024fastserve"] == (
        "We present FastServe, a serving system for large language models. On 8 A100 GPUs, FastServe achieves a "
        "$3.1\\times$ higher throughput than vLLM and reduces the median latency by 45\\%.\nIt keeps 81.2\\% accuracy "
        "on MMLU.")
    assert kept["2401.00001"] == (
        "We present FastServe, a serving system for large language models. On 8 A100 GPUs, FastServe achieves a "
        "$3.1\\times$ higher throughput than vLLM and reduces the median latency by 45%.\nIt keeps 81.2% accuracy on "
        "MMLU.")
    # Crossref: JATS gone, the "Abstract" heading dropped, entities decoded, a superscript after a digit as ^
    assert texts["10.5555/fastserve.2024"] == (FASTSERVE.replace("and reduces", "& reduces")
                                               + "\nIt serves 10^6 requests per day at a cost below $0.2 per hour.")
    assert texts["10.5555/sparse.2023"] == "Results\n" + SPARSE.replace("memory.", "memory (p < 0.05).")


def test_authors_read_as_names() -> None:
    (bib, *_) = load_documents([DATA / "library.bib"])
    assert bib.authors == "Ann Lee, Bo Müller, Carla García"  # "Last, First and ...", accents as letters
    assert load_documents([DATA / "library.ris"])[0].authors == "Ann Lee, Bo Müller"
    assert load_documents([DATA / "zotero.json"])[2].authors == "Eve Nguyen"
    assert load_documents([DATA / "openalex_works.jsonl"])[0].authors == "Ann Lee, Bo Müller"


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_extracting_each_format_grounds_every_claim_in_the_text_the_outputs_carry(
        name: str, server: FakeServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-formats")
    stats = write_claims([str(DATA / name)], tmp_path / "out", base_url=server.base_url, progress=False)
    documents = {d["doc_id"]: d for d in read_jsonl(tmp_path / "out" / "documents.jsonl")}
    claims = read_jsonl(tmp_path / "out" / "claims.jsonl")
    expected = EXPECTED[name][1]
    assert list(documents) == [e[0] for e in expected]  # nothing lost: every record is a row
    assert stats.errors == sum(e[4] is not None for e in expected)
    assert [(d["title"], d["doi"], d["year"]) for d in documents.values()] == [e[1:4] for e in expected]
    assert claims and all(c["doc_id"] in documents for c in claims)
    for claim in claims:
        text = documents[claim["doc_id"]]["text"]
        assert text[claim["start"]:claim["end"]] == claim["evidence"]
        assert "<jats" not in text and "{" not in text and "\\" not in text
    report = (tmp_path / "out" / "report.html").read_text(encoding="utf-8")
    for doc_id, title, doi, year, error in expected:
        if error is None:  # the heading: the title, else the first words of the abstract
            assert f"<h3>{title or ' '.join(documents[doc_id]['text'].split()[:8]) + '…'}</h3>" in report
            assert not doi or f"doi:{doi}</a>" in report


def test_compressed_files_are_told_by_content_whatever_their_name(tmp_path: Path) -> None:
    zstandard = pytest.importorskip("zstandard")
    part = tmp_path / "part_000.gz"  # an OpenAlex snapshot part: no inner suffix
    part.write_bytes(gzip.compress((DATA / "openalex_works.jsonl").read_bytes()))
    snapshot = tmp_path / "arxiv.json.zst"
    snapshot.write_bytes(zstandard.ZstdCompressor().compress((DATA / "arxiv-metadata-oai-snapshot.json").read_bytes()))
    assert [d.id for d in load_documents([part])] == ["W4390000001", "W4320000002", "W2220000003"]
    assert [d.id for d in load_documents([snapshot])][:2] == ["2401.00001", "2302.00002"]
    assert load_documents([snapshot])[0].text == load_documents([DATA / "arxiv-metadata-oai-snapshot.json"])[0].text
    shutil.copy(DATA / "library.bib", tmp_path / "library.bib")
    (tmp_path / "library.bib.gz").write_bytes(gzip.compress((DATA / "library.bib").read_bytes()))
    assert [d.id for d in load_documents([tmp_path / "library.bib.gz"])][0] == "lee2024fastserve"
    folder = [d.id for d in load_documents([tmp_path])]  # a folder: compressed files are inputs too
    assert "W4390000001" in folder and "2401.00001" in folder and "lee2024fastserve" in folder


def test_a_corrupt_or_truncated_compressed_file_stops_before_the_run(tmp_path: Path) -> None:
    data = gzip.compress((DATA / "openalex_works.jsonl").read_bytes())
    truncated = tmp_path / "works.jsonl.gz"
    truncated.write_bytes(data[: len(data) // 2])
    with pytest.raises(InputError, match=r"cannot read .*works\.jsonl\.gz: bad gzip data"):
        load_documents([truncated])
    corrupt = tmp_path / "other.jsonl.gz"
    corrupt.write_bytes(data[:20] + b"\x00garbage" * 50)
    with pytest.raises(InputError, match="bad gzip data"):
        load_documents([corrupt])


def test_format_names_the_format_of_a_file_whatever_its_name(tmp_path: Path) -> None:
    odd = tmp_path / "snapshot.txt"  # would be read as a plain-text corpus file
    shutil.copy(DATA / "arxiv-metadata-oai-snapshot.json", odd)
    docs = load_documents([odd], format="arxiv")
    assert [d.id for d in docs][:2] == ["2401.00001", "2302.00002"] and docs[0].year == 2024
    with pytest.raises(InputError, match="unknown input format 'pdf'"):
        load_documents([odd], format="pdf")
    unknown = tmp_path / "paper.pdf"
    unknown.write_bytes(b"%PDF-1.4")
    with pytest.raises(InputError, match="unsupported file type '.pdf'"):
        load_documents([unknown])


def test_where_keeps_the_records_that_meet_every_condition() -> None:
    arxiv = DATA / "arxiv-metadata-oai-snapshot.json"
    assert [d.id for d in load_documents([arxiv], where=["categories~cs.DC"])] == ["2401.00001", "2105.00004"]
    assert [d.id for d in load_documents([arxiv], where=["categories~cs.dc", "categories~cs.LG"])] == ["2401.00001"]
    assert [d.id for d in load_documents([arxiv], where="categories!~cs.")] == ["hep-ph/0701001"]
    assert [d.id for d in load_documents([arxiv], where=["update_date=2023-02-02"])] == ["2302.00002"]
    openalex = DATA / "openalex_works.jsonl"  # dotted paths, through lists
    assert [d.id for d in load_documents([openalex], where=["primary_location.source.display_name~arxiv"])] == [
        "W4320000002"]
    assert [d.id for d in load_documents([openalex], where=["authorships.author.display_name=Bo Müller"])] == [
        "W4390000001"]
    with pytest.raises(InputError, match="cannot read the condition 'categories'"):
        load_documents([arxiv], where=["categories"])


def test_the_where_of_bibtex_and_the_unreadable_rows_it_cannot_test() -> None:
    docs = load_documents([DATA / "library.bib"], where=["ENTRYTYPE=article"])
    # the broken entry cannot be tested, so it stays (nothing lost); the @inproceedings and @misc go
    assert [d.id for d in docs] == ["chen2023sparse", "library#3", "ito2021graph"]


def test_openalex_text_is_rebuilt_exactly_from_the_inverted_index() -> None:
    texts = [" ".join(d.text.split()) for d in load_documents([CORPUS])]
    for text in texts:
        index: dict[str, list[int]] = {}
        for position, word in enumerate(text.split(" ")):
            index.setdefault(word, []).append(position)
        rebuilt, why = rebuild_abstract(index)
        assert rebuilt == text and why == ""
    assert rebuild_abstract(None)[0] is None
    assert rebuild_abstract({"a": ["x"]}) == (None, "abstract_inverted_index has bad positions for 'a'")


def test_jats_markup_is_removed() -> None:
    assert jats_text("<jats:p>A <jats:bold>9.1%</jats:bold> gain &amp; 2<jats:sup>10</jats:sup> nodes.</jats:p>") == (
        "A 9.1% gain & 2^10 nodes.")
    assert jats_text("<jats:sec><jats:title>Abstract</jats:title><jats:p>One.</jats:p></jats:sec>"
                     "<jats:sec><jats:title>Methods</jats:title><jats:p>Two.</jats:p></jats:sec>") == (
        "One.\nMethods\nTwo.")
    assert jats_text("plain text stays") == "plain text stays"


def test_bibtex_is_read_in_batches_with_string_macros_and_file_lines(tmp_path: Path) -> None:
    lines = ["@string{venue = {The Invented Conference}}", ""]
    for n in range(450):
        if n == 300:
            lines += ["@article{broken300,", "  title = {never closed", ""]
        title = "venue" if n == 449 else f"{{Paper {n}}}"  # the last batch still knows the first's @string
        lines += [f"@article{{key{n},", f"  title = {title}, year = {{20{n % 30:02d}}},",
                  f"  abstract = {{It runs {n + 1}x faster.}}", "}", ""]
    path = tmp_path / "big.bib"
    path.write_text("\n".join(lines), encoding="utf-8")
    docs = load_documents([path])
    ok = [d for d in docs if not d.error]
    assert [d.id for d in ok] == [f"key{n}" for n in range(450)]
    assert docs[-1].id == "key449" and docs[-1].text == "It runs 450x faster." and docs[-1].year == 2029
    assert docs[-1].title == "The Invented Conference" and docs[-2].title == "Paper 448"
    (bad,) = [d for d in docs if d.error]
    broken_line = lines.index("@article{broken300,") + 1
    assert bad.error.startswith(f"line {broken_line}: bad BibTeX entry")


def test_a_json_array_is_decoded_item_by_item_across_reads(tmp_path: Path) -> None:
    big = "We measure it. " * 6000  # ~90 KB per item: longer than one read
    items = [{"id": f"csl{n}", "type": "article", "title": f"T{n}", "abstract": f"It is {n}x faster. {big[:200 * n]}"}
             for n in range(1, 8)]
    path = tmp_path / "export.json"
    path.write_text(json.dumps(items, indent=2), encoding="utf-8")
    docs = load_documents([path])
    assert [d.id for d in docs] == [f"csl{n}" for n in range(1, 8)]
    assert all(d.text == i["abstract"].strip() for d, i in zip(docs, items))
    unclosed = tmp_path / "unclosed.json"
    unclosed.write_text(json.dumps(items[:2])[:-1], encoding="utf-8")
    docs = load_documents([unclosed])
    assert [d.id for d in docs[:2]] == ["csl1", "csl2"] and "not closed" in (docs[2].error or "")


def test_first_lines_longer_than_one_read(tmp_path: Path) -> None:
    """A JSONL whose first record is longer than a read, and an API page on one long line."""
    long_text = "It is 2x faster. " + "We measure it again. " * 4000  # ~84 KB
    jsonl = tmp_path / "long.json"
    jsonl.write_text(json.dumps({"id": "a", "text": long_text}) + "\n" + json.dumps({"id": "b", "text": "3x."}) + "\n",
                     encoding="utf-8")
    docs = load_documents([jsonl])
    assert [d.id for d in docs] == ["a", "b"] and "text too long" in (docs[0].error or "") and docs[1].text == "3x."
    work = json.loads((DATA / "openalex_works.jsonl").read_text(encoding="utf-8").splitlines()[0])
    page = tmp_path / "page.json"
    page.write_text(json.dumps({"meta": {"count": 2, "note": "x" * 70000}, "results": [work, {**work, "id": "W9"}]}),
                    encoding="utf-8")
    assert [d.id for d in load_documents([page])] == ["W4390000001", "W9"]
    broken = tmp_path / "broken.json"
    broken.write_text('{"results": [' + "1" * 70000 + "\n]", encoding="utf-8")
    (doc,) = load_documents([broken])
    assert doc.error and "not JSON" in doc.error


@pytest.mark.parametrize("condition", ["categories==cs.DC", "year>=2020", "year<2020", "title~=x", "doi=~10.5"])
def test_where_with_an_unknown_operator_is_an_error_before_anything_is_read(condition: str) -> None:
    from paper_claims.sources.records import Where

    operator = re.search(r"[~=!<>]+", condition).group(0)  # type: ignore[union-attr]
    with pytest.raises(InputError, match=f"unknown operator '{re.escape(operator)}' in the condition"):
        Where([condition])
    with pytest.raises(InputError, match="unknown operator"):
        load_documents([DATA / "no-such-file.json"], where=[condition])  # said before the path is looked at


def test_where_on_a_field_none_of_the_first_records_has_stops_naming_the_fields_they_have(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 40: `categoires~cs.DC` matched nothing and exited 0 after reading the whole file."""
    arxiv = DATA / "arxiv-metadata-oai-snapshot.json"
    with pytest.raises(InputError) as raised:
        load_documents([arxiv], where=["categoires~cs.DC"])
    message = raised.value.one_line()
    assert message.startswith(f"the condition 'categoires~cs.DC': none of the first 4 records of {arxiv} has a field "
                              "'categoires'; they have: id, submitter, authors, title, ")
    assert "categories" in message and "versions" in message
    bib = DATA / "library.bib"  # BibTeX names it year (publication_year is OpenAlex's)
    with pytest.raises(InputError, match=r"'publication_year'; they have: ID, ENTRYTYPE, title, author, "):
        load_documents([bib], where=["publication_year=2024"])
    assert [d.year for d in load_documents([bib], where=["year=2024"]) if not d.error] == [2024]
    openalex = DATA / "openalex_works.jsonl"  # a dotted path: the fields where it stops
    with pytest.raises(InputError, match=r"field 'primary_location\.sorce\.display_name'; "
                                         r"primary_location has: .*\bsource\b"):
        load_documents([openalex], where=["primary_location.sorce.display_name~arxiv"])
    assert [d.id for d in load_documents([openalex], where=["doi~fastserve"])] == ["W4390000001"]  # null in some
    code = main(["quantities", str(arxiv), "--where", "categoires~cs.DC"])
    err = capsys.readouterr().err
    assert code == 2 and len(err.splitlines()) == 1 and "'categoires'" in err


def test_the_readmes_where_examples_run_as_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    lines = [line.split("#")[0].strip() for line in readme.splitlines() if "extract_claims(" in line and "where=" in line]
    assert lines
    shutil.copy(DATA / "library.bib", tmp_path / "library.bib")
    (tmp_path / "works.jsonl.gz").write_bytes(gzip.compress((DATA / "openalex_works.jsonl").read_bytes()))
    monkeypatch.chdir(tmp_path)
    from paper_claims import extract_claims

    with FakeServer() as fake:
        monkeypatch.setenv("OPENAI_BASE_URL", fake.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-readme")
        for line in lines:
            scope: dict[str, Any] = {"extract_claims": extract_claims}
            exec(line, scope)
            read = [d for d in scope["table"].documents if d.status == "ok"]  # (unreadable entries stay, as rows)
            assert read and all(d.year == 2024 for d in read), line


def test_a_wrong_format_stops_when_the_first_records_all_fail_as_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 40: a .bib read as OpenAlex gave one error row per line."""
    bib = DATA / "library.bib"
    with pytest.raises(InputError) as raised:
        load_documents([bib], format="openalex")
    assert raised.value.one_line() == (
        f"cannot read {bib} as OpenAlex works (--format openalex): its first 20 records fail (line 1: not JSON "
        "(Expecting value)); the file looks like BibTeX: leave --format out, or use --format bibtex")
    openalex = DATA / "openalex_works.jsonl"
    with pytest.raises(InputError, match=r"as arXiv metadata snapshot \(--format arxiv\): its first 3 records fail "
                                         r"\(line 1: no abstract\); the file looks like OpenAlex works"):
        load_documents([openalex], format="arxiv")
    json_as_bib = tmp_path / "works.txt"
    shutil.copy(openalex, json_as_bib)
    with pytest.raises(InputError, match="no records as BibTeX .*looks like OpenAlex works"):
        load_documents([json_as_bib], format="bibtex")
    unknown = tmp_path / "notes.dat"
    unknown.write_text("just some words\n", encoding="utf-8")
    with pytest.raises(InputError, match="its first line reads 'just some words'"):
        load_documents([unknown], format="ris")
    # the right format whose first records have no abstract: error rows, as without --format
    nulls = tmp_path / "nulls.jsonl"
    work = json.loads(openalex.read_text(encoding="utf-8").splitlines()[2])
    nulls.write_text("".join(json.dumps({**work, "id": f"W{n}"}) + "\n" for n in range(3)), encoding="utf-8")
    assert [bool(d.error) for d in load_documents([nulls], format="openalex")] == [True, True, True]
    code = main(["extract", str(bib), "--format", "openalex", "--out", str(tmp_path / "out"), "--quiet"])
    err = capsys.readouterr().err
    assert code == 2 and len(err.splitlines()) == 1 and "looks like BibTeX" in err


def test_bibtex_concatenation_with_string_macros(tmp_path: Path) -> None:
    """Issue 40: ``abstract = {... on } # gpus # {.}`` came out with the # and the macro's name."""
    path = tmp_path / "macros.bib"
    path.write_text(
        '@string{gpus = "eight GPUs"}\n'
        '@STRING{Venue = {Invented Conference on } # "Systems"}\n'
        "@article{cat2024,\n"
        "  title = venue # { 2024},\n"
        "  abstract = {We train 2x faster on } # GPUS # {, with 30% less memory {#}1.},\n"
        "  note = {A # B},\n"
        "  year = 2024,\n"
        "}\n", encoding="utf-8")
    (doc,) = load_documents([path])
    assert doc.text == "We train 2x faster on eight GPUs, with 30% less memory #1."
    assert doc.title == "Invented Conference on Systems 2024"
    assert [d.id for d in load_documents([path], where=["note=A # B"])] == ["cat2024"]  # one braced value stays


LATEX_ABSTRACT = (r"We measure our system on two clusters. On 8~GPUs it runs 3.2$\times$ faster, uses 15\% less memory and $\sim$4\% less energy (~4% "
                  r"with 95% \& 100\,000 tokens), as Erd\H{o}s---and \textbf{we}---found.")
LATEX_READ = ("We measure our system on two clusters. On 8 GPUs it runs 3.2× faster, uses 15% less memory and ∼4% less energy (~4% with 95% & 100,000 "
              "tokens), as Erdős—and we—found.")


def test_latex_is_read_as_text_before_the_document_exists_and_plain_inputs_stay_as_given(tmp_path: Path) -> None:
    """Issue 40: evidence read `3.2$\\times$`, `15\\%`, `$4\\%` (of `$\\sim$4\\%`), titles `\\&`, `Erd\\H{o}s`."""
    title = r"Graphs \& Erd\H{o}s: $\alpha$-Nets at 95% of Peak"
    bib = tmp_path / "latex.bib"
    bib.write_text("@article{tex2024,\n  title = {" + title + "},\n  author = {Erd\\H{o}s, Paul},\n"
                   "  abstract = {" + LATEX_ABSTRACT + "},\n}\n", encoding="utf-8")
    arxiv = tmp_path / "snapshot.json"
    arxiv.write_text(json.dumps({"id": "2401.00009", "title": title, "authors": "Paul Erd\\H{o}s",
                                 "abstract": LATEX_ABSTRACT, "categories": "cs.DC"}) + "\n", encoding="utf-8")
    work = json.loads((DATA / "openalex_works.jsonl").read_text(encoding="utf-8").splitlines()[0])
    openalex = tmp_path / "works.jsonl"  # a metadata format: its title is read as text, the abstract as given
    openalex.write_text(json.dumps({**work, "display_name": title}) + "\n", encoding="utf-8")
    plain = tmp_path / "plain.jsonl"
    plain.write_text(json.dumps({"id": "p", "title": title, "text": LATEX_ABSTRACT}) + "\n", encoding="utf-8")
    text = tmp_path / "plain.txt"
    text.write_text(title + "\n\n" + LATEX_ABSTRACT + "\n", encoding="utf-8")
    read_title = "Graphs & Erdős: α-Nets at 95% of Peak"
    for path in (bib, arxiv):
        (doc,) = load_documents([path])
        assert (doc.text, doc.title, doc.authors) == (LATEX_READ, read_title, "Paul Erdős"), path
        (kept,) = load_documents([path], keep_latex=True)  # (BibTeX's accents are letters either way)
        accents = (lambda t: t.replace(r"Erd\H{o}s", "Erdős")) if path == bib else (lambda t: t)
        assert kept.text == accents(LATEX_ABSTRACT) and kept.title == accents(title), path
    (doc,) = load_documents([openalex])
    assert doc.title == read_title and doc.text == FASTSERVE
    for path in (plain, text):
        (doc,) = load_documents([path])
        assert doc.text == LATEX_ABSTRACT and doc.title == title, path
    from paper_claims.parse.quantities import find_quantities

    (doc,) = load_documents([bib])
    assert [m.text for m in find_quantities(doc.text)][1:6] == ["8 GPUs", "3.2×", "15%", "∼4%", "~4%"]
    for mention in find_quantities(doc.text):
        assert doc.text[mention.start:mention.end] == mention.text


def test_keep_latex_on_the_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bib = tmp_path / "latex.bib"
    bib.write_text("@article{tex2024,\n  abstract = {" + LATEX_ABSTRACT + "},\n}\n", encoding="utf-8")
    assert main(["quantities", str(bib)]) == 0
    read = [json.loads(line)["text"] for line in capsys.readouterr().out.splitlines()]
    assert main(["quantities", str(bib), "--keep-latex"]) == 0
    kept = [json.loads(line)["text"] for line in capsys.readouterr().out.splitlines()]
    assert "3.2×" in read and "∼4%" in read and "3.2$\\times$" in kept and "$4\\%" in kept


def test_records_holding_what_no_export_writes_are_read_or_error_rows(tmp_path: Path) -> None:
    """Found by tests/test_fuzz.py: authors as a number ended the whole run with a TypeError; a
    repeated id with a line break gave an error row of two lines."""
    s2 = tmp_path / "s2.jsonl"
    s2.write_text(json.dumps({"corpusid": 7, "abstract": SPARSE, "authors": 1.0}) + "\n", encoding="utf-8")
    assert [(d.id, d.text, d.authors) for d in load_documents([s2])] == [("7", SPARSE, None)]
    work = json.loads((DATA / "openalex_works.jsonl").read_text(encoding="utf-8").splitlines()[0])
    openalex = tmp_path / "works.jsonl"
    openalex.write_text(json.dumps({**work, "authorships": 3}) + "\n", encoding="utf-8")
    assert [d.text for d in load_documents([openalex])] == [FASTSERVE]
    from paper_claims.sources.formats import FORMATS
    from paper_claims.sources.formats.base import Format

    def broken(record: dict[str, Any]) -> Any:
        raise KeyError("shape")

    odd = Format("odd", "an odd format", (), FORMATS["jsonl"].entries, broken)
    plain = tmp_path / "plain.jsonl"
    plain.write_text('{"id": "a", "text": "2x."}\n', encoding="utf-8")
    from paper_claims.sources.files import read_file

    (doc,) = read_file(plain, str(plain), odd)
    assert doc.error == "line 1: cannot read its fields as an odd format (KeyError: 'shape')"
    twice = tmp_path / "twice.jsonl"
    twice.write_text('{"id": "0\\n0", "text": "2x."}\n' * 2, encoding="utf-8")
    assert [d.error for d in load_documents([twice])] == [None, f"duplicate id 0 0 (first seen in {twice})"]


def _readme_format_table() -> list[list[str]]:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    table = readme.split("| format (`--format`) |", 1)[1].split("\n\n", 1)[0]
    return [[cell.strip() for cell in line.strip("|").split(" | ")] for line in table.splitlines()[2:]]


def test_the_readmes_input_format_table_holds_as_written(tmp_path: Path) -> None:
    """Every row: the format named exists and its files are told as the row says, the ids look
    as its examples do, and each rewriting the row shows (`a` → `b`, `a` as `b`) happens."""
    from paper_claims.sources.formats import FORMATS
    from paper_claims.sources.latex import latex_to_text

    rows = _readme_format_table()
    jsonl = tmp_path / "records.jsonl"
    jsonl.write_text('{"id": "p1", "text": "It runs 3x faster."}\n', encoding="utf-8")
    csv_file = tmp_path / "records.csv"
    csv_file.write_text("title,text\nT,It runs 3x faster.\n", encoding="utf-8")
    samples = {"text": sorted(CORPUS.glob("*.txt"))[1], "jsonl": jsonl, "csv": csv_file, "bibtex": DATA / "library.bib",
               "ris": DATA / "library.ris", "csl-json": DATA / "zotero.json",
               "arxiv": DATA / "arxiv-metadata-oai-snapshot.json", "openalex": DATA / "openalex_works.jsonl",
               "s2": DATA / "s2_papers.json", "crossref": DATA / "crossref_works.json"}
    names = [re.match(r"`([^`]+)`", row[0]).group(1) for row in rows]  # type: ignore[union-attr]
    assert sorted(names) == sorted(FORMATS)
    rewrites = {"bibtex": latex_to_text, "crossref": jats_text}
    for name, (_, told, id_rule, _text, notes) in zip(names, rows):
        assert set(re.findall(r"`(\.[a-z]+)`", told)) <= set(FORMATS[name].suffixes), name
        assert detect(samples[name], str(samples[name])).name == name, name
        ids = [d.id for d in load_documents([samples[name]])]
        for shown in re.findall(r"\(`([^`<]+)`\)", id_rule):  # an example id: one of the sample's, or its shape
            shape = re.sub(r"\d", r"\\d", re.escape(shown))  # "W2741809807": W and ten digits
            assert shown in ids or any(re.fullmatch(shape, i) for i in ids), (name, shown)
        for before, after in re.findall(r"`([^`]+)` (?:→|as) `([^`]+)`", notes):
            raw = before.replace("<sup>", "<jats:sup>").replace("</sup>", "</jats:sup>")
            assert rewrites[name](raw) == after, (name, before)
    stem = jsonl.stem  # `<file stem>#<n>` where a record names no id
    jsonl.write_text('{"text": "It runs 3x faster."}\n', encoding="utf-8")
    assert [d.id for d in load_documents([jsonl])] == [f"{stem}#0"]
    assert [d.id for d in load_documents([csv_file])] == [f"{csv_file.stem}#0"]
