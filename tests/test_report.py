"""The HTML report: written, self-contained, escaped, every claim highlighted (no browser)."""

from __future__ import annotations

import json
import re
import shutil
from html.parser import HTMLParser
from pathlib import Path

import pytest

from paper_claims.outputs.report import highlight, render, write_report  # noqa: E402
from paper_claims.outputs.summary import speedup_points, summarize  # noqa: E402

FIXTURE = Path(__file__).parent / "data" / "report_out"


def _jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _write_jsonl(path: Path, rows: list[dict]) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


class _Marks(HTMLParser):
    """Collects <mark> elements (attributes and text), <svg> and <script> counts."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.marks: list[dict] = []
        self.tags: list[str] = []
        self._open: dict | None = None

    def handle_starttag(self, tag: str, attrs: list) -> None:
        self.tags.append(tag)
        if tag == "mark":
            self._open = dict(attrs) | {"text": ""}

    def handle_endtag(self, tag: str) -> None:
        if tag == "mark" and self._open is not None:
            self.marks.append(self._open)
            self._open = None

    def handle_data(self, data: str) -> None:
        if self._open is not None:
            self._open["text"] += data


@pytest.fixture(scope="module")
def out_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    target = tmp_path_factory.mktemp("out")
    for name in ("claims.jsonl", "documents.jsonl"):
        shutil.copy(FIXTURE / name, target / name)
    return target


@pytest.fixture(scope="module")
def page(out_dir: Path) -> str:
    return write_report(out_dir).read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def parsed(page: str) -> _Marks:
    parser = _Marks()
    parser.feed(page)
    return parser


def test_default_path_and_custom_path(out_dir: Path, tmp_path: Path) -> None:
    assert write_report(out_dir) == out_dir / "report.html"
    assert (out_dir / "report.html").stat().st_size > 10_000
    custom = write_report(str(out_dir), tmp_path / "sub" / "r.html")
    assert custom == tmp_path / "sub" / "r.html" and custom.exists()


def test_self_contained(page: str) -> None:
    refs = re.findall(r"""(?:src|href)\s*=\s*["']?([^"'\s>]+)""", page, flags=re.I)
    assert not [r for r in refs if not r.startswith("#")], refs
    assert not re.search(r"""(?:src|href|url)\s*[=(]\s*["']?(?:https?:)?//""", page, flags=re.I)
    assert "<link" not in page and "@import" not in page
    assert "<style>" in page and "<script>" in page


def test_every_claim_has_its_mark(page: str, parsed: _Marks) -> None:
    claims = _jsonl(FIXTURE / "claims.jsonl")
    marks = {(m["data-doc"], int(m["data-start"]), int(m["data-end"])): m for m in parsed.marks}
    assert len(parsed.marks) == len(claims) == 18
    for claim in claims:
        mark = marks[(claim["doc_id"], claim["start"], claim["end"])]
        assert mark["text"] == claim["evidence"]
        assert mark["data-kind"] == claim["kind"]
        for name in ("kind", "value", "unit", "qualifier", "metric", "dataset", "hardware", "model", "baseline"):
            assert f"{name}:" in mark["title"]


def test_script_in_abstract_is_escaped(page: str, parsed: _Marks) -> None:
    assert "<script>alert(1)</script>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert parsed.tags.count("script") == 1  # only the report's own


def test_error_documents_listed(page: str) -> None:
    errors = page.split('id="errors"')[1].split("</section>")[0]
    assert "004#1" in errors
    assert "RateLimitError: 429 Too Many Requests &lt;retry-after: 20s&gt;" in errors


def test_charts_are_inline_svg(page: str, parsed: _Marks) -> None:
    assert 'data-chart="kinds"' in page and 'data-chart="speedups"' in page
    assert parsed.tags.count("svg") >= 2
    assert "<?xml" not in page and "<!DOCTYPE svg" not in page
    for name in ("NVIDIA A100", "NVIDIA T4", "Microcontroller (MCU)"):
        assert name in page.split('data-chart="speedups"')[1].split("</svg>")[0]


def test_summary_counts() -> None:
    summary = summarize(_jsonl(FIXTURE / "documents.jsonl"), _jsonl(FIXTURE / "claims.jsonl"))
    assert (summary.documents, summary.ok, summary.errors, summary.claims) == (6, 5, 1, 18)
    assert summary.by_kind["speedup"] == 6 and summary.by_kind["accuracy"] == 6
    assert dict(summary.top_hardware)["NVIDIA A100"] == 3
    assert dict(summary.top_datasets)["CIFAR-10"] == 2


def test_deterministic(out_dir: Path, tmp_path: Path) -> None:
    first = write_report(out_dir, tmp_path / "a.html").read_text(encoding="utf-8")
    second = write_report(out_dir, tmp_path / "b.html").read_text(encoding="utf-8")
    assert first == second


def test_bad_offsets_are_skipped_and_counted() -> None:
    text = "We get 2x and 3x and 40%."
    claims = [
        {"kind": "speedup", "evidence": "2x", "start": 7, "end": 9},
        {"kind": "speedup", "evidence": "2x and", "start": 7, "end": 13},  # overlaps
        {"kind": "speedup", "evidence": "3x", "start": 14, "end": 16},
        {"kind": "accuracy", "evidence": "40%", "start": 100, "end": 103},  # out of range
        {"kind": "accuracy", "evidence": "40%", "start": -3, "end": 0},  # negative
        {"kind": "accuracy", "evidence": "40%", "start": "x", "end": None},  # junk
        {"kind": "other", "evidence": "We", "start": 5, "end": 2},  # reversed
        {"kind": "other", "evidence": "nope", "start": 0, "end": 2},  # evidence mismatch
    ]
    result = highlight(text, claims)
    assert result.marked == 2 and len(result.skipped) == 6
    page = render([{"doc_id": "d", "status": "ok", "text": text}], [{"doc_id": "d", **c} for c in claims])
    assert "not highlighted" in page and page.count("<mark") == 2


def test_empty_and_missing_inputs(tmp_path: Path) -> None:
    (tmp_path / "documents.jsonl").write_text("", encoding="utf-8")  # a run of no documents; no claims.jsonl
    page = write_report(tmp_path).read_text(encoding="utf-8")
    assert "no data" in page and "<svg" not in page
    _write_jsonl(tmp_path / "documents.jsonl", [{"doc_id": "a", "status": "ok", "text": None}])
    _write_jsonl(tmp_path / "claims.jsonl", [
        {"doc_id": "a", "kind": "accuracy", "value": 1, "unit": "%", "evidence": "1%", "start": 0, "end": 2},
        {"doc_id": "ghost", "kind": "speedup", "value": 2, "unit": "x", "evidence": "2x", "start": 0, "end": 2},
    ])
    page = write_report(tmp_path).read_text(encoding="utf-8")
    assert 'data-chart="kinds"' in page and 'data-chart="speedups"' in page
    assert "claims without document" in page


def test_speedup_points_filter_unit_and_kind() -> None:
    claims = [
        {"kind": "speedup", "unit": "x", "value": 3, "hardware": "A100 GPU", "hardware_canonical": "NVIDIA A100"},
        {"kind": "speedup", "unit": "%", "value": 30},
        {"kind": "efficiency", "unit": "x", "value": 2},
        {"kind": "speedup", "unit": "×", "value": 4, "value_high": 15},
    ]
    assert speedup_points(claims) == [("NVIDIA A100", 3.0, None), ("(unspecified)", 4.0, 15.0)]


def test_the_report_needs_no_plotting_library() -> None:
    import subprocess
    import sys

    code = ("import sys; from paper_claims.outputs.report import render; "
            "page = render([], [{'doc_id': 'a', 'kind': 'speedup', 'unit': 'x', 'value': 2, 'evidence': '', "
            "'start': 0, 'end': 0}]); assert 'data-chart=\"speedups\"' in page; "
            "assert 'matplotlib' not in sys.modules, 'matplotlib imported'")
    subprocess.run([sys.executable, "-c", code], check=True, cwd=Path(__file__).resolve().parent.parent)


def test_charts_escape_names_and_draw_ranges() -> None:
    from paper_claims.outputs.charts import bar_chart, strip_chart

    svg = strip_chart("s", [("<GPU&>", 2.0, 4.0), ("TPU", 30.0, None)], "factor")
    assert "&lt;GPU&amp;&gt;" in svg and "<GPU&>" not in svg
    assert svg.count("<circle") == 2 and "2–4×" in svg and "30×" in svg and 'stroke-opacity="0.55"' in svg
    bars = bar_chart("k", [("speedup", 5, "#e8590c"), ("scale", 0, "#a07a12")], "claims")
    assert bars.count("<rect") == 2 and ">5</text>" in bars


def _big_run(out: Path, n_docs: int) -> None:
    """A run of n_docs abstracts, each with two claims (one a speedup), every 50th failed."""
    with (out / "documents.jsonl").open("w") as docs, (out / "claims.jsonl").open("w") as claims:
        for i in range(n_docs):
            text = f"Abstract {i}: our method runs {i % 7 + 2}x faster on GPU-{i % 5} and reaches {i % 90}% accuracy."
            failed = i % 50 == 49
            docs.write(json.dumps({"doc_id": f"d{i}", "status": "error" if failed else "ok", "text": text,
                                   "error": "boom" if failed else None}) + "\n")
            if failed:
                continue
            x = text.index("x faster") - len(str(i % 7 + 2))
            pct = text.index("% accuracy") - len(str(i % 90))
            claims.write(json.dumps({"doc_id": f"d{i}", "kind": "speedup", "value": i % 7 + 2, "unit": "x",
                                     "hardware": f"GPU-{i % 5}", "evidence": text[x:x + len(str(i % 7 + 2)) + 1],
                                     "start": x, "end": x + len(str(i % 7 + 2)) + 1}) + "\n")
            claims.write(json.dumps({"doc_id": f"d{i}", "kind": "accuracy", "value": i % 90, "unit": "%",
                                     "dataset": f"Set{i % 3}", "evidence": text[pct:pct + len(str(i % 90)) + 1],
                                     "start": pct, "end": pct + len(str(i % 90)) + 1}) + "\n")


def test_a_large_run_gives_a_small_report_that_still_counts_everything(tmp_path: Path) -> None:
    _big_run(tmp_path, 20_000)
    page = write_report(tmp_path).read_text(encoding="utf-8")
    assert len(page) < 2_000_000  # 500 abstracts, not 20,000
    assert page.count('<article class="doc') == 500
    assert "Showing the first 500 of 20000 abstracts" in page and "--all" in page
    assert "20000 documents · 39200 claims" in page  # the summary covers the whole run
    assert "an even sample of" in page  # 19,600 speedups are sampled for the chart
    assert "The first 200 of 400 failed documents" in page
    parser = _Marks()
    parser.feed(page)
    assert len(parser.marks) == 2 * 500 - 2 * (500 // 50)


def test_the_whole_report_on_request(tmp_path: Path) -> None:
    _big_run(tmp_path, 700)
    page = write_report(tmp_path, max_abstracts=None).read_text(encoding="utf-8")
    assert page.count('<article class="doc') == 700 and "Showing the first" not in page


def test_an_untitled_abstract_is_headed_by_its_first_words(tmp_path: Path) -> None:
    text = "We present Minerva, an end-to-end ML model update system for microcontrollers that is 89x faster."
    _write_jsonl(tmp_path / "documents.jsonl", [
        {"doc_id": "001#0", "status": "ok", "title": None, "text": text},
        {"doc_id": "001#1", "status": "ok", "title": "A Titled Paper", "doi": "10.5555/x.1", "year": 2024,
         "text": "It is 2x faster."},
        {"doc_id": "001#2", "status": "error", "title": None, "text": "", "error": "empty text"},
    ])
    page = write_report(tmp_path).read_text(encoding="utf-8")
    assert "<h3>We present Minerva, an end-to-end ML model update…</h3>" in page
    assert "<h3>A Titled Paper</h3>" in page and '<a href="https://doi.org/10.5555/x.1">doi:10.5555/x.1</a>' in page
    assert "<h3>001#2</h3>" in page  # no title and no text: the id
