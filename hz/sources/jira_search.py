"""Jira's issue search, as each deployment serves it: Cloud's `/rest/api/3/search/jql`, Server's v2 search.

Jira Cloud removed `/rest/api/2/search` (it answers 410 Gone); its replacement pages by an opaque
`nextPageToken` until `isLast`, with no `total`. Jira Server and Data Center keep the v2 search, paged
by `startAt`/`maxResults`/`total`. Which one a site is, is asked once (`/rest/api/2/serverInfo`, whose
`deploymentType` says Cloud, Server or DataCenter) and kept with the source's cache entry (`api`); a
site that does not say is Cloud when it is on atlassian.net. A v2 search answered with 410 is Cloud
after all: the search is made again on v3, and that is kept instead.

Both ask for the same fields and give issues of the same shape (v3 writes rich text as Atlassian
documents, which `hz.sources.jira_text` reads as text), so the records do not depend on the API.
A server that pages forever (a token repeated, more pages than any project has) is stopped with an error.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from hz.secrets import Secrets
from hz.sources.base import SourceError
from hz.sources.http import Service, get

if TYPE_CHECKING:
    import httpx

SERVICE = Service("Jira", "JIRA_TOKEN")
PAGE = 100
MAX_PAGES = 1000  # 100,000 issues: no project's window holds more
CLOUD, SERVER = "cloud", "server"
_QUERY_HINT = "check the input's `query`: it must be JQL that Jira accepts (the project and window are added by hz)"


@dataclass
class Search:
    """One search of one site: its base URL, the JQL, the fields and how to reach it."""

    uri: str  # the source, for messages
    session: httpx.Client
    base: str
    jql: str
    fields: str
    secrets: Secrets
    max_wait_s: float
    requests: int = 0

    def get(self, path: str, params: Mapping[str, str | int] | None = None) -> Any:
        answer = get(
            self.session, f"{self.base}{path}", SERVICE, params=params, max_wait_s=self.max_wait_s, secrets=self.secrets
        )
        self.requests += 1
        return answer.json()


def deployment(search: Search, remembered: object) -> str:
    """`cloud` or `server`: as remembered, else as the site says, else by its host."""
    if remembered in (CLOUD, SERVER):
        return str(remembered)
    try:
        info = search.get("/rest/api/2/serverInfo")
    except SourceError as exc:
        if exc.code in ("unavailable", "rate-limited"):
            raise  # the site is not there now: nothing is learned by guessing
        info = None
    kind = info.get("deploymentType") if isinstance(info, dict) else None
    if isinstance(kind, str) and kind.strip().lower() in ("server", "datacenter"):
        return SERVER
    if isinstance(kind, str) and kind.strip().lower() == "cloud":
        return CLOUD
    host = urlsplit(search.base).hostname or ""
    return CLOUD if host.endswith(".atlassian.net") else SERVER


def issues(search: Search, api: str) -> tuple[list[dict[str, Any]], str]:
    """Every issue the search finds, and the deployment it was found on (a 410 on v2 means Cloud)."""
    if api == CLOUD:
        return _cloud(search), CLOUD
    try:
        return _server(search), SERVER
    except SourceError as exc:
        if exc.status != 410:
            raise
    return _cloud(search), CLOUD


def _cloud(search: Search) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    token: str | None = None
    seen: set[str] = set()
    for _ in range(MAX_PAGES):
        params: dict[str, str | int] = {"jql": search.jql, "maxResults": PAGE, "fields": search.fields}
        if token is not None:
            params["nextPageToken"] = token
        body = _page(search, "/rest/api/3/search/jql", params)
        found.extend(body["issues"])
        token = body.get("nextPageToken")
        if body.get("isLast") is True or not isinstance(token, str) or not token or not body["issues"]:
            return found
        if token in seen:
            raise _endless(search, "gave the same next page twice")
        seen.add(token)
    raise _endless(search, f"had more than {MAX_PAGES} pages")


def _server(search: Search) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    for _ in range(MAX_PAGES):
        params: dict[str, str | int] = {
            "jql": search.jql,
            "startAt": len(found),
            "maxResults": PAGE,
            "fields": search.fields,
        }
        body = _page(search, "/rest/api/2/search", params)
        found.extend(body["issues"])
        total = body.get("total")
        if not body["issues"] or not isinstance(total, int) or len(found) >= total:
            return found
    raise _endless(search, f"had more than {MAX_PAGES} pages")


def _page(search: Search, path: str, params: Mapping[str, str | int]) -> dict[str, Any]:
    try:
        body = search.get(path, params)
    except SourceError as exc:
        if exc.status == 400:
            raise SourceError(exc.code, exc.message, hint=_QUERY_HINT, status=400) from None
        raise
    if not isinstance(body, dict) or not isinstance(body.get("issues"), list):
        raise SourceError("malformed", f"Jira answered the search for {search.uri} with no issue list")
    body["issues"] = [i for i in body["issues"] if isinstance(i, dict)]
    return body


def _endless(search: Search, what: str) -> SourceError:
    return SourceError(
        "malformed",
        f"Jira's search for {search.uri} {what}; hz stopped reading",
        hint="narrow the input's `query` or `window`; hz tries again at the next recheck",
    )
