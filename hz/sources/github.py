"""`github:<owner>/<repo-glob>/<pulls|issues>` — pull requests or issues through GitHub's REST API.

The base URL is `$HZ_GITHUB_API` (default https://api.github.com); the token is `$GITHUB_TOKEN`, sent as a
bearer header only. A repository glob (`fjord/*`) lists the owner's repositories (`/orgs/<owner>/repos`,
then `/users/<owner>/repos`). Items are read newest-updated first and paging stops once a page reaches
items older than the window (plus a day of slack, so a nearby slot reuses them). Every page is asked
for with its stored ETag; a 304 reuses the stored page, so an unchanged source keeps its fingerprint.
Pages are kept under their URL without userinfo (`$HZ_GITHUB_API` may carry a credential), and
every answer is scrubbed of the environment's secrets (see `hz.sources.http`).
The query is filtered locally, see `hz.sources.githubquery`. Facets: `items` (updated in the window),
`opened` (created in it), `closed` (closed in it without a merge), `merged` (pulls merged in it).
"""

from __future__ import annotations

import fnmatch
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from hz.secrets import redact_url, secrets_of
from hz.sources.base import FetchContext, Fetched, SourceError, SourceSpec
from hz.sources.canonical import canonical_url, one_line, sorted_records
from hz.sources.githubquery import GithubQuery, parse
from hz.sources.http import Service, client, get
from hz.sources.window import Window, iso, parse_time

if TYPE_CHECKING:
    import httpx

REMOTE = True
FACETS = ("items", "opened", "closed", "merged")
SERVICE = Service("GitHub", "GITHUB_TOKEN")
SLACK = timedelta(days=1)
PER_PAGE = 100
MAX_PAGES = 200  # 20,000 items of one listing: more is a server paging forever
_GLOB = frozenset("*?[")


def fetch(spec: SourceSpec, ctx: FetchContext) -> Fetched:
    owner, repo_glob, kind = _parts(spec)
    query = parse(spec.query, spec.uri)
    since = None if spec.window is None else ctx.slot - spec.window - SLACK
    base = ctx.environ.get("HZ_GITHUB_API", "https://api.github.com").rstrip("/")
    pages_before = dict((ctx.previous or {}).get("validators", {}).get("pages", {}))
    reader = _Reader(base, pages_before, ctx, spec.uri)
    with client(_headers(ctx)) as session:
        reader.session = session
        repos = _repos(reader, owner, repo_glob, query)
        records: list[dict[str, Any]] = []
        for repo in repos:
            records.extend(_items(reader, f"{owner}/{repo}", kind, since))
    records = [r for r in records if query.keeps(r)]
    validators = {"pages": reader.pages}
    return Fetched(
        sorted_records(records, "repo", "number"), covers=(since, None), validators=validators, requests=reader.requests
    )


def build(spec: SourceSpec, records: Any, window: Window) -> dict[str, Any]:
    kind = _parts(spec)[2]

    def within(field: str) -> list[dict[str, Any]]:
        return [_public(r) for r in records if parse_time(r.get(field)) in window]

    facets = {
        "items": within("_updated"),
        "opened": within("created"),
        "closed": [_public(r) for r in records if parse_time(r.get("closed")) in window and "merged" not in r],
    }
    if kind == "pulls":
        facets["merged"] = within("merged")
    return facets


def _public(record: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in record.items() if not k.startswith("_")}


def _parts(spec: SourceSpec) -> tuple[str, str, str]:
    pieces = spec.target.strip("/").split("/")
    if len(pieces) != 3 or pieces[2] not in ("pulls", "issues") or not pieces[0] or not pieces[1]:
        raise SourceError(
            "bad-source",
            f"{spec.uri} is not github:<owner>/<repo or glob>/<pulls|issues>",
            hint="for example github:fjordlight/*/pulls",
        )
    return pieces[0], pieces[1], pieces[2]


def _headers(ctx: FetchContext) -> dict[str, str]:
    headers = {"Accept": "application/vnd.github+json", "X-GitHub-Api-Version": "2022-11-28"}
    token = ctx.environ.get("GITHUB_TOKEN")
    if token:
        headers["Authorization"] = f"Bearer {token}"
    return headers


class _Reader:
    """Conditional, paginated GETs that remember each page's ETag and items for the next fetch."""

    def __init__(self, base: str, previous: dict[str, Any], ctx: FetchContext, uri: str = "") -> None:
        self.base = base
        self.ctx_uri = uri
        self.previous = previous
        self.ctx = ctx
        self.pages: dict[str, Any] = {}
        self.requests = 0
        self.session: httpx.Client | None = None

    def page(self, url: str, convert: Any) -> tuple[list[Any], str | None]:
        assert self.session is not None
        if self.requests >= MAX_PAGES:
            raise SourceError(
                "malformed",
                f"GitHub listed more than {MAX_PAGES} pages for {self.ctx_uri}; hz stopped reading",
                hint="narrow the source (a repository instead of a glob) or its `window`",
            )
        kept = redact_url(url)  # what the cache holds: never a credential from the base URL
        stored = self.previous.get(kept) or {}
        secrets = secrets_of(self.ctx.environ)
        answer = get(
            self.session, url, SERVICE, etag=stored.get("etag"), max_wait_s=self.ctx.max_wait_s, secrets=secrets
        )
        self.requests += 1
        if answer.status == 304 and "items" in stored:
            self.pages[kept] = stored
            return list(stored["items"]), stored.get("next")
        body = answer.json()
        if not isinstance(body, list):
            raise SourceError("malformed", f"GitHub answered {kept.split('?')[0]} with something that is not a list")
        items = [converted for raw in body if isinstance(raw, dict) and (converted := convert(raw)) is not None]
        etag = answer.headers.get("etag")
        if etag:
            self.pages[kept] = {"etag": etag, "items": items, "next": answer.next_url}
        return items, answer.next_url


def _repos(reader: _Reader, owner: str, repo_glob: str, query: GithubQuery) -> list[str]:
    if _GLOB.isdisjoint(repo_glob) and not query.topics:
        return [repo_glob]
    try:
        listed = _all_pages(reader, f"{reader.base}/orgs/{owner}/repos?per_page={PER_PAGE}&type=all", _repo)
    except SourceError as exc:
        if exc.code != "not-found":
            raise
        listed = _all_pages(reader, f"{reader.base}/users/{owner}/repos?per_page={PER_PAGE}&type=all", _repo)
    return sorted(
        r["name"] for r in listed if fnmatch.fnmatchcase(r["name"], repo_glob) and query.keeps_repo(r["topics"])
    )


def _repo(raw: dict[str, Any]) -> dict[str, Any]:
    return {"name": str(raw.get("name", "")), "topics": sorted(str(t) for t in raw.get("topics") or ())}


def _all_pages(reader: _Reader, url: str, convert: Any) -> list[Any]:
    out: list[Any] = []
    next_url: str | None = url
    while next_url:
        items, next_url = reader.page(next_url, convert)
        out.extend(items)
    return out


def _items(reader: _Reader, full_name: str, kind: str, since: datetime | None) -> list[dict[str, Any]]:
    url: str | None = (
        f"{reader.base}/repos/{full_name}/{kind}?state=all&sort=updated&direction=desc&per_page={PER_PAGE}"
    )
    convert = (lambda raw: _pull(full_name, raw)) if kind == "pulls" else (lambda raw: _issue(full_name, raw))
    out: list[dict[str, Any]] = []
    while url:
        items, url = reader.page(url, convert)
        out.extend(items)
        if since is not None and any(_older(i, since) for i in items):
            break  # newest-updated first: every later page is older still
    return [i for i in out if since is None or not _older(i, since)]


def _older(record: dict[str, Any], since: datetime) -> bool:
    updated = parse_time(record.get("_updated"))
    return updated is not None and updated < since


def _common(full_name: str, raw: dict[str, Any]) -> dict[str, Any]:
    labels = sorted(str(label.get("name", "")) for label in raw.get("labels") or () if isinstance(label, dict))
    record = {
        "repo": full_name,
        "number": int(raw.get("number", 0)),
        "title": one_line(raw.get("title")),
        "url": canonical_url(str(raw.get("html_url") or "")),
        "state": str(raw.get("state") or ""),
        "author": str((raw.get("user") or {}).get("login") or ""),
        "labels": labels,
        "created": _time(raw.get("created_at")),
        "closed": _time(raw.get("closed_at")),
        "_updated": _time(raw.get("updated_at")),
    }
    return {k: v for k, v in record.items() if v is not None}


def _pull(full_name: str, raw: dict[str, Any]) -> dict[str, Any]:
    record = _common(full_name, raw)
    record["base"] = str((raw.get("base") or {}).get("ref") or "")
    record["draft"] = bool(raw.get("draft"))
    merged = _time(raw.get("merged_at"))
    if merged:
        record["merged"] = merged
    return record


def _issue(full_name: str, raw: dict[str, Any]) -> dict[str, Any] | None:
    if "pull_request" in raw:
        return None  # the issues endpoint also lists pull requests; they belong to /pulls
    return _common(full_name, raw)


def _time(value: Any) -> str | None:
    moment = parse_time(value) if isinstance(value, str) else None
    return iso(moment) if moment else None
