"""The dashboard in a real browser: Debian's chromium, headless, driven by Selenium through Debian's
chromedriver (both named by path: nothing is downloaded, Selenium Manager is never asked), over a database
`hil db import` filled with real results files (tests/data/results).

With HIL_SCREENSHOTS=DIR the pages are also saved there as PNG (the docs' images: docs/dashboard.md).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.selenium_manager import SeleniumManager

from hil.db.cli import main as hil_db

from .test_pages import _store  # 25 builds, reads 20% slower from rc15 on

RESULTS = Path(__file__).resolve().parents[1] / "data" / "results"
CHROMIUM, CHROMEDRIVER = Path("/usr/bin/chromium"), Path("/usr/bin/chromedriver")
REFERENCE_RUN, CANDIDATE_RUN = "20261125T122725Z-bf19f9", "20261125T132749Z-59ca49"  # the files' runs
STORED = ("before-observed-msc.json", "vlab-build-msc.json")  # one pair, two builds: what the pages show


@pytest.fixture
def browser(monkeypatch):
    missing = [str(path) for path in (CHROMIUM, CHROMEDRIVER) if not path.exists()]
    if missing:
        pytest.fail(f"{', '.join(missing)} not installed (Debian's chromium chromium-driver: scripts/setup.sh --bench)")

    def no_download(*args, **kwargs):
        raise AssertionError("Selenium Manager was asked for a browser or a driver")

    monkeypatch.setattr(SeleniumManager, "binary_paths", no_download)
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1280,900"):
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service(executable_path=str(CHROMEDRIVER)), options=options)
    driver.implicitly_wait(5)
    yield driver
    driver.quit()


@pytest.fixture
def store(tmp_path):
    reports = tmp_path / "reports"
    assert hil_db(["--hil-reports", str(reports), "import", *(str(RESULTS / name) for name in STORED)]) == 0
    return reports


def _shot(driver, name: str) -> None:
    folder = os.environ.get("HIL_SCREENSHOTS")
    if folder:
        height = driver.execute_script("return document.body.scrollHeight")
        driver.set_window_size(1280, min(max(height + 40, 500), 1400))
        driver.save_screenshot(str(Path(folder) / f"dashboard-{name}.png"))


def test_matrix_then_a_gate_then_a_history_then_a_run(browser, store, serve):
    server = serve(store)
    browser.get(server.url + "/")
    matrix = browser.find_element(By.ID, "hil-matrix")
    assert [th.text for th in matrix.find_elements(By.CSS_SELECTOR, "tr:first-child th")][3:] == ["vlab-hs"]
    rows = [row.find_element(By.TAG_NAME, "th").text for row in matrix.find_elements(By.CSS_SELECTOR, "tr")[1:]]
    assert rows == ["vlab-ref", f"run {REFERENCE_RUN}"]  # the newest build first; a run without a build on its own
    _shot(browser, "matrix")

    browser.find_element(By.CSS_SELECTOR, 'a[title="vlab-ref on vlab-hs"]').click()
    assert browser.find_element(By.TAG_NAME, "h1").text == "Release gate: candidate vlab-ref 2026.11 (1 run)"
    assert browser.find_element(By.ID, "hil-gate").text.startswith("PASS: no regression, no band failure (2 metrics")
    sides = browser.find_element(By.XPATH, "//p[starts-with(., 'Reference:')]").text
    assert sides == f"Reference: run {REFERENCE_RUN} (1 run): {REFERENCE_RUN}\nCandidate: {CANDIDATE_RUN}"
    read = browser.find_element(By.XPATH, "//tr[td/a[text()='usb.msc.read[bs=1M]']]").text
    assert "80.87 MB/s 82.28 MB/s +1.7% 5.0% PASS" in read  # the real runs' medians; the smallest drop it catches
    _shot(browser, "gate")

    browser.find_element(By.LINK_TEXT, "usb.msc.read[bs=1M]").click()
    assert browser.find_element(By.TAG_NAME, "h1").text == "usb.msc.read[bs=1M] on vlab-hs"
    plot = browser.find_element(By.ID, "hil-trend")
    labels = [label.text for label in plot.find_elements(By.CSS_SELECTOR, "text.hil-x-label")]
    assert labels == ["2026-11-25 12:27", "vlab-ref"]  # each run named on the plot: its build, else when it ran
    assert {"80.87", "82.28"} <= {text.text for text in plot.find_elements(By.TAG_NAME, "text")}
    history = browser.find_element(By.ID, "hil-history").text
    assert history.index(CANDIDATE_RUN) < history.index(REFERENCE_RUN)  # newest first
    _shot(browser, "history")

    browser.find_element(By.LINK_TEXT, CANDIDATE_RUN).click()
    assert browser.find_element(By.TAG_NAME, "h1").text == f"Run {CANDIDATE_RUN}"
    samples = browser.find_elements(By.CSS_SELECTOR, "table.hil-samples")
    assert len(samples) == 2 and "warm-up" in samples[0].text  # both results, each with every sample


def test_a_blocked_cell_names_the_metric_and_its_change_and_opens_its_gate(browser, tmp_path, serve):
    """The matrix cell is the release gate against the build before it (hil.db.gates), the one `hil compare` and
    the gate page decide: the build where reads fell 20% is BLOCKED, and says which metric fell by how much."""
    _store(tmp_path)
    server = serve(tmp_path)
    browser.get(server.url + "/")
    cell = browser.find_element(By.CSS_SELECTOR, 'a[href="/gate?candidate=rc15&board=vboard-hs"]')
    gate, why = cell.text.splitlines()[:2]
    assert gate == "BLOCKED" and re.fullmatch(r"usb\.msc\.read\[bs=1M\] -20\.\d%", why), cell.text
    _shot(browser, "matrix-blocked")
    cell.click()
    assert browser.find_element(By.ID, "hil-gate").text.startswith(
        "BLOCKED: vboard-hs usb.msc.read[bs=1M] (regression)"
    )


def test_a_page_for_nothing_stored_says_so(browser, store, serve):
    server = serve(store)
    browser.get(server.url + "/run/no-such-run")
    assert browser.find_element(By.ID, "hil-message").text == "no run no-such-run"
