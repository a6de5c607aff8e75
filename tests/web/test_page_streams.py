"""The drafts, graph and why pages are live: their streams say `changed` when what the page drew changed
(a spine append, a draft placed, the team's state or leases moved), and nothing while it did not."""

from __future__ import annotations

import html
import re
import time
from pathlib import Path

import httpx

from tests.web.conftest import Hz, Served, agent_with_draft
from tests.web.test_browser import team_day
from tests.web.test_live import opened


def stream_of(served: Served, path: str) -> str:
    """The stream the page at `path` names (with the digest of what it drew)."""
    page = httpx.get(f"{served.base}{path}", headers=served.bearer, timeout=30)
    assert page.status_code == 200, page.text
    found = re.search(r'data-stream="([^"]+)"', page.text)
    assert found is not None, page.text
    return html.unescape(found.group(1))


def test_the_drafts_stream_says_changed_when_a_draft_is_placed(hz: Hz, repo: Path, served: Served) -> None:
    url = stream_of(served, "/drafts")
    assert url.startswith("/events/drafts?since=")
    for stream in opened(served, url):
        time.sleep(0.5)
        assert stream.events == []  # the page is current: nothing to say
        agent_with_draft(hz, repo)  # a draft placed by a turn in another place
        changed = stream.wait_for(lambda e: e["event"] == "changed", timeout=10)
        assert changed["id"] == changed["data"]["digest"]
    assert stream_of(served, "/drafts") == f"/events/drafts?since={changed['id']}"  # the page draws just that
    for stream in opened(served, "/events/drafts?since=stale"):  # drawn before a change: told at once
        assert stream.wait_for(lambda e: e["event"] == "changed")["id"] == changed["id"]
    for stream in opened(served, "/events/drafts?since=stale", changed["id"]):  # a reconnect that heard it
        time.sleep(0.5)
        assert stream.events == []


def test_the_graph_and_why_streams_say_changed_when_the_team_state_moves(repo: Path, served: Served) -> None:
    from tests.graph.state import team_contract

    team_contract(repo / "workflows", "changes", 1, title="Merged changes")
    team_contract(repo / "workflows", "digest", 2, title="Weekly digest",
                  inputs={"src": "contract:team/changes#summary"})  # fmt: skip
    graph = stream_of(served, "/graph")
    why = stream_of(served, "/why?contract=team:digest")
    assert why.startswith("/events/why?contract=team%3Adigest&since=")
    for graph_stream in opened(served, graph):
        for why_stream in opened(served, why):
            time.sleep(0.5)
            assert graph_stream.events == why_stream.events == []
            team_day(repo)  # the team's receipts and leases land on hz/state and refs/hz/lease/*
            graph_stream.wait_for(lambda e: e["event"] == "changed", timeout=10)
            why_stream.wait_for(lambda e: e["event"] == "changed", timeout=10)


def test_a_page_stream_of_a_refused_question_is_refused_as_the_page_is(served: Served) -> None:
    answer = httpx.get(f"{served.base}/events/why?contract=nothing-here", headers=served.bearer, timeout=30)
    page = httpx.get(f"{served.base}/why?contract=nothing-here", headers=served.bearer, timeout=30)
    assert answer.status_code == page.status_code >= 400
