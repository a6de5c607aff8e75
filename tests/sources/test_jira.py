from __future__ import annotations

import base64
import json
from datetime import timedelta
from pathlib import Path

import pytest

from hz.sources.base import SourceError
from hz.sources.cache import SourceCache
from tests.sources.helpers import fetch
from tests.sources.server import Reply, Request, Server, payload, static, status

WEEK = timedelta(days=7)
SEARCH = "/rest/api/2/search"


def _search(server: Server, pages: list[bytes]) -> None:
    def route(request: Request) -> Reply:
        start = int(request.param("startAt") or 0)
        return Reply(200, pages[0] if start == 0 else pages[1], {"Content-Type": "application/json"})

    server.routes[SEARCH] = route


@pytest.fixture
def jira(server: Server) -> Server:
    """A Jira Server site: it says so in its serverInfo, and searches on v2."""
    server.routes["/rest/api/2/serverInfo"] = static(payload("jira/serverinfo-server.json"))
    _search(server, [payload("jira-search-1.json"), payload("jira-search-2.json")])
    return server


def searches(server: Server) -> list[Request]:
    return [r for r in server.requests if r.path == SEARCH]


def _env(server: Server, **more: str) -> dict[str, str]:
    return {"HZ_JIRA_BASE": server.url, "JIRA_TOKEN": "jira-secret", **more}


def test_issues_paged_by_start_at_and_split_into_facets(jira: Server, cache: SourceCache) -> None:
    result = fetch(
        "jira:fjordlight/PLAT", cache, environ=_env(jira), window=WEEK, query="issuetype in (Story, Bug, Epic)"
    )
    assert [r.param("startAt") for r in searches(jira)] == ["0", "2"]
    assert searches(jira)[0].param("jql") == (
        'project = "PLAT" AND updated >= "2026/11/20 12:00" AND (issuetype in (Story, Bug, Epic)) ORDER BY key ASC'
    )
    assert searches(jira)[0].headers["authorization"] == "Bearer jira-secret"
    assert result.facets["scope"] == ["PLAT-101", "PLAT-102", "PLAT-103"]
    assert [i["key"] for i in result.facets["done"]] == ["PLAT-101"]
    assert [i["key"] for i in result.facets["in_progress"]] == ["PLAT-102", "PLAT-103"]
    assert [i["key"] for i in result.facets["blocked"]] == ["PLAT-103"]
    assert result.facets["status"] == {"PLAT-101": "Done", "PLAT-102": "In Progress", "PLAT-103": "Blocked"}
    assert result.facets["dates"] == {
        "PLAT-101": {"resolved": "2026-11-26T14:03:11Z"},
        "PLAT-102": {"due": "2026-12-15"},
        "PLAT-103": {},
    }
    assert result.facets["items"][1] == {
        "key": "PLAT-102",
        "summary": "Migrate the scheduler",
        "type": "Epic",
        "status": "In Progress",
        "category": "in_progress",
        "assignee": "Mira K",
        "priority": "Medium",
        "labels": [],
        "due": "2026-12-15",
        "created": "2026-10-01T09:00:00Z",
        "url": f"{jira.url}/browse/PLAT-102",
    }


def test_basic_auth_when_a_user_is_given(jira: Server, cache: SourceCache) -> None:
    fetch("jira:fjordlight/PLAT", cache, environ=_env(jira, JIRA_USER="mira@example.org"))
    expected = "Basic " + base64.b64encode(b"mira@example.org:jira-secret").decode()
    assert searches(jira)[0].headers["authorization"] == expected


def test_watch_counts_and_update_times_are_immaterial(jira: Server, tmp_path: Path) -> None:
    first = fetch("jira:fjordlight/PLAT", SourceCache(tmp_path / "a"), environ=_env(jira), window=WEEK)
    page = json.loads(payload("jira-search-1.json"))
    for issue in page["issues"]:
        issue["fields"]["watches"]["watchCount"] += 3
        issue["fields"]["comment"]["total"] += 1
    page["issues"].reverse()
    _search(jira, [json.dumps(page).encode(), payload("jira-search-2.json")])
    second = fetch("jira:fjordlight/PLAT", SourceCache(tmp_path / "b"), environ=_env(jira), window=WEEK)
    assert second.fingerprints == first.fingerprints


def test_a_status_change_moves_status_facets_but_not_scope(jira: Server, tmp_path: Path) -> None:
    first = fetch("jira:fjordlight/PLAT", SourceCache(tmp_path / "a"), environ=_env(jira), window=WEEK)
    page = json.loads(payload("jira-search-2.json"))
    page["issues"][0]["fields"]["status"]["name"] = "In Review"
    _search(jira, [payload("jira-search-1.json"), json.dumps(page).encode()])
    second = fetch("jira:fjordlight/PLAT", SourceCache(tmp_path / "b"), environ=_env(jira), window=WEEK)
    moved = sorted(f for f in first.fingerprints if first.fingerprints[f] != second.fingerprints[f])
    assert moved == ["blocked", "in_progress", "items", "status"]


def test_401_names_the_token_variable(server: Server, cache: SourceCache) -> None:
    server.routes[SEARCH] = status(401)
    with pytest.raises(SourceError) as caught:
        fetch("jira:fjordlight/PLAT", cache, environ=_env(server))
    assert caught.value.render() == (
        f"error: Jira refused the request for {server.url}{SEARCH} (401 Unauthorized: nope)\n"
        "  hint: set JIRA_TOKEN to a token that may read it"
    )
    assert not cache.root.exists()


def test_a_body_without_issues_is_malformed(server: Server, cache: SourceCache) -> None:
    server.routes[SEARCH] = lambda request: Reply(200, b"<html>login</html>", {"Content-Type": "text/html"})
    with pytest.raises(SourceError) as caught:
        fetch("jira:fjordlight/PLAT", cache, environ=_env(server))
    assert caught.value.message == "Jira answered the search for jira:fjordlight/PLAT with no issue list"


def test_an_order_by_in_the_query_is_left_out(jira: Server, cache: SourceCache) -> None:
    fetch("jira:fjordlight/PLAT", cache, environ=_env(jira), query="status = Blocked order by updated DESC")
    assert searches(jira)[0].param("jql") == 'project = "PLAT" AND (status = Blocked) ORDER BY key ASC'
