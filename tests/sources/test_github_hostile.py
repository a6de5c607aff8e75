"""`github:` against a server that is not the GitHub asked: a next page elsewhere, a redirect elsewhere,
a page nested past reason, a listing that never ends. Each is one clear error, and the other origin is
never asked (the token would go with the request)."""

from __future__ import annotations

import pytest

from hz.sources.base import SourceError
from hz.sources.cache import SourceCache
from hz.sources.github import MAX_PAGES
from tests.sources.helpers import fetch
from tests.sources.server import Reply, Request, Server, serve

PULLS = "/repos/fjordlight/api/pulls"
JSON = {"Content-Type": "application/json"}


def _env(server: Server) -> dict[str, str]:
    return {"HZ_GITHUB_API": server.url, "GITHUB_TOKEN": "ghp_secret_token_value"}


def _fails(server: Server, cache: SourceCache) -> SourceError:
    with pytest.raises(SourceError) as caught:
        fetch("github:fjordlight/api/pulls", cache, environ=_env(server))
    return caught.value


def test_a_next_page_on_another_origin_is_not_followed(server: Server, cache: SourceCache) -> None:
    with serve({PULLS: lambda request: Reply(200, b"[]", JSON)}) as elsewhere:
        link = {"Link": f'<{elsewhere.url}{PULLS}?page=2>; rel="next"', **JSON}
        server.routes[PULLS] = lambda request: Reply(200, b"[]", link)
        error = _fails(server, cache)
        assert elsewhere.requests == []
    assert error.render() == (
        f"error: GitHub pointed the next page of {server.url}{PULLS} to another origin; hz did not follow it\n"
        "  hint: another server never answers for the one asked; hz tries again at the next recheck"
    )


def test_a_redirect_to_another_origin_is_not_followed(server: Server, cache: SourceCache) -> None:
    with serve({PULLS: lambda request: Reply(200, b"[]", JSON)}) as elsewhere:
        server.routes[PULLS] = lambda request: Reply(302, b"", {"Location": f"{elsewhere.url}{PULLS}"})
        error = _fails(server, cache)
        assert elsewhere.requests == []
    assert (error.code, error.message) == (
        "bad-source",
        f"GitHub redirected {server.url}{PULLS} to another origin ({elsewhere.url}{PULLS}); hz did not follow it",
    )


def test_a_page_nested_600_deep_is_malformed_not_a_crash(server: Server, cache: SourceCache) -> None:
    server.routes[PULLS] = lambda request: Reply(200, b"[" * 600 + b"]" * 600, JSON)
    error = _fails(server, cache)
    assert (error.code, error.message) == (
        "malformed",
        f"GitHub answered {server.url}{PULLS} with JSON nested more than 100 levels deep; hz read none of it",
    )


def test_a_listing_that_never_ends_is_stopped(server: Server, cache: SourceCache) -> None:
    def endless(request: Request) -> Reply:
        page = int(request.param("page") or 1)
        return Reply(200, b"[]", {"Link": f'<{server.url}{PULLS}?page={page + 1}>; rel="next"', **JSON})

    server.routes[PULLS] = endless
    error = _fails(server, cache)
    assert (
        error.message
        == f"GitHub listed more than {MAX_PAGES} pages for github:fjordlight/api/pulls; hz stopped reading"
    )
    assert server.count(PULLS) == MAX_PAGES
