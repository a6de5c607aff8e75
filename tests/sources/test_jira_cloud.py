"""`jira:` on Jira Cloud (`/rest/api/3/search/jql`, paged by `nextPageToken`) and on Server (v2 search),
told apart once and remembered; errors in the server's own words. The answers are shaped as Atlassian
documents them (tests/sources/payloads/jira/), served by a loopback server that acts as each deployment.
"""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

import pytest

from hz.sources.base import SourceError
from hz.sources.cache import SourceCache
from hz.sources.jira_text import document_text
from tests.sources.helpers import fetch
from tests.sources.server import Reply, Request, Server, payload, static

WEEK = timedelta(days=7)
V2, V3, INFO = "/rest/api/2/search", "/rest/api/3/search/jql", "/rest/api/2/serverInfo"
TOKEN = "CgwI2pXSyQYQgKyY0QEYACIJUExBVC0xMDI="
JSON = {"Content-Type": "application/json"}


def _env(server: Server) -> dict[str, str]:
    return {"HZ_JIRA_BASE": server.url, "JIRA_TOKEN": "jira-secret", "JIRA_USER": "mira@example.org"}


def _gone(request: Request) -> Reply:
    return Reply(410, payload("jira/error-410-search-removed.json"), JSON)


def _cloud_pages(request: Request) -> Reply:
    page = "jira/cloud-search-2.json" if request.param("nextPageToken") == TOKEN else "jira/cloud-search-1.json"
    return Reply(200, payload(page), JSON)


def cloud(server: Server, *, info: bool = True) -> Server:
    """A Cloud site: v2's search is gone (410), v3's pages by token; `info`: it says Cloud in serverInfo."""
    if info:
        server.routes[INFO] = static(payload("jira/serverinfo-cloud.json"))
    server.routes[V2] = _gone
    server.routes[V3] = _cloud_pages
    return server


def _asked(server: Server, path: str) -> list[Request]:
    return [r for r in server.requests if r.path == path]


def test_cloud_is_searched_on_v3_paged_by_token_with_the_fields_hz_reads(server: Server, cache: SourceCache) -> None:
    cloud(server)
    result = fetch("jira:fjordlight/PLAT", cache, environ=_env(server), window=WEEK, query="issuetype = Bug")
    pages = _asked(server, V3)
    assert [r.param("nextPageToken") for r in pages] == [None, TOKEN]
    assert {r.param("startAt") for r in pages} == {None}
    assert pages[0].param("fields") == (
        "summary,status,issuetype,assignee,duedate,resolutiondate,created,updated,labels,priority"
    )
    assert pages[0].param("jql") == (
        'project = "PLAT" AND updated >= "2026/11/20 12:00" AND (issuetype = Bug) ORDER BY key ASC'
    )
    assert _asked(server, V2) == []
    assert result.facets["scope"] == ["PLAT-101", "PLAT-102", "PLAT-103"]
    assert result.facets["status"] == {"PLAT-101": "Done", "PLAT-102": "In Progress", "PLAT-103": "Blocked"}


def test_the_same_issues_on_cloud_and_on_server_give_the_same_facets(server: Server, tmp_path: Path) -> None:
    cloud(server)
    on_cloud = fetch("jira:fjordlight/PLAT", SourceCache(tmp_path / "c"), environ=_env(server), window=WEEK)
    server.routes[INFO] = static(payload("jira/serverinfo-server.json"))
    pages = [payload("jira-search-1.json"), payload("jira-search-2.json")]
    server.routes[V2] = lambda r: Reply(200, pages[0] if r.param("startAt") == "0" else pages[1], JSON)
    on_server = fetch("jira:fjordlight/PLAT", SourceCache(tmp_path / "s"), environ=_env(server), window=WEEK)
    assert on_cloud.fingerprints == on_server.fingerprints
    assert [r.param("startAt") for r in _asked(server, V2)] == ["0", "2"]


def test_the_deployment_is_asked_once_and_kept_in_the_source_cache(server: Server, cache: SourceCache) -> None:
    cloud(server)
    for _ in range(2):
        fetch("jira:fjordlight/PLAT", cache, environ=_env(server), window=WEEK, force=True)
    assert len(_asked(server, INFO)) == 1 and len(_asked(server, V3)) == 4


def test_a_site_that_does_not_say_learns_it_is_cloud_from_the_410(server: Server, cache: SourceCache) -> None:
    cloud(server, info=False)  # serverInfo unanswered (404), and the host is no atlassian.net: v2 first
    result = fetch("jira:fjordlight/PLAT", cache, environ=_env(server), window=WEEK)
    assert result.facets["scope"] == ["PLAT-101", "PLAT-102", "PLAT-103"]
    assert len(_asked(server, V2)) == 1
    fetch("jira:fjordlight/PLAT", cache, environ=_env(server), window=WEEK, force=True)
    assert len(_asked(server, V2)) == 1 and len(_asked(server, INFO)) == 1  # remembered: v3 straight away


@pytest.mark.parametrize(
    ("answer", "said"),
    [
        ("jira/error-400-jql.json", "The JQL names a field that is not known: sprintt."),
        ("jira/error-400-field.json", "jql: No project is known by the key PLATX."),
    ],
)
def test_a_refused_search_says_the_servers_own_words_and_a_hint(
    server: Server, cache: SourceCache, answer: str, said: str
) -> None:
    cloud(server)
    server.routes[V3] = lambda request: Reply(400, payload(answer), JSON)
    with pytest.raises(SourceError) as caught:
        fetch("jira:fjordlight/PLAT", cache, environ=_env(server), query="sprintt = 4")
    assert caught.value.render() == (
        f"error: Jira rejected the request for {server.url}{V3} (400 Bad Request: {said})\n"
        "  hint: check the input's `query`: it must be JQL that Jira accepts (the project and window are added by hz)"
    )


def test_a_server_repeating_its_next_page_token_is_stopped(server: Server, cache: SourceCache) -> None:
    cloud(server)
    server.routes[V3] = lambda request: Reply(200, payload("jira/cloud-search-1.json"), JSON)
    with pytest.raises(SourceError) as caught:
        fetch("jira:fjordlight/PLAT", cache, environ=_env(server))
    assert caught.value.message == (
        "Jira's search for jira:fjordlight/PLAT gave the same next page twice; hz stopped reading"
    )
    assert len(_asked(server, V3)) == 2


@pytest.mark.parametrize("total", ['"many"', "null", "1e300", "true"])
def test_a_server_total_of_any_shape_ends_the_paging(server: Server, cache: SourceCache, total: str) -> None:
    server.routes[INFO] = static(payload("jira/serverinfo-server.json"))
    page = payload("jira-search-1.json").replace(b'"total": 3', b'"total": ' + total.encode())
    server.routes[V2] = lambda request: Reply(200, page, JSON)
    result = fetch("jira:fjordlight/PLAT", cache, environ=_env(server))
    assert result.facets["scope"] == ["PLAT-101", "PLAT-102"]


def test_rich_text_of_v3_reads_as_its_words() -> None:
    page = json.loads(payload("jira/cloud-search-2.json"))
    description = page["issues"][0]["fields"]["description"]
    assert document_text(description) == "Renewals are manual today. @Mira K owns the rota"


def test_a_summary_written_as_a_document_stays_readable(server: Server, cache: SourceCache) -> None:
    cloud(server)
    page = json.loads(payload("jira/cloud-search-1.json"))
    page["issues"][0]["fields"]["summary"] = {
        "type": "doc",
        "version": 1,
        "content": [{"type": "paragraph", "content": [{"type": "text", "text": "Gateway rate limiting"}]}],
    }
    page["isLast"] = True
    server.routes[V3] = lambda request: Reply(200, json.dumps(page).encode(), JSON)
    result = fetch("jira:fjordlight/PLAT", cache, environ=_env(server))
    assert [i["summary"] for i in result.facets["items"]] == ["Gateway rate limiting", "Migrate the scheduler"]
