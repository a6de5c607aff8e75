"""`feed:` — an RSS or Atom feed over HTTP(S) (`feed:https://…`) or from a repository file (`feed:path`).

Parsed with feedparser. Each item is its canonical URL (tracking parameters dropped), title, summary,
author and publication time; `updated` times are immaterial and dropped (an item without a publication
time is always in the window, since nothing places it). Items with the same canonical URL are one item.
Requests are conditional (ETag, Last-Modified); a 304 keeps the stored items, so the fingerprint holds.
Facets: `items` (sorted by URL) and `links` (the sorted URLs).
"""

from __future__ import annotations

import calendar
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from hz.repo_paths import PathRefused, Refusal, check, read_regular
from hz.sources.base import FetchContext, Fetched, SourceError, SourceSpec, no_query
from hz.sources.canonical import canonical_url, one_line, sorted_records
from hz.sources.http import Service, client, get
from hz.sources.window import Window, iso, parse_time

REMOTE = True
FACETS = ("items", "links")
SERVICE = Service("the feed server", "(no token)")


def fetch(spec: SourceSpec, ctx: FetchContext) -> Fetched:
    no_query(spec)
    target = spec.target.strip()
    if target.startswith(("http://", "https://")):
        return _fetch_http(spec, target, ctx)
    return Fetched(_parse(spec, _read_file(spec, target, ctx.root)))


def build(spec: SourceSpec, records: Any, window: Window) -> dict[str, Any]:
    items = []
    for record in records:
        when = parse_time(record.get("published"))
        if when is None or when in window:
            items.append(record)
    return {"items": items, "links": [r["url"] for r in items]}


def _fetch_http(spec: SourceSpec, url: str, ctx: FetchContext) -> Fetched:
    previous = (ctx.previous or {}).get("validators", {})
    with client({"Accept": "application/rss+xml, application/atom+xml, application/xml;q=0.9, */*;q=0.5"}) as session:
        answer = get(
            session,
            url,
            SERVICE,
            etag=previous.get("etag"),
            last_modified=previous.get("last_modified"),
            max_wait_s=ctx.max_wait_s,
        )
    validators = {
        "etag": answer.headers.get("etag") or previous.get("etag"),
        "last_modified": answer.headers.get("last-modified") or previous.get("last_modified"),
    }
    validators = {k: v for k, v in validators.items() if v}
    if answer.status == 304:
        return Fetched(None, validators=validators, not_modified=True, requests=1)
    return Fetched(_parse(spec, answer.body), validators=validators, requests=1)


def _read_file(spec: SourceSpec, target: str, root: Path | None) -> bytes:
    """A feed file of the repository, by the repository's path rule (`hz.repo_paths`), like `file:`."""
    if root is None:
        raise SourceError("bad-source", f"{spec.uri} needs a repository", hint="run hz inside the repository")
    try:
        real = check(root, target.removeprefix("file:"), "input")
    except PathRefused as refused:
        reason = refused.refusal.reason
        raise SourceError("outside-repository", f"{spec.uri}: the path {reason}", hint=refused.hint) from None
    if not real.exists():
        raise SourceError("not-found", f"{spec.uri}: no such file in the repository")
    data = read_regular(real)
    if isinstance(data, Refusal):
        raise SourceError("bad-source", f"{spec.uri}: the file {data.reason}", hint=data.hint)
    return data


def _parse(spec: SourceSpec, body: bytes) -> list[dict[str, Any]]:
    import feedparser

    # Summaries are reduced to plain text here, so feedparser's HTML sanitizer would be wasted work.
    parsed = feedparser.parse(body, sanitize_html=False, resolve_relative_uris=False)
    if not parsed.get("version") and not parsed.entries:
        problem = parsed.get("bozo_exception")
        detail = f": {one_line(str(problem))}" if problem else ""
        raise SourceError(
            "malformed", f"{spec.uri} is not an RSS or Atom feed{detail}", hint="check the URL serves the feed itself"
        )
    by_url: dict[str, dict[str, Any]] = {}
    for record in sorted_records(_item(entry) for entry in parsed.entries):
        by_url.setdefault(record["url"], record)
    return [by_url[url] for url in sorted(by_url)]


def _item(entry: Any) -> dict[str, Any]:
    link = entry.get("link") or entry.get("id") or ""
    record: dict[str, Any] = {
        "url": canonical_url(link) if link else "",
        "title": one_line(entry.get("title")),
        "summary": one_line(_strip_tags(entry.get("summary") or "")),
        "author": one_line(entry.get("author")) or None,
        "published": _published(entry),
    }
    if not record["url"]:
        record["url"] = "urn:hz:title:" + record["title"]
    return {k: v for k, v in record.items() if v is not None}


def _published(entry: Any) -> str | None:
    parsed = entry.get("published_parsed")
    if not parsed:
        return None
    return iso(datetime(1970, 1, 1, tzinfo=UTC) + timedelta(seconds=calendar.timegm(parsed)))


def _strip_tags(html: str) -> str:
    """Summary text without markup, so a feed that re-wraps the same words in new tags does not move."""
    import re
    from html import unescape

    blocks = re.sub(r"(?i)</?(p|br|div|li|ul|ol|h[1-6]|tr|td|blockquote)\b[^>]*>", " ", html)
    return unescape(re.sub(r"<[^>]+>", "", blocks)).replace("\xa0", " ")
