"""The review app without a browser: decisions and their log, replay, the write token, escaping,
a damaged log, two tabs on one claim, the export to annotations, and the ``claims review`` command.

The fixture ``tests/data/review_out`` is an extraction output of five abstracts (one failed);
in it the extractor missed "95.6%" of 000#1 and gave "77.0%" the wrong kind.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

fastapi = pytest.importorskip("fastapi", reason="the review extra is not installed (pip install -e '.[review]')")
from fastapi.testclient import TestClient  # noqa: E402

from paper_claims import cli  # noqa: E402
from paper_claims.errors import InputError, ReviewError  # noqa: E402
from paper_claims.evaluation import evaluate  # noqa: E402
from paper_claims.outputs.review import export_review  # noqa: E402
from paper_claims.outputs.review.app import TOKEN_HEADER, create_app  # noqa: E402
from paper_claims.outputs.review.log import ReviewLog  # noqa: E402
from paper_claims.outputs.review.spans import span_claim  # noqa: E402
from paper_claims.outputs.review.state import Decision, ReviewState  # noqa: E402
from paper_claims.parse.canonical import canonical_hardware  # noqa: E402
from tests.conftest import read_jsonl, run_claims  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = ROOT / "tests" / "data" / "review_out"
GOLD_KEYS = list(json.loads((ROOT / "eval" / "gold" / "dev.jsonl").open().readline()))
GOLD_CLAIM_KEYS = ["kind", "value", "value_high", "unit", "qualifier", "metric", "dataset", "hardware", "model",
                   "baseline", "evidence"]


@pytest.fixture
def out(tmp_path: Path) -> Path:
    """A fresh copy of the fixture output (the tests write review.jsonl into it)."""
    target = tmp_path / "out"
    shutil.copytree(FIXTURE, target)
    return target


def client_for(out: Path, **kwargs: Any) -> tuple[TestClient, str]:
    app = create_app(out, reviewer="tester", **kwargs)
    return TestClient(app, base_url="http://127.0.0.1:8765"), app.state.token


def text_of(out: Path, doc_id: str) -> str:
    return next(d["text"] for d in read_jsonl(out / "documents.jsonl") if d["doc_id"] == doc_id)


def span_of(out: Path, doc_id: str, words: str) -> list[int]:
    start = text_of(out, doc_id).index(words)
    return [start, start + len(words)]


def claims_by_evidence(doc: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {c["claim"]["evidence"]: c for c in doc["claims"]}


def post(client: TestClient, token: str, **body: Any) -> Any:
    return client.post("/api/decide", json=body, headers={TOKEN_HEADER: token})


# ---------------------------------------------------------------------- the write token, hosts, escaping


def test_writes_need_the_page_token(out: Path) -> None:
    client, token = client_for(out)
    body = {"doc_id": "000#1", "action": "reject", "claim_id": "665-670"}
    assert client.post("/api/decide", json=body).status_code == 403
    assert client.post("/api/decide", json=body, headers={TOKEN_HEADER: token[:-1] + "x"}).status_code == 403
    assert client.post("/api/decide", content=b"not json", headers={TOKEN_HEADER: "wrong"}).status_code == 403
    assert not (out / "review.jsonl").exists()  # nothing was written
    page = client.get("/")
    assert page.status_code == 200
    assert f'<meta name="review-token" content="{token}">' in page.text
    response = client.post("/api/decide", json=body, headers={TOKEN_HEADER: token})
    assert response.status_code == 200
    assert [e["action"] for e in read_jsonl(out / "review.jsonl")] == ["reject"]
    other, other_token = client_for(out)
    assert other_token != token  # one token per app (process)
    assert other.post("/api/decide", json=body, headers={TOKEN_HEADER: token}).status_code == 403


def test_other_host_names_are_refused(out: Path) -> None:
    client, _token = client_for(out)
    assert client.get("/api/state", headers={"host": "evil.example:8765"}).status_code == 403
    assert client.get("/api/state", headers={"host": "localhost:8765"}).status_code == 200
    anywhere, _ = client_for(out, hosts=None)
    assert anywhere.get("/api/state", headers={"host": "box.lan:8765"}).status_code == 200


def test_abstract_markup_is_never_html(out: Path) -> None:
    client, _token = client_for(out)
    page = client.get("/")
    assert "<script>alert(1)</script>" not in page.text and "robot" not in page.text  # data comes as JSON
    csp = page.headers["content-security-policy"]
    assert "script-src 'self'" in csp and "unsafe-inline" not in csp
    assert page.headers["x-content-type-options"] == "nosniff"
    state = client.get("/api/state")
    assert state.headers["content-type"].startswith("application/json")
    doc = next(d for d in state.json()["docs"] if d["doc_id"] == "000#4")
    assert "<script>alert(1)</script> & \"quotes\"" in doc["text"]  # verbatim, for text nodes
    assert "<i>vs.</i>" in claims_by_evidence(doc)["45%"]["claim"]["metric"]
    script = client.get("/static/review.js").text
    assert "innerHTML" not in script and "insertAdjacentHTML" not in script and "document.write" not in script
    assert client.get("/static/../../documents.jsonl").status_code == 404
    assert client.get("/static/index.html").status_code == 404  # only the listed files
    assert client.get("/documents.jsonl").status_code == 404


# ---------------------------------------------------------------------- decisions


def test_decisions_are_logged_at_once_and_replayed(out: Path) -> None:
    client, token = client_for(out)
    assert post(client, token, doc_id="000#1", action="reject", claim_id="665-670").status_code == 200
    assert len(read_jsonl(out / "review.jsonl")) == 1  # before the next request
    edit = post(client, token, doc_id="000#1", action="edit", claim_id="696-701", changes={"kind": "accuracy"})
    assert edit.status_code == 200
    added = post(client, token, doc_id="000#1", action="add", span=span_of(out, "000#1", "95.6%"),
                 changes={"kind": "accuracy"}).json()
    by_evidence = claims_by_evidence(added["doc"])
    assert {e: c["status"] for e, c in by_evidence.items()} == {"94.6%": "rejected", "95.6%": "added", "77.0%": "edited"}
    new = by_evidence["95.6%"]["claim"]
    assert (new["value"], new["unit"], new["kind"]) == (95.6, "%", "accuracy")
    assert added["progress"] == {"claims_reviewed": 3, "claims_total": 12, "docs_reviewed": 1, "docs_total": 5}

    log = read_jsonl(out / "review.jsonl")
    assert [e["action"] for e in log] == ["reject", "edit", "add"]
    assert all(e["who"] == "tester" and e["at"] for e in log)
    assert log[0]["before"]["evidence"] == "94.6%" and log[0]["after"] is None
    assert (log[1]["before"]["kind"], log[1]["after"]["kind"]) == ("improvement", "accuracy")
    assert log[2]["before"] is None and log[2]["after"]["evidence"] == "95.6%"

    replayed = ReviewState.load(out)  # a restart (or a reload) sees the same review
    doc = replayed.doc("000#1")
    assert {c.current["evidence"]: c.status for c in doc.claims.values()} == {
        "94.6%": "rejected", "95.6%": "added", "77.0%": "edited"}
    assert replayed.progress() == added["progress"] and replayed.problems == []
    assert replayed.last == {"doc_id": "000#1", "claim_id": added["claim_id"]}


def test_status_follows_the_last_decision(out: Path) -> None:
    client, token = client_for(out)

    def status(**body: Any) -> str:
        response = post(client, token, doc_id="000#1", claim_id="696-701", **body)
        assert response.status_code == 200, response.text
        return claims_by_evidence(response.json()["doc"])["77.0%"]["status"]

    assert status(action="accept") == "accepted"
    assert status(action="edit", changes={"kind": "accuracy"}) == "edited"
    assert status(action="accept") == "edited"  # accepting keeps the edited content
    assert status(action="edit", changes={"kind": "improvement"}) == "accepted"  # back to what was extracted
    assert status(action="reject") == "rejected"
    assert status(action="reset") == "pending"


def test_edits_stay_grounded(out: Path) -> None:
    client, token = client_for(out)

    def edit(**body: Any) -> Any:
        return post(client, token, doc_id="001#2", action="edit", claim_id="1217-1221", **body)

    for changes, message in [({"value": 3}, "cannot edit value"), ({"evidence": "3x"}, "cannot edit evidence"),
                             ({"kind": "faster"}, "kind 'faster' is not one of"),
                             ({"dataset": "ImageNet"}, "not in the abstract"),
                             ({"qualifier": "maybe"}, "qualifier 'maybe'")]:
        response = edit(changes=changes)
        assert response.status_code == 422 and message in response.json()["detail"], (changes, response.text)
    good = edit(changes={"hardware": "T4 GPU (16GB)", "baseline": "existing systems", "qualifier": "about",
                         "metric": "CPU memory"})
    assert good.status_code == 200, good.text
    claim = claims_by_evidence(good.json()["doc"])["2-3x"]
    assert claim["status"] == "edited"
    assert claim["claim"]["hardware_canonical"] == canonical_hardware("T4 GPU (16GB)") != None  # recomputed
    assert (claim["claim"]["qualifier"], claim["claim"]["value"]) == ("about", 2.0)
    # new words: the parser reads value, unit and qualifier there, and widens to the whole number
    moved = edit(span=span_of(out, "001#2", "10.3"))
    assert moved.status_code == 422 and "overlap" in moved.json()["detail"]  # that is another claim's number
    assert post(client, token, doc_id="001#2", action="reject", claim_id="953-966").status_code == 200
    moved = edit(span=span_of(out, "001#2", "10.3"))
    assert moved.status_code == 200, moved.text
    claim = next(c for c in moved.json()["doc"]["claims"] if c["id"] == "1217-1221")["claim"]
    text = text_of(out, "001#2")
    assert claim["evidence"] == text[claim["start"]:claim["end"]] == "up to (10.3x)"
    assert (claim["value"], claim["unit"], claim["qualifier"]) == (10.3, "x", "up to")
    assert len(read_jsonl(out / "review.jsonl")) == 3  # refused edits wrote nothing


def test_selected_words_are_read_by_the_parser(out: Path) -> None:
    text = text_of(out, "001#1")
    start = text.index("89×")
    words = span_claim(text, start + 1, start + 2)  # part of the number: widened to the mention
    assert (words["evidence"], words["value"], words["unit"], words["qualifier"]) == ("up to 89×", 89.0, "x", "up to")
    assert words["suggested_kind"] in (None, "speedup", "efficiency", "accuracy", "improvement", "scale", "other")
    with pytest.raises(ReviewError, match="no number"):
        span_claim(text, text.index("Minerva"), text.index("Minerva") + 7)
    with pytest.raises(ReviewError, match="2 numbers"):
        span_claim(text, start, text.index("73×") + 3)
    with pytest.raises(ReviewError, match="not inside"):
        span_claim(text, 10, len(text) + 5)


@pytest.mark.parametrize(("text", "words", "evidence", "value"), [
    ("Our agent solves 13/29 tasks of the suite.", "13/29", "13/29", 13 / 29),
    ("Our agent solves 13/29 tasks of the suite.", "13", "13/29", 13 / 29),  # part of it: widened
    ("It needs only 7/16 of the time of the baseline.", "7/16 of", "7/16 of", 7 / 16),
    ("It uses 3/4 of the memory of the baseline.", "3/4 of", "3/4 of", 0.75),
    ("It needs ¾ of the energy.", "¾", "¾", 0.75),
])
def test_a_selected_fraction_is_a_number(text: str, words: str, evidence: str, value: float) -> None:
    start = text.index(words)
    claim = span_claim(text, start, start + len(words))
    assert (claim["evidence"], claim["unit"]) == (evidence, "x") and claim["value"] == pytest.approx(value)
    assert text[claim["start"]:claim["end"]] == claim["evidence"]


def test_a_fraction_is_added_as_a_claim(out: Path) -> None:
    documents = read_jsonl(out / "documents.jsonl")
    documents[0]["text"] += " The agent solves 13/29 tasks."
    (out / "documents.jsonl").write_text("".join(json.dumps(d) + "\n" for d in documents), encoding="utf-8")
    client, token = client_for(out)
    doc_id = documents[0]["doc_id"]
    response = post(client, token, doc_id=doc_id, action="add", span=span_of(out, doc_id, "13/29"),
                    changes={"kind": "other"})
    assert response.status_code == 200, response.text
    added = claims_by_evidence(response.json()["doc"])["13/29"]
    assert added["status"] == "added" and added["claim"]["value"] == pytest.approx(13 / 29)


def test_add_needs_words_and_a_kind_and_no_overlap(out: Path) -> None:
    client, token = client_for(out)
    span = span_of(out, "000#1", "95.6%")
    assert post(client, token, doc_id="000#1", action="add", span=span).status_code == 422
    overlap = post(client, token, doc_id="000#1", action="add", span=span_of(out, "000#1", "94.6%"),
                   changes={"kind": "accuracy"})
    assert overlap.status_code == 422 and "overlap" in overlap.json()["detail"]
    response = post(client, token, doc_id="000#1", action="add", span=span, changes={"kind": "accuracy"})
    assert response.status_code == 200
    again = post(client, token, doc_id="000#1", action="add", span=span, changes={"kind": "accuracy"})
    assert again.status_code == 422  # the same number twice
    unknown = post(client, token, doc_id="nope#1", action="add", span=span, changes={"kind": "accuracy"})
    assert unknown.status_code == 422 and "no document" in unknown.json()["detail"]


def test_document_lists_take_words_of_the_text(out: Path) -> None:
    client, token = client_for(out)
    ok = post(client, token, doc_id="001#2", action="lists",
              lists={"models": ["Mixtral 8x7B", "DBRX", "HRM"], "hardware": ["T4 GPU (16GB)"], "system": "MoE-Lightning"})
    assert ok.status_code == 200, ok.text
    assert ok.json()["doc"]["lists"] == {"system": "MoE-Lightning", "datasets": [],
                                         "hardware": ["T4 GPU (16GB)"], "models": ["Mixtral 8x7B", "DBRX", "HRM"]}
    bad = post(client, token, doc_id="001#2", action="lists", lists={"datasets": ["ImageNet"]})
    assert bad.status_code == 422 and "not in the abstract" in bad.json()["detail"]
    assert post(client, token, doc_id="001#2", action="lists", lists={"authors": []}).status_code == 422
    log = read_jsonl(out / "review.jsonl")
    assert len(log) == 1 and log[0]["before"]["hardware"] == ["T4 GPU (16GB)", "2--4 T4s"]
    assert ReviewState.load(out).doc("001#2").lists["models"] == ["Mixtral 8x7B", "DBRX", "HRM"]


def test_document_done_accepts_the_rest(out: Path) -> None:
    client, token = client_for(out)
    post(client, token, doc_id="001#2", action="reject", claim_id="1425-1433")
    done = post(client, token, doc_id="001#2", action="confirm").json()
    assert done["logged"] == 3  # two accepts, then the confirmation
    assert {c["status"] for c in done["doc"]["claims"]} == {"accepted", "rejected"}
    assert done["doc"]["reviewed"] and done["progress"]["docs_reviewed"] == 1
    empty = post(client, token, doc_id="004#1", action="confirm").json()  # a document without claims
    assert empty["logged"] == 1 and empty["doc"]["reviewed"]


# ---------------------------------------------------------------------- two tabs, a damaged log


def test_two_tabs_on_one_claim_last_decision_wins(out: Path) -> None:
    client, token = client_for(out)
    seen = claims_by_evidence(next(d for d in client.get("/api/state").json()["docs"] if d["doc_id"] == "000#4"))
    rev = seen["45%"]["rev"]  # both tabs loaded the page: same revision
    first = post(client, token, doc_id="000#4", action="edit", claim_id="1128-1131", changes={"kind": "scale"},
                 tab="tab-A", rev=rev)
    assert first.status_code == 200 and first.json()["replaced"] is None
    second = post(client, token, doc_id="000#4", action="reject", claim_id="1128-1131", tab="tab-B", rev=rev)
    assert second.status_code == 200
    replaced = second.json()["replaced"]
    assert (replaced["tab"], replaced["action"], replaced["who"]) == ("tab-A", "edit", "tester")  # the page says so
    assert claims_by_evidence(second.json()["doc"])["45%"]["status"] == "rejected"
    log = read_jsonl(out / "review.jsonl")
    assert [(e["tab"], e["action"]) for e in log] == [("tab-A", "edit"), ("tab-B", "reject")]
    assert log[1]["before"]["kind"] == "scale"  # B's line records what it replaced
    assert ReviewState.load(out).doc("000#4").claims["1128-1131"].status == "rejected"
    # and the other order: the edit comes last and wins
    third = post(client, token, doc_id="000#4", action="edit", claim_id="1128-1131", changes={"kind": "accuracy"},
                 tab="tab-A", rev=first.json()["doc"]["claims"][1]["rev"])
    assert third.json()["replaced"]["tab"] == "tab-B"
    assert ReviewState.load(out).doc("000#4").claims["1128-1131"].status == "accepted"


def test_a_cut_short_log_line_is_reported_not_fatal(out: Path) -> None:
    client, token = client_for(out)
    post(client, token, doc_id="000#1", action="reject", claim_id="665-670")
    post(client, token, doc_id="000#1", action="accept", claim_id="696-701")
    log_path = out / "review.jsonl"
    whole = log_path.read_bytes()
    log_path.write_bytes(whole[: len(whole) - 40])  # the second line lost its end (a crash mid-write)

    client, token = client_for(out)  # the app starts
    state = client.get("/api/state").json()
    assert len(state["warnings"]) == 1 and "line 2" in state["warnings"][0] and "cut short" in state["warnings"][0]
    doc = next(d for d in state["docs"] if d["doc_id"] == "000#1")
    assert {c["id"]: c["status"] for c in doc["claims"]} == {"665-670": "rejected", "696-701": "pending"}
    # the next decision starts a new line rather than extending the broken one
    assert post(client, token, doc_id="000#1", action="accept", claim_id="696-701").status_code == 200
    events, problems = ReviewLog(log_path).read()
    assert [e.action for _n, e in events] == ["reject", "accept"] and [p.line for p in problems] == [2]
    assert ReviewState.load(out).doc("000#1").claims["696-701"].status == "accepted"


def test_unusable_log_lines_are_each_reported(out: Path) -> None:
    good = {"at": "2025-01-01T00:00:00+00:00", "who": "x", "doc_id": "000#1", "claim_id": "665-670",
            "action": "accept", "before": None, "after": None}
    lines = [json.dumps(good), "[1, 2]", json.dumps({**good, "doc_id": "gone#9"}),
             json.dumps({**good, "action": "explode"}), json.dumps({**good, "claim_id": "1-2"}),
             json.dumps({**good, "claim_id": "n1", "action": "add", "after": {"kind": "scale", "value": 1,
                                                                              "evidence": "invented", "start": 0, "end": 8}}),
             "\udcff garbage"]
    (out / "review.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8", errors="surrogateescape")
    state = ReviewState.load(out)
    assert [int(re.search(r"line (\d+)", p).group(1)) for p in state.problems] == [2, 3, 4, 5, 6, 7]
    assert "no document 'gone#9'" in state.problems[1] and "not a grounded claim" in state.problems[4]
    assert state.doc("000#1").claims["665-670"].status == "accepted"


def test_missing_output_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no documents.jsonl"):
        ReviewState.load(tmp_path)
    (tmp_path / "documents.jsonl").write_text('{"doc_id": "a", "text": "x"}\n{"doc_id": \n')
    with pytest.raises(InputError, match="documents.jsonl:2"):
        ReviewState.load(tmp_path)


# ---------------------------------------------------------------------- export


def review_two_documents(out: Path) -> None:
    """000#1: fix a kind, add the missed number; 001#2: reject a hardware count, edit the lists;
    both then marked done (the rest accepted). 000#4: one claim accepted, the others pending."""
    client, token = client_for(out)
    for body in [
        {"doc_id": "000#1", "action": "edit", "claim_id": "696-701", "changes": {"kind": "accuracy"}},
        {"doc_id": "000#1", "action": "add", "span": span_of(out, "000#1", "95.6%"), "changes": {"kind": "accuracy"}},
        {"doc_id": "000#1", "action": "confirm"},
        {"doc_id": "001#2", "action": "reject", "claim_id": "1425-1433"},
        {"doc_id": "001#2", "action": "lists", "lists": {"hardware": ["T4 GPU (16GB)"], "models": ["Mixtral 8x7B", "Mixtral 8x22B", "DBRX", "HRM"]}},
        {"doc_id": "001#2", "action": "confirm"},
        {"doc_id": "000#4", "action": "accept", "claim_id": "1078-1104"},
    ]:
        assert post(client, token, **body).status_code == 200


def test_export_writes_annotations_that_score_the_corrections(out: Path, tmp_path: Path) -> None:
    review_two_documents(out)
    gold_path = tmp_path / "gold.jsonl"
    summary = export_review(out, gold_path)
    assert (summary.reviewed_docs, summary.gold_claims, summary.partial_docs) == (2, 5, ["000#4"])
    gold = read_jsonl(gold_path)
    assert [g["id"] for g in gold] == ["000#1", "001#2"]
    assert all(list(g) == GOLD_KEYS for g in gold)  # the format of eval/gold
    assert all(list(c) == GOLD_CLAIM_KEYS for g in gold for c in g["claims"])
    first = gold[0]
    assert (first["file"], first["index"], first["first_words"]) == (
        "dev_inputs.jsonl", 1, "Neural networks have proven effective at solving difficult")
    assert [(c["evidence"], c["kind"]) for c in first["claims"]] == [
        ("94.6%", "accuracy"), ("95.6%", "accuracy"), ("77.0%", "accuracy")]
    assert gold[1]["hardware"] == ["T4 GPU (16GB)"] and "HRM" in gold[1]["models"]
    assert "2--4 T4s" not in [c["evidence"] for c in gold[1]["claims"]]

    rows = read_jsonl(out / "claims.reviewed.jsonl")
    assert {r["review"] for r in rows} == {"accepted", "edited", "added", "pending"}
    assert len(rows) == 11  # 11 extracted, one rejected, one added
    csv_lines = (out / "claims.reviewed.csv").read_text().splitlines()
    assert csv_lines[0].endswith(",review") and len(csv_lines) == 12

    reviewed = evaluate(gold_path, out / "reviewed")
    assert (reviewed.claims.precision, reviewed.claims.recall, reviewed.kind_accuracy) == (1.0, 1.0, 1.0)
    assert all(s.f1 == 1.0 for s in reviewed.doc_lists.values())
    assert reviewed.grounded_share == 1.0
    original = evaluate(gold_path, out)
    assert original.claims.precision < 1.0 and original.claims.recall < 1.0 and original.kind_accuracy < 1.0


def test_export_without_reviewed_documents_says_so(out: Path, tmp_path: Path) -> None:
    summary = export_review(out, tmp_path / "gold.jsonl")
    assert summary.reviewed_docs == 0 and (tmp_path / "gold.jsonl").read_text() == ""
    assert "no document is fully reviewed" in summary.describe()
    assert {r["review"] for r in read_jsonl(out / "claims.reviewed.jsonl")} == {"pending"}


# ---------------------------------------------------------------------- the command


def test_cli_export(out: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    review_two_documents(out)
    assert cli.main(["review", str(out), "--export", str(tmp_path / "g.jsonl")]) == 0
    err = capsys.readouterr().err
    assert "2 reviewed document(s), 5 claim(s)" in err and "claims.reviewed.csv" in err and "000#4" in err


def test_cli_says_which_extra_is_missing(out: Path, monkeypatch: pytest.MonkeyPatch,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setitem(sys.modules, "uvicorn", None)  # as if the extra were not installed
    assert cli.main(["review", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "pip install -e '.[review]'" in err


def test_cli_serves_until_interrupted(out: Path) -> None:
    import httpx

    (out / "review.jsonl").write_text('{"truncated": \n')
    proc = run_claims(["review", str(out), "--port", "0", "--reviewer", "cli"], dict(os.environ))
    try:
        lines = [proc.stderr.readline() for _ in range(3)]
        url = re.search(r"http://127\.0\.0\.1:\d+/", lines[0]).group(0)
        assert "review.jsonl" in lines[1] and "warning: review.jsonl line 1" in lines[2]
        state = httpx.get(url + "api/state", timeout=10).json()
        assert state["reviewer"] == "cli" and len(state["docs"]) == 5 and len(state["warnings"]) == 1
        assert httpx.post(url + "api/decide", json={"doc_id": "000#1", "action": "confirm"}, timeout=10).status_code == 403
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            raise
    assert proc.returncode == 130  # Ctrl-C, as for every claims command


def test_decision_model_rejects_unknown_actions() -> None:
    with pytest.raises(ValueError):
        Decision.model_validate({"doc_id": "a", "action": "delete"})


def test_a_decision_waits_for_the_folders_lock_and_another_writer_holding_it_is_named(
        out: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 40: review.jsonl was appended without the output folder's lock."""
    from paper_claims.errors import OutputBusy
    from paper_claims.run.folders import LOCK_NAME, OutputLock

    monkeypatch.setattr(ReviewLog, "LOCK_WAIT", 0.5)
    client, token = client_for(out)
    with OutputLock(out):  # a run (or another review app mid-append) writing to the folder
        refused = post(client, token, doc_id="000#1", action="reject", claim_id="665-670")
        assert refused.status_code == 409 and "another run is writing to" in refused.json()["detail"]
        assert not (out / "review.jsonl").exists()
        with pytest.raises(OutputBusy):
            export_review(out, out.parent / "gold.jsonl")
    assert post(client, token, doc_id="000#1", action="reject", claim_id="665-670").status_code == 200
    assert len(read_jsonl(out / "review.jsonl")) == 1 and not (out / LOCK_NAME).exists()
    state = client.get("/api/state").json()
    assert state["progress"]["claims_reviewed"] == 1  # the refused decision was not kept either
