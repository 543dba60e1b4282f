"""``claims review`` of a custom schema's output in headless Chromium: the page shows the
schema's fields, and a reviewer edits a span field and a choice in the edit form."""

from __future__ import annotations

import os
import re
import signal
from pathlib import Path
from typing import Any, Iterator

import pytest

from tests.conftest import read_jsonl, run_claims
from tests.fakeserver import FakeServer
from tests.test_report_browser import CHROME_FLAGS, CHROMEDRIVER, CHROMIUM, webdriver  # skips without a browser
from tests.test_review_browser import click, wait
from tests.test_schema import TEXTS, _settings

pytestmark = pytest.mark.browser
pytest.importorskip("fastapi", reason="the review extra is not installed (pip install 'paper-claims[review]')")
pytest.importorskip("uvicorn", reason="the review extra is not installed (pip install 'paper-claims[review]')")


@pytest.fixture()
def page(tmp_path: Path) -> Iterator[tuple[Any, Path]]:
    from selenium.webdriver.chrome.service import Service

    from paper_claims import extract_claims

    out = tmp_path / "out"
    with FakeServer() as server:
        extract_claims(TEXTS, out=out, settings=_settings(server, tmp_path))
    proc = run_claims(["review", str(out), "--port", "0", "--reviewer", "browser-test"], dict(os.environ))
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in CHROME_FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={tmp_path / 'profile'}")
    browser = None
    try:
        found = re.search(r"http://127\.0\.0\.1:\d+/", proc.stderr.readline())
        assert found
        browser = webdriver.Chrome(options=options, service=Service(executable_path=CHROMEDRIVER))
        browser.get(found.group(0))
        wait(browser, lambda d: d.execute_script("return document.body.dataset.ready === '1';"))
        yield browser, out
    finally:
        if browser is not None:
            browser.quit()
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=15)


def test_a_reviewer_edits_a_custom_schema_claim(page: tuple[Any, Path]) -> None:
    from selenium.webdriver.common.by import By

    driver, out = page
    card = driver.find_elements(By.CSS_SELECTOR, ".claim-card")[0]
    terms = [dt.text for dt in card.find_elements(By.CSS_SELECTOR, "dt")]
    assert terms == ["entity", "property", "mean"]  # the schema's fields, not the built-in ones
    click(driver, card.find_element(By.CSS_SELECTOR, "button[data-act=edit]"))
    form = wait(driver, lambda d: d.find_element(By.CSS_SELECTOR, "form.edit"))
    assert form.find_elements(By.NAME, "metric") == [] and form.find_elements(By.NAME, "entity")
    entity = form.find_element(By.NAME, "entity")
    entity.clear()
    entity.send_keys("quartz sand")
    form.find_element(By.CSS_SELECTOR, "select[name=mean] option[value=false]").click()
    click(driver, form.find_element(By.CSS_SELECTOR, "button[type=submit]"))
    wait(driver, lambda d: not d.find_elements(By.CSS_SELECTOR, "form.edit"))
    logged = read_jsonl(out / "review.jsonl")
    assert logged[-1]["action"] == "edit" and logged[-1]["after"]["entity"] == "quartz sand"
    assert logged[-1]["after"]["mean"] is False and logged[-1]["after"]["entity_start"] == TEXTS[0]["text"].index("quartz")
