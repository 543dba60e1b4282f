"""The HTML report in headless Chromium: highlights, charts, filters, console (selenium).

Needs the Debian packages ``chromium`` and ``chromium-driver`` and the pip package ``selenium``;
skipped with a reason when one is missing. Saves a screenshot to ``docs/report.png``.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any, Iterator, Optional

import pytest

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = ROOT / "tests" / "data" / "report_out"
SCREENSHOT = ROOT / "docs" / "report.png"
CHROME_FLAGS = (
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-dev-shm-usage", "--window-size=1280,2000", "--hide-scrollbars",
)


def _find(name: str, fallback: str) -> Optional[str]:
    """A binary on PATH or at its Debian location, else None."""
    found = shutil.which(name)
    return found or (fallback if Path(fallback).is_file() else None)


CHROMIUM = _find("chromium", "/usr/bin/chromium")
CHROMEDRIVER = _find("chromedriver", "/usr/bin/chromedriver")

if CHROMIUM is None:
    pytest.skip("no chromium binary found (apt-get install chromium chromium-driver)", allow_module_level=True)
if CHROMEDRIVER is None:
    pytest.skip("no chromedriver binary found (apt-get install chromium-driver)", allow_module_level=True)
webdriver = pytest.importorskip("selenium.webdriver", reason="selenium not installed (pip install selenium)")

from paper_claims.outputs.report import write_report  # noqa: E402


def _claims() -> list[dict]:
    lines = (FIXTURE / "claims.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


@pytest.fixture(scope="module")
def driver(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """Headless Chromium with a fresh profile, showing the fixture's report."""
    from selenium.webdriver.chrome.service import Service

    tmp = tmp_path_factory.mktemp("browser")
    for name in ("claims.jsonl", "documents.jsonl"):
        shutil.copy(FIXTURE / name, tmp / name)
    report = write_report(tmp)
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in CHROME_FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={tmp / 'profile'}")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    browser = webdriver.Chrome(options=options, service=Service(executable_path=CHROMEDRIVER))
    try:
        browser.get(report.as_uri())
        yield browser
    finally:
        browser.quit()


def _visible_docs(driver: Any) -> list[str]:
    return driver.execute_script(
        "return [...document.querySelectorAll('article.doc')]"
        ".filter(d => d.offsetParent !== null).map(d => d.dataset.doc);"
    )


def _set_kind(driver: Any, kind: str, checked: bool) -> None:
    box = driver.find_element("css selector", f'input.kind-filter[value="{kind}"]')
    if box.is_selected() != checked:
        box.click()


def _search(driver: Any, term: str) -> None:
    box = driver.find_element("id", "search")
    box.clear()
    if term:
        box.send_keys(term)
    else:  # clear() fires no input event
        driver.execute_script("arguments[0].dispatchEvent(new Event('input'));", box)


def test_every_claim_is_highlighted(driver: Any) -> None:
    marks = driver.execute_script(
        "return [...document.querySelectorAll('mark.claim')].map(m => {"
        "const r = m.getBoundingClientRect();"
        "return {doc: m.dataset.doc, start: +m.dataset.start, end: +m.dataset.end, kind: m.dataset.kind,"
        " text: m.textContent, w: r.width, h: r.height, bg: getComputedStyle(m).backgroundColor};});"
    )
    by_span = {(m["doc"], m["start"], m["end"]): m for m in marks}
    claims = _claims()
    assert len(marks) == len(claims)
    for claim in claims:
        mark = by_span[(claim["doc_id"], claim["start"], claim["end"])]
        assert mark["text"] == claim["evidence"] and mark["kind"] == claim["kind"]
        assert mark["w"] > 0 and mark["h"] > 0
        assert mark["bg"] not in ("rgba(0, 0, 0, 0)", "transparent")


def test_charts_rendered(driver: Any) -> None:
    sizes = driver.execute_script(
        "return [...document.querySelectorAll('svg.chart')].map(s => {"
        "const r = s.getBoundingClientRect(); return [s.dataset.chart, r.width, r.height];});"
    )
    assert {name for name, _w, _h in sizes} == {"kinds", "speedups"}
    assert all(w > 100 and h > 50 for _name, w, h in sizes)


def test_script_in_abstract_stays_text(driver: Any) -> None:
    assert driver.execute_script("return document.querySelectorAll('script').length;") == 1
    text = driver.find_element("id", "doc-000#4").text
    assert "<script>alert(1)</script>" in text


def test_kind_filter(driver: Any) -> None:
    everything = _visible_docs(driver)
    assert len(everything) == 6
    _set_kind(driver, "speedup", False)
    state = driver.execute_script(
        "return [...document.querySelectorAll('mark[data-kind=speedup]')]"
        ".map(m => [m.classList.contains('off'), getComputedStyle(m).backgroundColor]);"
    )
    assert state and all(off and bg == "rgba(0, 0, 0, 0)" for off, bg in state)
    visible = _visible_docs(driver)
    assert "001#1" not in visible  # only speedup claims
    assert {"001#9", "001#2", "000#1"} <= set(visible)  # also other kinds
    _set_kind(driver, "speedup", True)
    assert _visible_docs(driver) == everything
    for kind in ("efficiency", "accuracy", "improvement", "scale", "other"):
        _set_kind(driver, kind, False)
    assert set(_visible_docs(driver)) == {"001#1", "001#2", "001#9", "004#1"}  # + no-claims docs
    driver.find_element("id", "show-empty").click()
    assert set(_visible_docs(driver)) == {"001#1", "001#2", "001#9"}
    driver.find_element("id", "show-empty").click()
    for kind in ("efficiency", "accuracy", "improvement", "scale", "other"):
        _set_kind(driver, kind, True)
    assert _visible_docs(driver) == everything


def test_search_box(driver: Any) -> None:
    _search(driver, "hashattention")
    assert _visible_docs(driver) == ["001#9"]
    _search(driver, "NVIDIA T4")  # a claim field, not in the abstract text
    assert _visible_docs(driver) == ["001#2"]
    _search(driver, "ratelimiterror")
    assert _visible_docs(driver) == ["004#1"]
    _search(driver, "no such words anywhere")
    assert _visible_docs(driver) == []
    assert driver.find_element("id", "shown").text == "0 of 6 documents shown"
    _search(driver, "")
    assert len(_visible_docs(driver)) == 6


def test_no_console_errors_and_screenshot(driver: Any) -> None:
    from selenium.common.exceptions import NoAlertPresentException

    with pytest.raises(NoAlertPresentException):
        driver.switch_to.alert.text  # noqa: B018 - the abstract's alert(1) never ran
    errors = [e for e in driver.get_log("browser") if e["level"] in ("SEVERE", "ERROR")]
    assert not errors, errors
    driver.execute_script("window.scrollTo(0, 0);")
    SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
    assert driver.save_screenshot(str(SCREENSHOT))
    assert SCREENSHOT.stat().st_size > 10_000
