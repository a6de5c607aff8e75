"""The pages in Debian's headless chromium, driven by selenium through chromedriver, as a person uses them:
open the login link, see the list, open an agent, approve its draft, chat with it and find the message in
`hz heinzel show`, and watch a turn's steps arrive without reloading. Each page is kept as a screenshot
in docs/ for the README (rewritten only when HZ_SCREENSHOTS=1, so a test run leaves the checkout alone).
"""

from __future__ import annotations

import json
import os
import shutil
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.web.conftest import Hz, Served, agent_with_draft

CHROMIUM = shutil.which("chromium")
DRIVER = shutil.which("chromedriver")
DOCS = Path(__file__).resolve().parents[2] / "docs"
pytestmark = pytest.mark.skipif(
    CHROMIUM is None or DRIVER is None,
    reason="Debian's chromium and chromium-driver are not installed (.ci/run installs them)",
)


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[Any]:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    profile = f"--user-data-dir={tmp_path / 'profile'}"
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", profile,
                     "--window-size=1280,900", "--no-first-run"):  # fmt: skip
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service(str(DRIVER)), options=options)
    driver.set_page_load_timeout(30)
    try:
        yield driver
    finally:
        driver.quit()


def until(check: Callable[[], Any], timeout: float = 10.0) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        found = check()
        if found:
            return found
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def keep(driver: Any, name: str) -> None:
    """A screenshot of the page for the README, when asked for (HZ_SCREENSHOTS=1)."""
    if os.environ.get("HZ_SCREENSHOTS") == "1":
        driver.save_screenshot(str(DOCS / f"web-{name}.png"))


def team_day(repo: Path) -> None:
    """Two team contracts, one reading the other, and a day of their receipts: the graph has something to
    draw (who ran what, at what cost, what it drafted)."""
    from tests.graph.state import land, ran, team_contract

    flows = repo / "workflows"
    source = team_contract(flows, "changes", 1, title="Merged changes")
    digest = team_contract(flows, "digest", 2, title="Weekly digest", inputs={"src": "contract:team/changes#summary"})
    events = ran(source, "01M6DQS9M0FQR33EQ3KWJSCM4Q", {"commits": "a"}) + ran(
        digest, "01M6DQS9M0FQR33EQ3KWJSCM4R", {"src": "b"}, usd=1.5
    )
    land(repo, events, {source: ("@ann/m-0000000a", "owner"), digest: ("actions:4242", "actions")})


def test_a_person_uses_the_pages(hz: Hz, repo: Path, served: Served, browser: Any) -> None:
    from selenium.webdriver.common.by import By

    agent = agent_with_draft(hz, repo)
    agent_with_draft(hz, repo, "standup")
    browser.get(served.login)
    assert browser.current_url == f"{served.base}/"  # the code left the address bar
    rows = browser.find_elements(By.CSS_SELECTOR, "table.agents tr[data-agent]")
    assert sorted(r.find_element(By.TAG_NAME, "a").text for r in rows) == ["me:note", "me:standup"]
    until(lambda: browser.find_element(By.ID, "live-status").is_displayed())  # the script runs under the CSP
    keep(browser, "list")

    browser.find_element(By.LINK_TEXT, "me:note").click()
    assert browser.current_url == f"{served.base}/heinzel/{agent}"
    (draft,) = browser.find_elements(By.CSS_SELECTOR, "#pending [data-draft]")
    key = draft.get_attribute("data-draft")
    keep(browser, "agent")

    draft.find_element(By.CSS_SELECTOR, "button.approve").click()
    (notice,) = until(lambda: browser.find_elements(By.CSS_SELECTOR, ".notice"))
    assert notice.text == "approved"
    assert hz("tick").exit_code == 0  # approval is bookkeeping the next tick records (the tag line went)
    browser.refresh()
    assert browser.find_elements(By.CSS_SELECTOR, "#pending [data-draft]") == []
    drafts = json.loads(hz("heinzel", "show", "note", "--json").out)["drafts"]
    assert [(d["key"], d["status"]) for d in drafts] == [(key, "approved")]

    box = browser.find_element(By.CSS_SELECTOR, "form.say textarea")
    box.send_keys("keep the note under ten lines <b>please</b>")
    browser.find_element(By.CSS_SELECTOR, "form.say button").click()
    until(lambda: "notice=" in browser.current_url)
    said = until(lambda: browser.find_elements(By.CSS_SELECTOR, "aside.chat .said"))
    assert said[-1].text == "keep the note under ten lines <b>please</b>"  # as text, not markup
    shown = hz("heinzel", "show", "note")
    assert "keep the note under ten lines <b>please</b>" in shown.out
    keep(browser, "chat")

    browser.execute_script("window.hzStillHere = true;")
    before = len(browser.find_elements(By.CSS_SELECTOR, "#live-steps li"))
    assert hz("heinzel", "wake", "note").exit_code == 0  # a turn runs in another place; the page only listens
    until(lambda: browser.find_elements(By.CSS_SELECTOR, '#live-steps li[data-kind="turn.finished"]'))
    steps = browser.find_elements(By.CSS_SELECTOR, "#live-steps li")
    assert len(steps) > before and browser.execute_script("return window.hzStillHere === true;")
    assert any("turn.started" in s.text for s in steps)
    keep(browser, "live")

    team_day(repo)
    for path, name in (("/drafts", "drafts"), ("/graph", "graph"), ("/why?contract=team:digest", "why")):
        browser.get(f"{served.base}{path}")
        assert browser.find_elements(By.TAG_NAME, "h1") and not browser.find_elements(By.CSS_SELECTOR, "[data-error]")
        keep(browser, name)
    logs = browser.get_log("browser") if hasattr(browser, "get_log") else []
    assert [entry for entry in logs if "Content Security Policy" in str(entry)] == []


def test_the_drafts_page_shows_a_new_draft_without_reloading(hz: Hz, repo: Path, served: Served, browser: Any) -> None:
    from selenium.webdriver.common.by import By

    browser.get(served.login)
    browser.get(f"{served.base}/drafts")
    assert browser.find_element(By.CSS_SELECTOR, "p.none").text == "no drafts wait for you"
    until(lambda: browser.find_element(By.ID, "live-status").is_displayed())
    browser.execute_script("window.hzStillHere = true;")
    agent_with_draft(hz, repo)  # a turn in another process places a draft
    (row,) = until(lambda: browser.find_elements(By.CSS_SELECTOR, "table.drafts tr[data-draft]"))
    assert row.find_element(By.TAG_NAME, "td").text == "me:note"
    assert browser.execute_script("return window.hzStillHere === true;")  # the same page, not a reload
    row.find_element(By.CSS_SELECTOR, "button.approve").click()  # the redrawn page's forms work
    (notice,) = until(lambda: browser.find_elements(By.CSS_SELECTOR, ".notice"))
    assert notice.text == "approved"
