from __future__ import annotations

import json
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from hz.sources.base import SourceError
from hz.sources.cache import SourceCache
from hz.sources.window import iso
from tests.sources.conftest import NOW
from tests.sources.helpers import fetch
from tests.sources.server import Reply, Request, Server, payload, static, status

WEEK = timedelta(days=7)
PULLS = "/repos/fjordlight/api/pulls"


def _pages(server: Server, path: str, names: list[str | bytes]) -> None:
    """Serve payload pages at `path?page=N`, linked with `Link: rel="next"`, each with its own ETag."""

    def route(request: Request) -> Reply:
        number = int(request.param("page") or 1)
        name = names[number - 1]
        body = name if isinstance(name, bytes) else payload(name)
        etag = f'"{path}-{number}-{len(body)}"'
        headers = {"Content-Type": "application/json", "ETag": etag}
        if number < len(names):
            headers["Link"] = f'<{server.url}{path}?page={number + 1}&per_page=100>; rel="next"'
        if request.headers.get("if-none-match") == etag:
            return Reply(304, b"", headers)
        return Reply(200, body, headers)

    server.routes[path] = route


def _env(server: Server, **more: str) -> dict[str, str]:
    return {"HZ_GITHUB_API": server.url, "GITHUB_TOKEN": "ghp_secret_token_value", **more}


@pytest.fixture
def api(server: Server) -> Server:
    _pages(server, PULLS, ["github-pulls-api-1.json", "github-pulls-api-2.json", "github-pulls-api-3.json"])
    _pages(server, "/repos/fjordlight/web/pulls", ["github-pulls-web-1.json"])
    server.routes["/orgs/fjordlight/repos"] = static(payload("github-repos.json"))
    server.routes["/repos/fjordlight/guild/issues"] = static(payload("github-issues-guild.json"))
    return server


def test_pulls_of_one_repository_by_facet(api: Server, cache: SourceCache) -> None:
    result = fetch("github:fjordlight/api/pulls", cache, environ=_env(api), window=WEEK)
    assert [p["number"] for p in result.facets["merged"]] == [41, 42]
    assert [p["number"] for p in result.facets["opened"]] == [40, 41]
    assert [p["number"] for p in result.facets["closed"]] == [39]
    assert [p["number"] for p in result.facets["items"]] == [39, 40, 41, 42]
    assert result.facets["merged"][1] == {
        "repo": "fjordlight/api",
        "number": 42,
        "title": "Add rate limiting to the gateway",
        "url": "https://github.com/fjordlight/api/pull/42",
        "state": "closed",
        "author": "mira-k",
        "labels": ["platform"],
        "created": "2026-11-20T09:00:00Z",
        "closed": "2026-11-26T15:00:00Z",
        "merged": "2026-11-26T15:00:00Z",
        "base": "main",
        "draft": False,
    }


def test_paging_follows_link_headers_and_stops_before_the_window(api: Server, cache: SourceCache) -> None:
    fetch("github:fjordlight/api/pulls", cache, environ=_env(api), window=WEEK)
    assert [r.param("page") for r in api.requests] == [None, "2", "3"]
    assert api.requests[0].param("sort") == "updated"
    assert api.requests[0].headers["authorization"] == "Bearer ghp_secret_token_value"


def test_the_token_is_never_written_to_the_cache(api: Server, cache: SourceCache) -> None:
    fetch("github:fjordlight/api/pulls", cache, environ=_env(api), window=WEEK)
    for path in cache.root.rglob("*.json"):
        assert "ghp_secret_token_value" not in path.read_text()


def test_304_on_every_page_keeps_the_fingerprint(api: Server, cache: SourceCache) -> None:
    first = fetch("github:fjordlight/api/pulls", cache, environ=_env(api), window=WEEK)
    again = fetch("github:fjordlight/api/pulls", cache, environ=_env(api), window=WEEK, now=NOW + timedelta(minutes=5))
    assert again.how == "fetched"
    assert again.fingerprints == first.fingerprints
    assert [r.headers.get("if-none-match") is not None for r in api.requests[3:]] == [True, True, True]


def test_a_repository_glob_with_a_topic_query(api: Server, cache: SourceCache) -> None:
    result = fetch("github:fjordlight/*/pulls", cache, environ=_env(api), window=WEEK, query="topic:platform is:merged")
    assert [(p["repo"], p["number"]) for p in result.facets["merged"]] == [
        ("fjordlight/api", 41),
        ("fjordlight/api", 42),
        ("fjordlight/web", 7),
    ]
    assert result.facets["closed"] == []


def test_label_and_author_filters(api: Server, cache: SourceCache) -> None:
    result = fetch("github:fjordlight/api/pulls", cache, environ=_env(api), window=WEEK, query="author:mira-k")
    assert [p["number"] for p in result.facets["items"]] == [39, 42]


def test_issues_leave_pull_requests_out_and_drop_counters(api: Server, tmp_path: Path) -> None:
    first = fetch(
        "github:fjordlight/guild/issues", SourceCache(tmp_path / "a"), environ=_env(api), window=WEEK, query="label:til"
    )
    assert [i["number"] for i in first.facets["items"]] == [16, 18]
    assert [i["number"] for i in first.facets["closed"]] == [18]
    assert "merged" not in first.facets
    issues = json.loads(payload("github-issues-guild.json"))
    for issue in issues:
        issue["comments"] += 5
        issue["reactions"]["total_count"] += 5
    issues.reverse()
    api.routes["/repos/fjordlight/guild/issues"] = static(json.dumps(issues).encode())
    second = fetch(
        "github:fjordlight/guild/issues", SourceCache(tmp_path / "b"), environ=_env(api), window=WEEK, query="label:til"
    )
    assert second.fingerprints == first.fingerprints


def test_a_material_change_moves_exactly_the_affected_facet(api: Server, tmp_path: Path) -> None:
    first = fetch("github:fjordlight/api/pulls", SourceCache(tmp_path / "a"), environ=_env(api), window=WEEK)
    pulls = json.loads(payload("github-pulls-api-2.json"))
    pulls[0]["title"] = "Draft: rewrite the scheduler from scratch"
    _pages(api, PULLS, ["github-pulls-api-1.json", json.dumps(pulls).encode(), "github-pulls-api-3.json"])
    second = fetch("github:fjordlight/api/pulls", SourceCache(tmp_path / "b"), environ=_env(api), window=WEEK)
    moved = {f for f in first.fingerprints if first.fingerprints[f] != second.fingerprints[f]}
    assert moved == {"items", "opened"}


def _failure(server: Server, cache: SourceCache, environ: dict[str, str] | None = None) -> SourceError:
    with pytest.raises(SourceError) as caught:
        fetch("github:fjordlight/api/pulls", cache, environ=environ or _env(server), window=WEEK)
    assert not cache.root.exists(), "a failed fetch writes nothing"
    assert "ghp_secret_token_value" not in caught.value.render()
    return caught.value


def test_401_names_the_token_variable(server: Server, cache: SourceCache) -> None:
    server.routes[PULLS] = status(401, b'{"message": "Bad credentials"}')
    assert _failure(server, cache).render() == (
        f"error: GitHub refused the request for {server.url}{PULLS} (401 Unauthorized: Bad credentials)\n"
        "  hint: set GITHUB_TOKEN to a token that may read it"
    )


def test_404_is_not_found(server: Server, cache: SourceCache) -> None:
    error = _failure(server, cache)
    assert (error.code, error.message) == ("not-found", f"GitHub has nothing at {server.url}{PULLS} (404 Not Found)")


def test_403_rate_limit_reports_when_it_resets(server: Server, cache: SourceCache) -> None:
    reset = int(time.time()) + 3600
    server.routes[PULLS] = status(403, X_RateLimit_Remaining="0", X_RateLimit_Reset=str(reset))
    error = _failure(server, cache)
    assert error.code == "rate-limited"
    assert error.message == (
        f"GitHub rate limit reached reading {server.url}{PULLS} (403); "
        f"it resets at {iso(datetime.fromtimestamp(reset, UTC))}"
    )
    assert server.count(PULLS) == 1


def test_a_short_retry_after_is_waited_out(api: Server, cache: SourceCache) -> None:
    served = api.routes[PULLS]
    calls = []

    def once_limited(request: Request) -> Reply:
        calls.append(request)
        if len(calls) == 1:
            return Reply(429, b"{}", {"Retry-After": "0"})
        return served(request)

    api.routes[PULLS] = once_limited
    result = fetch("github:fjordlight/api/pulls", cache, environ=_env(api), window=WEEK)
    assert [p["number"] for p in result.facets["merged"]] == [41, 42]
    assert len(calls) == 4


def test_5xx_is_a_server_error(server: Server, cache: SourceCache) -> None:
    server.routes[PULLS] = status(502)
    assert _failure(server, cache).code == "server-error"


def test_a_bad_uri_is_explained(cache: SourceCache) -> None:
    with pytest.raises(SourceError) as caught:
        fetch("github:fjordlight/api", cache)
    assert caught.value.render() == (
        "error: github:fjordlight/api is not github:<owner>/<repo or glob>/<pulls|issues>\n"
        "  hint: for example github:fjordlight/*/pulls"
    )
