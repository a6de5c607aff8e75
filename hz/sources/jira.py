"""`jira:<site>/<project>` — issues of one Jira project through the REST search API.

The base URL is `$HZ_JIRA_BASE` (it may hold `{site}`; default `https://{site}.atlassian.net`). The
token is `$JIRA_TOKEN`: with `$JIRA_USER` (an e-mail) it is sent as basic auth, as Jira Cloud wants,
otherwise as a bearer token (a Data Center personal access token). The input's `query` is JQL and is
combined with the project and the window (`updated` since the window's start less a day of slack, so
any time zone Jira reads it in is covered). Jira Cloud is searched on `/rest/api/3/search/jql`, Server and
Data Center on v2's `/rest/api/2/search`, whichever the site is (see `hz.sources.jira_search`).
Every answer is scrubbed of the environment's secrets (see `hz.sources.http`), and issue URLs are
built on the base without its userinfo. Facets: `items`, `done`, `in_progress`, `todo` (by status
category), `blocked` (a status or label containing "block"), `status` (key -> status), `dates` (key ->
due and resolution dates), `scope` (keys).
"""

from __future__ import annotations

import base64
import re
from collections.abc import Mapping
from datetime import timedelta
from typing import Any
from urllib.parse import quote

from hz.secrets import redact_url, secrets_of
from hz.sources.base import FetchContext, Fetched, SourceError, SourceSpec
from hz.sources.canonical import one_line, sorted_records
from hz.sources.http import Service, client
from hz.sources.jira_search import Search, deployment, issues
from hz.sources.jira_text import plain
from hz.sources.window import Window, iso, parse_time, utc

REMOTE = True
FACETS = ("items", "done", "in_progress", "todo", "blocked", "status", "dates", "scope")
SERVICE = Service("Jira", "JIRA_TOKEN")
SLACK = timedelta(days=1)
FIELDS = "summary,status,issuetype,assignee,duedate,resolutiondate,created,updated,labels,priority"
_ORDER_BY = re.compile(r"(?i)\border\s+by\b")
_CATEGORY = {"done": "done", "indeterminate": "in_progress", "new": "todo"}


def fetch(spec: SourceSpec, ctx: FetchContext) -> Fetched:
    site, project = _parts(spec)
    base = base_url(ctx.environ, site)
    since = None if spec.window is None else ctx.slot - spec.window - SLACK
    remembered = (ctx.previous or {}).get("validators", {}).get("api")
    with client(auth_headers(ctx.environ)) as session:
        jql = _jql(project, spec.query, since)
        search = Search(spec.uri, session, base, jql, FIELDS, secrets_of(ctx.environ), ctx.max_wait_s)
        found, api = issues(search, deployment(search, remembered))
    records = [_issue(redact_url(base), i) for i in found]
    return Fetched(
        sorted_records(records, "key"), covers=(since, None), validators={"api": api}, requests=search.requests
    )


def build(spec: SourceSpec, records: Any, window: Window) -> dict[str, Any]:
    items = [_public(r) for r in records if window.start is None or parse_time(r.get("_updated")) in window]
    by = {c: [i for i in items if i.get("category") == c] for c in _CATEGORY.values()}
    return {
        "items": items,
        **by,
        "blocked": [i for i in items if _blocked(i)],
        "status": {i["key"]: i["status"] for i in items},
        "dates": {i["key"]: {k: i[k] for k in ("due", "resolved") if k in i} for i in items},
        "scope": sorted(i["key"] for i in items),
    }


def _public(record: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in record.items() if not k.startswith("_")}


def _blocked(item: dict[str, Any]) -> bool:
    return "block" in item.get("status", "").lower() or any("block" in label.lower() for label in item["labels"])


def _parts(spec: SourceSpec) -> tuple[str, str]:
    pieces = spec.target.strip("/").split("/")
    if len(pieces) != 2 or not all(pieces):
        raise SourceError("bad-source", f"{spec.uri} is not jira:<site>/<project>", hint="for example jira:acme/PLAT")
    return pieces[0], pieces[1]


def _jql(project: str, query: str | None, since: Any) -> str:
    clauses = [f'project = "{project}"']
    if since is not None:
        clauses.append(f'updated >= "{utc(since).strftime("%Y/%m/%d %H:%M")}"')
    # An ORDER BY of the input's own would break the combined JQL; results are ordered by key anyway.
    condition = _ORDER_BY.split(query or "", maxsplit=1)[0].strip()
    if condition:
        clauses.append(f"({condition})")
    return " AND ".join(clauses) + " ORDER BY key ASC"


def base_url(environ: Mapping[str, str], site: str) -> str:
    """The REST base of a Jira site: `$HZ_JIRA_BASE` (may hold `{site}`), else Jira Cloud's."""
    return environ.get("HZ_JIRA_BASE", "https://{site}.atlassian.net").replace("{site}", site).rstrip("/")


def auth_headers(environ: Mapping[str, str]) -> dict[str, str]:
    """Basic auth with `$JIRA_USER` (Cloud), else a bearer `$JIRA_TOKEN` (Data Center); shared by hz.review."""
    headers = {"Accept": "application/json"}
    token = environ.get("JIRA_TOKEN")
    user = environ.get("JIRA_USER")
    if token and user:
        headers["Authorization"] = "Basic " + base64.b64encode(f"{user}:{token}".encode()).decode()
    elif token:
        headers["Authorization"] = f"Bearer {token}"
    return headers


def _issue(base: str, raw: dict[str, Any]) -> dict[str, Any]:
    fields = raw.get("fields") or {}
    status = fields.get("status") or {}
    key = str(raw.get("key", ""))
    record = {
        "key": key,
        "summary": one_line(plain(fields.get("summary"))),
        "type": str((fields.get("issuetype") or {}).get("name") or ""),
        "status": str(status.get("name") or ""),
        "category": _CATEGORY.get(str((status.get("statusCategory") or {}).get("key") or ""), "other"),
        "assignee": (fields.get("assignee") or {}).get("displayName"),
        "priority": (fields.get("priority") or {}).get("name"),
        "labels": sorted(str(x) for x in fields.get("labels") or ()),
        "due": fields.get("duedate"),
        "resolved": _time(fields.get("resolutiondate")),
        "created": _time(fields.get("created")),
        "url": f"{base}/browse/{quote(key)}",
        "_updated": _time(fields.get("updated")),
    }
    return {k: v for k, v in record.items() if v is not None}


def _time(value: Any) -> str | None:
    moment = parse_time(value) if isinstance(value, str) else None
    return iso(moment) if moment else None
