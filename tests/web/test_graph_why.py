"""The graph page (hz graph --html grown into the app) and the why view, over a team's receipts, with
contract titles that are hostile markup."""

from __future__ import annotations

from pathlib import Path

import httpx

from tests.graph.test_html import hostile_team
from tests.web.conftest import Served
from tests.web.test_pages import Page

NOWHERE = "http://127.0.0.1:9"


def test_the_graph_page_draws_runs_actors_and_outputs(repo: Path, served: Served) -> None:
    names = hostile_team(repo, NOWHERE)
    answer = httpx.get(f"{served.base}/graph", headers=served.bearer, timeout=60)
    assert answer.status_code == 200, answer.text
    page = Page(answer.text)
    drawn = sorted(str(a["data-contract"]) for _, a in page.tags if "data-contract" in a)
    assert drawn == names and sorted(str(a["data-card"]) for _, a in page.tags if "data-card" in a) == names
    assert page.scripts() == [{"src": "/static/app.js", "defer": None}] and page.handlers() == []
    assert [t for t, _ in page.tags if t == "img"] == []
    text = "".join(page.text)
    assert f'<script>fetch("{NOWHERE}/script")</script>' in text  # a title, as text
    assert "actions:4242" in text and "@ann/m-0000000a" in text  # who ran each slot
    outputs = [str(a["data-write"]) for t, a in page.tags if t == "tr" and "data-write" in a]
    assert sorted(outputs) == ["team:reader", "team:source"]  # what each drafted
    style = httpx.get(f"{served.base}/graph.css", headers=served.bearer)
    assert style.headers["content-type"].startswith("text/css") and ".edge.observed" in style.text


def test_the_why_view_answers_for_a_contract(repo: Path, served: Served) -> None:
    hostile_team(repo, NOWHERE)
    answer = httpx.get(f"{served.base}/why", params={"contract": "team:source"}, headers=served.bearer, timeout=60)
    assert answer.status_code == 200, answer.text
    assert "data-why" in answer.text
    unknown = httpx.get(f"{served.base}/why", params={"contract": "team:nothing"}, headers=served.bearer, timeout=60)
    assert unknown.status_code in (200, 400, 404) and "Traceback" not in unknown.text
