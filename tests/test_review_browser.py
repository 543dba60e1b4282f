"""``claims review`` in headless Chromium (selenium): the acceptance run of issue 13.

A reviewer rejects a claim, fixes a kind, adds the claim the extractor missed by selecting its
words, edits a document list, marks two documents done, reloads and finds every decision kept;
then ``claims review --export`` writes annotations, and ``claims eval`` scores the corrected
output 1.0 against them while the unreviewed output scores lower. Saves a screenshot in the test's
temporary folder; ``CLAIMS_UPDATE_DOCS=1`` writes it to ``docs/review.png`` instead (the README's
picture), so a test run leaves the working tree as it was.

Needs the Debian packages ``chromium`` and ``chromium-driver`` and the pip packages ``selenium``
and ``fastapi``/``uvicorn`` (the review extra); skipped with a reason when one is missing.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
from pathlib import Path
from typing import Any, Callable, Iterator

import pytest

from tests.conftest import run_claims
from tests.test_report_browser import CHROME_FLAGS, CHROMEDRIVER, CHROMIUM, webdriver  # skips without a browser

pytestmark = pytest.mark.browser
pytest.importorskip("fastapi", reason="the review extra is not installed (pip install -e '.[review]')")
pytest.importorskip("uvicorn", reason="the review extra is not installed (pip install -e '.[review]')")

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = ROOT / "tests" / "data" / "review_out"
SCREENSHOT = ROOT / "docs" / "review.png"


@pytest.fixture(scope="module")
def out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    target = tmp_path_factory.mktemp("review") / "out"
    shutil.copytree(FIXTURE, target)
    return target


@pytest.fixture(scope="module")
def server(out: Path) -> Iterator[tuple[subprocess.Popen, str]]:  # type: ignore[type-arg]
    """``claims review OUT --port 0`` in a subprocess, and its address."""
    proc = run_claims(["review", str(out), "--port", "0", "--reviewer", "browser-test"], dict(os.environ))
    try:
        first = proc.stderr.readline()
        found = re.search(r"http://127\.0\.0\.1:\d+/", first)
        assert found, first + proc.stderr.read()
        yield proc, found.group(0)
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGINT)
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()


@pytest.fixture(scope="module")
def driver(server: tuple[Any, str], tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in CHROME_FLAGS:
        options.add_argument("--window-size=1280,1000" if flag.startswith("--window-size") else flag)
    options.add_argument(f"--user-data-dir={tmp_path_factory.mktemp('profile')}")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    browser = webdriver.Chrome(options=options, service=Service(executable_path=CHROMEDRIVER))
    try:
        browser.get(server[1])
        wait(browser, lambda d: d.execute_script("return document.body.dataset.ready === '1';"))
        yield browser
    finally:
        browser.quit()


def wait(driver: Any, condition: Callable[[Any], Any], timeout: float = 10) -> Any:
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, timeout).until(condition)


def press(driver: Any, *keys: str) -> None:
    """Keys to whatever has the focus, as a user types them."""
    from selenium.webdriver.common.action_chains import ActionChains

    ActionChains(driver).send_keys(*keys).perform()


def cards(driver: Any) -> dict[str, dict[str, Any]]:
    """The claim cards of the document shown, by evidence."""
    return {c["evidence"]: c for c in driver.execute_script(
        "return [...document.querySelectorAll('.claim-card')].map(c => ({id: c.dataset.claim,"
        " status: c.dataset.status, kind: c.dataset.kind, evidence: c.querySelector('.head q').textContent,"
        " current: c.classList.contains('current')}));")}


def statuses(driver: Any) -> dict[str, tuple[str, str]]:
    return {e: (c["status"], c["kind"]) for e, c in cards(driver).items()}


def click(driver: Any, element: Any) -> None:
    """Click an element once it is in the middle of the window (clear of the sticky header)."""
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'});", element)
    element.click()


def shown_doc(driver: Any) -> str:
    return driver.execute_script("return document.querySelector('article.doc').dataset.doc;")


def open_doc(driver: Any, doc_id: str) -> None:
    click(driver, driver.find_element("css selector", f'#doclist a[data-doc="{doc_id}"]'))
    wait(driver, lambda d: shown_doc(d) == doc_id)


def select_words(driver: Any, words: str) -> None:
    """Select ``words`` of the abstract shown, as a mouse drag would."""
    assert driver.execute_script(
        "const ab = document.getElementById('abstract'), at = ab.textContent.indexOf(arguments[0]);"
        "if (at < 0) return false;"
        "const point = (i) => { const walk = document.createTreeWalker(ab, NodeFilter.SHOW_TEXT); let n, seen = 0;"
        " while ((n = walk.nextNode())) { if (i <= seen + n.data.length) return [n, i - seen]; seen += n.data.length; } };"
        "const r = document.createRange(); r.setStart(...point(at)); r.setEnd(...point(at + arguments[0].length));"
        "const s = getSelection(); s.removeAllRanges(); s.addRange(r); return true;", words)
    wait(driver, lambda d: d.execute_script("return !document.getElementById('selbar').hidden;"))


def progress(driver: Any) -> str:
    return driver.find_element("id", "progress-text").text


def test_review_session(driver: Any, server: tuple[Any, str], out: Path, tmp_path: Path) -> None:
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import Select

    assert progress(driver) == "0 / 11 claims reviewed · 0 / 5 documents"

    # 001#2: reject the hardware count, edit the lists from words of the text, then done
    open_doc(driver, "001#2")
    click(driver, driver.find_element("css selector", 'mark[data-claim="1425-1433"]'))
    press(driver, "r")
    wait(driver, lambda d: progress(d) == "1 / 11 claims reviewed · 0 / 5 documents")
    assert shown_doc(driver) == "001#2" and cards(driver)["2--4 T4s"]["current"]  # its last claim: stays
    assert statuses(driver)["2--4 T4s"] == ("rejected", "scale")
    press(driver, "k")
    assert cards(driver)["2-3x"]["current"]
    press(driver, "j")
    assert cards(driver)["2--4 T4s"]["current"]
    assert "s-rejected" in driver.find_element("css selector", 'mark[data-claim="1425-1433"]').get_attribute("class")
    click(driver, driver.find_element("css selector", '.list-row[data-list="hardware"] .chip[data-name="2--4 T4s"] button'))
    wait(driver, lambda d: not d.find_elements("css selector", '.chip[data-name="2--4 T4s"]'))
    select_words(driver, "HRM")
    click(driver, driver.find_element("xpath", "//div[@id='selbar']/button[normalize-space()='models']"))
    wait(driver, lambda d: d.find_elements("css selector", '.list-row[data-list="models"] .chip[data-name="HRM"]'))
    press(driver, "d")  # document done: the two pending claims accepted
    wait(driver, lambda d: shown_doc(d) == "004#1")

    # 000#1: fix the kind of 77.0%, add the missed 95.6% by selecting its words, then done
    open_doc(driver, "000#1")
    click(driver, driver.find_element("css selector", 'mark[data-claim="696-701"]'))
    press(driver, "e")
    kind = wait(driver, lambda d: d.find_element("css selector", "form.edit select[name=kind]"))
    assert driver.switch_to.active_element == kind  # the form opens on the kind
    Select(kind).select_by_value("accuracy")
    press(driver, Keys.ENTER)
    wait(driver, lambda d: statuses(d).get("77.0%") == ("edited", "accuracy"))
    select_words(driver, "95.6")  # part of the number: the parser takes the whole "95.6%"
    press(driver, "c")
    panel = wait(driver, lambda d: d.find_element("id", "add-panel"))
    assert panel.find_element("css selector", "q.evidence").text == "95.6%"
    press(driver, "3", Keys.ENTER)  # the third kind, accuracy
    wait(driver, lambda d: statuses(d).get("95.6%") == ("added", "accuracy"))
    assert progress(driver) == "5 / 12 claims reviewed · 1 / 5 documents"
    press(driver, "d")
    wait(driver, lambda d: progress(d) == "6 / 12 claims reviewed · 2 / 5 documents")

    # the abstract with markup stays text; a field with markup too
    open_doc(driver, "000#4")
    abstract = driver.find_element("id", "abstract")
    assert "<script>alert(1)</script> & \"quotes\"" in abstract.text
    assert driver.execute_script("return document.querySelectorAll('script').length;") == 1
    assert not driver.find_elements("css selector", "#doc i, #doc script")
    metric = driver.find_element("css selector", '.claim-card[data-claim="1128-1131"] dd[data-field="metric"]')
    assert "<i>vs.</i>" in metric.text
    assert cards(driver)["29 robot vs. human matches"]["current"]
    press(driver, "a")  # accept, and on to the next claim
    wait(driver, lambda d: cards(d)["45%"]["current"])
    assert statuses(driver)["29 robot vs. human matches"] == ("accepted", "scale")

    # 001#1: new words for a claim, chosen in the text while its edit form is open
    open_doc(driver, "001#1")
    click(driver, driver.find_element("css selector", 'mark[data-claim="1204-1213"]'))
    press(driver, "e")
    wait(driver, lambda d: d.find_element("css selector", "form.edit"))
    select_words(driver, "73× compared to a state-of-the-art embedded OS")
    click(driver, driver.find_element("xpath", "//form[@class='edit']//button[normalize-space()='use selected words']"))
    wait(driver, lambda d: "→ up to 73x" in d.find_element("css selector", "form.edit q.evidence").text)
    click(driver, driver.find_element("xpath", "//form[@class='edit']//button[starts-with(normalize-space(), 'Save')]"))
    wait(driver, lambda d: "up to 73× compared to a state-of-the-art embedded OS" in statuses(d))
    assert statuses(driver)["up to 73× compared to a state-of-the-art embedded OS"] == ("edited", "speedup")
    assert driver.find_element("css selector", 'mark[data-claim="1204-1213"]').text == (
        "up to 73× compared to a state-of-the-art embedded OS")

    # the filter: only documents and claims still to review
    press(driver, "u")
    shown = driver.execute_script("return [...document.querySelectorAll('#doclist a')].filter(a => !a.hidden).map(a => a.dataset.doc);")
    assert shown == ["000#4", "001#1", "004#1"]
    press(driver, "u")

    # reload: every decision is still there, and the page comes back where it was
    open_doc(driver, "001#1")
    driver.refresh()
    wait(driver, lambda d: d.execute_script("return document.body.dataset.ready === '1';"))
    assert shown_doc(driver) == "001#1"
    assert progress(driver) == "8 / 12 claims reviewed · 2 / 5 documents"
    open_doc(driver, "001#2")
    assert statuses(driver) == {"up to (10.3x)": ("accepted", "speedup"), "2-3x": ("accepted", "efficiency"),
                                "2--4 T4s": ("rejected", "scale")}
    chips = driver.execute_script(
        "return Object.fromEntries([...document.querySelectorAll('.list-row')].map(r =>"
        " [r.dataset.list, [...r.querySelectorAll('.chip')].map(c => c.dataset.name)]));")
    assert chips == {"system": ["MoE-Lightning"], "datasets": [], "hardware": ["T4 GPU (16GB)"],
                     "models": ["Mixtral 8x7B", "Mixtral 8x22B", "DBRX", "HRM"]}
    open_doc(driver, "000#1")
    assert statuses(driver) == {"94.6%": ("accepted", "accuracy"), "95.6%": ("added", "accuracy"),
                                "77.0%": ("edited", "accuracy")}
    assert [e["action"] for e in map(json.loads, (out / "review.jsonl").read_text().splitlines())] == [
        "reject", "lists", "lists", "accept", "accept", "confirm", "edit", "add", "accept", "confirm", "accept", "edit"]

    errors = [e for e in driver.get_log("browser") if e["level"] in ("SEVERE", "ERROR")]
    assert not errors, errors
    driver.set_window_size(1280, 1560)
    click(driver, driver.find_element("css selector", 'mark[data-claim="696-701"]'))
    select_words(driver, "CIFAR-100")
    driver.execute_script("window.scrollTo(0, 0);")
    shot = SCREENSHOT if os.environ.get("CLAIMS_UPDATE_DOCS") == "1" else tmp_path / "review.png"
    shot.parent.mkdir(parents=True, exist_ok=True)
    assert driver.save_screenshot(str(shot))
    assert shot.stat().st_size > 10_000

    # export the review and score against it
    proc, _url = server
    proc.send_signal(signal.SIGINT)
    proc.wait(timeout=15)
    gold = tmp_path / "gold.jsonl"
    export = run_claims(["review", str(out), "--export", str(gold)], dict(os.environ))
    _stdout, stderr = export.communicate(timeout=60)
    assert export.returncode == 0, stderr
    assert "2 reviewed document(s), 5 claim(s)" in stderr and "claims still pending: 000#4" in stderr

    def score(folder: Path) -> dict[str, Any]:
        run = run_claims(["eval", str(folder), "--gold", str(gold), "--json"], dict(os.environ))
        stdout, stderr = run.communicate(timeout=60)
        assert run.returncode == 0, stderr
        return json.loads(stdout)

    reviewed, unreviewed = score(out / "reviewed"), score(out)
    print(f"\nreviewed output: claims P {reviewed['claims']['precision']:.3f} R {reviewed['claims']['recall']:.3f}"
          f" kind acc {reviewed['kind_accuracy']:.3f}; unreviewed: P {unreviewed['claims']['precision']:.3f}"
          f" R {unreviewed['claims']['recall']:.3f} kind acc {unreviewed['kind_accuracy']:.3f}")
    assert reviewed["n_gold_docs"] == 2 and reviewed["n_gold_claims"] == 5
    assert reviewed["claims"]["precision"] == reviewed["claims"]["recall"] == 1.0
    assert reviewed["kind_accuracy"] == 1.0
    assert all(s["f1"] == 1.0 for s in reviewed["doc_lists"].values())
    assert unreviewed["claims"]["f1"] < 1.0
    assert unreviewed["claims"]["precision"] < 1.0 and unreviewed["claims"]["recall"] < 1.0
    assert unreviewed["kind_accuracy"] < 1.0


def test_offsets_count_code_points(driver: Any, tmp_path: Path) -> None:
    """Python counts code points, the browser UTF-16 units: text beyond the BMP (math letters)
    before a claim must not shift its highlight or the words a reviewer selects. (And a review
    log cut short by a crash is reported on the page.)"""
    text = "We bound memory by 𝒪(log 𝑛) and run 2.5x faster than 𝔹-tree indexes on 8 GPUs."
    start = text.index("2.5x")
    out = tmp_path / "out"
    out.mkdir()
    (out / "documents.jsonl").write_text(json.dumps({"doc_id": "m#0", "text": text, "status": "ok"}) + "\n")
    (out / "claims.jsonl").write_text(json.dumps({
        "doc_id": "m#0", "kind": "speedup", "value": 2.5, "unit": "x", "evidence": "2.5x",
        "start": start, "end": start + 4}) + "\n")
    (out / "review.jsonl").write_text('{"at": "2025-01-01T00:00:00+00:00", "who": "x", "doc_id": "m#0", "act')  # cut short
    proc = run_claims(["review", str(out), "--port", "0"], dict(os.environ))
    try:
        url = re.search(r"http://127\.0\.0\.1:\d+/", proc.stderr.readline()).group(0)
        driver.get(url)
        wait(driver, lambda d: d.execute_script("return document.body.dataset.ready === '1';"))
        assert driver.find_element("css selector", f'mark[data-claim="{start}-{start + 4}"]').text == "2.5x"
        warning = driver.find_element("id", "warnings")  # the damaged log is reported on the page
        assert warning.is_displayed() and "review.jsonl line 1: not valid JSON (cut short)" in warning.text
        select_words(driver, "8 GPUs")
        press(driver, "c")
        wait(driver, lambda d: d.find_element("id", "add-panel"))
        press(driver, "5", "\n")  # scale
        wait(driver, lambda d: "8 GPUs" in statuses(d))
        added = json.loads((out / "review.jsonl").read_text().splitlines()[-1])["after"]
        assert (added["evidence"], added["value"], added["unit"]) == ("8 GPUs", 8.0, "GPUs")
        assert text[added["start"]:added["end"]] == "8 GPUs"
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=15)
