"""Inputs a researcher has (strings, records, DataFrames) and the API inside a running event loop."""

from __future__ import annotations

import asyncio
import json
import os
import re
from pathlib import Path

import pytest

from paper_claims import aextract_claims, extract_claims
from paper_claims.errors import InputError
from paper_claims.sources.inputs import iter_inputs
from paper_claims.settings import Settings
from paper_claims.schemas import Document
from tests.fakeserver import FakeServer

ABSTRACT = "We obtain a 3x speedup on A100 GPUs over vLLM and reach 81.2% accuracy."


def test_a_raw_abstract_string_is_text_not_a_path() -> None:
    (doc,) = list(iter_inputs(ABSTRACT))
    assert doc.text == ABSTRACT and doc.id == "text#0" and doc.error is None


def test_a_long_abstract_string_is_text_not_a_file_name_too_long() -> None:
    long = " ".join([ABSTRACT] * 5)  # longer than a file name may be, and no "/" in it
    (doc,) = list(iter_inputs(long))
    assert doc.text == long and doc.error is None


def test_a_missing_file_name_is_still_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError):
        list(iter_inputs(str(tmp_path / "nowhere.jsonl")))


def test_records_take_id_and_text_or_abstract() -> None:
    docs = list(iter_inputs([{"id": "a", "abstract": ABSTRACT}, {"id": "b", "text": "2x faster.", "doi": "10.1/x",
                                                                "year": 2024}]))
    assert [d.id for d in docs] == ["a", "b"] and docs[0].text == ABSTRACT
    assert (docs[1].doi, docs[1].year) == ("10.1/x", 2024)


@pytest.mark.parametrize("text", ["", "   ", "\n\t "])
def test_an_empty_or_blank_string_is_an_input_error_not_the_current_folder(
        text: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # a folder holding inputs, which an empty path would name
    (tmp_path / "papers.jsonl").write_text('{"id": "p1", "text": "It runs 3x faster."}\n', encoding="utf-8")
    with pytest.raises(InputError, match="item 0 is an empty string"):
        list(iter_inputs(text))
    with pytest.raises(InputError, match="item 1 is an empty string"):
        list(iter_inputs([ABSTRACT, text]))
    with pytest.raises(InputError, match="empty string"):
        extract_claims(text, base_url="http://127.0.0.1:9/v1", api_key="sk-x", use_cache=False)


def test_in_memory_records_without_text_raise_naming_the_record_where_file_records_are_error_rows(
        tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"record 2 \(id 'c'\) has no 'text' or 'abstract' field"):
        list(iter_inputs([{"id": "a", "abstract": ABSTRACT}, {"id": "b", "text": "2x faster."}, {"id": "c"}]))
    with pytest.raises(InputError, match=r"record 0 \(id 'e'\): empty text"):
        list(iter_inputs({"id": "e", "text": "  "}))
    with pytest.raises(InputError, match="record 0: text is not a string"):
        list(iter_inputs([{"text": 42}]))
    path = tmp_path / "records.jsonl"
    path.write_text('{"id": "a", "text": "2x faster."}\n{"id": "c"}\n', encoding="utf-8")
    docs = list(iter_inputs(str(path)))
    assert [d.id for d in docs] == ["a", "c"] and "no 'text' or 'abstract' field" in (docs[1].error or "")


def test_a_dataframe_row_without_text_raises_naming_the_row_and_the_fix() -> None:
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"id": ["p1", "p2"], "abstract": [ABSTRACT, None], "year": [2023, None]})
    with pytest.raises(InputError, match=r"row 1 \(id 'p2'\): no text in column 'abstract'.*dropna"):
        list(iter_inputs(frame))
    (doc,) = list(iter_inputs(frame.dropna(subset=["abstract"])))
    assert doc.id == "p1" and doc.year == 2023


def test_a_dataframe_with_chosen_columns() -> None:
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"paper": ["p1", "p1", "p2"], "summary_text": [ABSTRACT, "dup", "4% better."],
                          "title": ["T1", "T1b", "T2"]})
    docs = list(iter_inputs(frame, text_column="summary_text", id_column="paper"))
    assert [d.id for d in docs] == ["p1", "p1~dup1", "p2"] and docs[0].title == "T1"
    assert docs[1].error and "duplicate id p1" in docs[1].error
    with pytest.raises(InputError, match="no text column"):
        list(iter_inputs(frame))


def test_mixed_inputs_keep_their_order() -> None:
    docs = list(iter_inputs([Document(id="x", text="5x."), ABSTRACT, {"id": "r", "text": "7%"}]))
    assert [d.id for d in docs] == ["x", "text#1", "r"]


def _settings(server: FakeServer) -> Settings:
    return Settings(base_url=server.base_url, api_key="sk-test", progress=False, use_cache=False)


def test_extract_claims_works_inside_a_running_event_loop() -> None:
    with FakeServer() as server:
        async def cell() -> int:  # what a Jupyter cell is: code run by a running loop
            table = extract_claims([ABSTRACT, "It is 2x faster."], settings=_settings(server))
            return len(table.documents)

        assert asyncio.run(cell()) == 2


def test_aextract_claims_awaits_without_blocking_the_loop() -> None:
    with FakeServer(latency=0.3) as server:
        async def main() -> tuple[int, int]:
            ticks = 0

            async def tick() -> None:
                nonlocal ticks
                while True:
                    await asyncio.sleep(0.05)
                    ticks += 1

            ticker = asyncio.create_task(tick())
            table = await aextract_claims([ABSTRACT], settings=_settings(server))
            ticker.cancel()
            return len(table.rows), ticks

        claims, ticks = asyncio.run(main())
    assert claims >= 1 and ticks >= 3  # the loop kept running while the request waited


def test_extractor_reuses_one_embedded_server_for_many_calls(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from paper_claims import Extractor
    from tests.test_embedded_process import FAKE_ENGINE, ROOT

    monkeypatch.syspath_prepend(str(FAKE_ENGINE))
    monkeypatch.setenv("PYTHONPATH", f"{FAKE_ENGINE}:{ROOT}")
    model = tmp_path / "fake.gguf"
    model.write_bytes(b"GGUF")
    starts: list[str] = []
    with Extractor(model_path=str(model)) as extractor:
        import paper_claims.engines.embedded as engine

        real_start = engine.EmbeddedServer.start
        monkeypatch.setattr(engine.EmbeddedServer, "start", lambda self, *a, **k: (starts.append("x"), real_start(self, *a, **k))[1])
        first = extractor.extract([ABSTRACT])
        second = extractor.extract(["It runs 4x faster."])

        async def cell() -> int:  # and inside a running loop, on the same server
            return len((await extractor.aextract(["A 2x gain."])).documents)

        assert asyncio.run(cell()) == 1
        server = extractor._backend
    assert len(first.documents) == len(second.documents) == 1 and not first.errors and not second.errors
    assert starts == ["x"] and server is not None and server.failure is not None


def test_extractor_takes_an_openai_client() -> None:
    import openai

    from paper_claims import Extractor

    with FakeServer() as server:
        for client in (openai.OpenAI(base_url=server.base_url, api_key="sk-user"),
                       openai.AsyncOpenAI(base_url=server.base_url, api_key="sk-user")):
            with Extractor(client=client, progress=False, use_cache=False) as extractor:
                table = extractor.extract([ABSTRACT])
            assert not table.errors and len(table.documents) == 1
        assert server.total_requests == 2 and server.auth_seen == {"Bearer sk-user"}


def test_a_prompt_file_of_your_own_is_sent_and_keeps_its_answers_apart(tmp_path: Path) -> None:
    from paper_claims.errors import InputError
    from tests.fakeserver import FakeServer

    prompt = tmp_path / "my_prompt.txt"
    prompt.write_text("Label every marked number. (my own prompt)\n", encoding="utf-8")
    text = "Our kernel runs 3.1x faster than the baseline on one GPU."
    with FakeServer() as server:
        settings = dict(base_url=server.base_url, api_key="sk-test", cache_dir=tmp_path / "cache", progress=False)
        default = extract_claims(text, **settings)
        own = extract_claims(text, prompt_file=prompt, **settings)
        again = extract_claims(text, prompt_file=prompt, **settings)
        systems = [record.system for record in server.records]
    assert len(systems) == 2  # the packaged prompt once, the own prompt once; the third run is cached
    assert systems[1] == prompt.read_text(encoding="utf-8") and systems[0] != systems[1]
    assert own.stats.llm_calls == 1 and again.stats.llm_calls == 0 and default.rows[0]["value"] == own.rows[0]["value"]
    with pytest.raises(InputError, match="prompt file"):
        extract_claims(text, prompt_file=tmp_path / "missing.txt", **settings)


def test_a_users_own_schemas_extract_or_prompts_module_does_not_break_the_import(tmp_path: Path) -> None:
    """One import name: files named like our folders, next to a user's notebook, shadow nothing."""
    import subprocess
    import sys

    for name in ("schemas", "extract", "prompts"):
        (tmp_path / f"{name}.py").write_text(f"raise ImportError('the user\\'s own {name}.py was imported')\n")
    code = ("import paper_claims\n"
            "from paper_claims import Claim, extract_claims\n"
            "table = extract_claims('No numbers here at all.')\n"
            "print(Claim.__module__, len(table.documents))")
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "CLAIMS_CACHE_DIR": str(tmp_path / "cache")})
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["paper_claims.schemas.claims", "1"]


@pytest.mark.parametrize(("sources", "message"), [
    (None, "no sources (None): give paths, abstract strings"),
    (42, "cannot read an int as documents: give paths, abstract strings"),
    (3.5, "cannot read a float as documents"),
    ([ABSTRACT, None], "item 1 is None: give paths, abstract strings"),
    ((ABSTRACT, ABSTRACT, 7), "item 2 is an int: give paths, abstract strings"),
])
def test_what_cannot_be_documents_is_an_input_error_naming_the_item(sources: object, message: str) -> None:
    """Issue 40: None and 42 raised a bare TypeError; a list with None did not say which item."""
    with pytest.raises(InputError, match=re.escape(message)):
        list(iter_inputs(sources))  # type: ignore[arg-type]
    with pytest.raises(InputError, match=re.escape(message)):
        extract_claims(sources, base_url="http://127.0.0.1:9/v1", api_key="sk-x", use_cache=False)  # type: ignore[arg-type]


def test_parquet_and_dataframes_without_their_packages_name_the_extra(monkeypatch: pytest.MonkeyPatch,
                                                                      tmp_path: Path) -> None:
    import sys

    from paper_claims import ClaimTable
    from paper_claims.errors import ClaimsError, MissingExtra

    monkeypatch.setitem(sys.modules, "pyarrow", None)  # not installed
    monkeypatch.setitem(sys.modules, "pyarrow.parquet", None)
    monkeypatch.setitem(sys.modules, "pandas", None)
    table = ClaimTable([])
    with pytest.raises(MissingExtra, match=r"to_parquet needs pyarrow: pip install -e '\.\[pandas\]'") as raised:
        table.to_parquet(tmp_path)
    assert isinstance(raised.value, ClaimsError) and isinstance(raised.value, ImportError)
    with pytest.raises(MissingExtra, match=r"claims_df needs pandas: pip install -e '\.\[pandas\]'"):
        table.claims_df()
    with pytest.raises(MissingExtra, match=r"documents_df needs pandas"):
        table.documents_df()
    assert not list(tmp_path.iterdir())


def test_a_large_input_is_not_read_twice_to_size_the_progress_bar(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 38: every input was read a second time for the progress bar's total (a full extra
    pass over a metadata dump); past COUNTED_BYTES the bar counts without a total."""
    import paper_claims.api as api

    small = tmp_path / "small.jsonl"
    small.write_text(json.dumps({"id": "a", "text": "It runs 3x faster."}) + "\n")
    assert api._count([str(small)], {}) == 1
    monkeypatch.setattr(api, "COUNTED_BYTES", small.stat().st_size - 1)
    read: list[object] = []
    monkeypatch.setattr("paper_claims.sources.inputs.iter_inputs", lambda *a, **k: read.append(a) or iter(()))
    assert api._count([str(small)], {}) is None and read == []  # sized by name, never opened
    assert api._count(["an abstract string, not a file"], {}) == 0  # in memory: counted (here by the stand-in)
