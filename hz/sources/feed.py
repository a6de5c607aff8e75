"""`feed:` — an RSS or Atom feed over HTTP(S) (`feed:https://…`) or from a repository file (`feed:path`).

Parsed with feedparser. Each item is its canonical URL (tracking parameters dropped), title, summary,
author and publication time; `updated` times are immaterial and dropped (an item without a publication
time is always in the window, since nothing places it). Items with the same canonical URL are one item;
an item with neither link nor id is keyed by a hash of its content, so five "Daily status" posts stay
five. An item dated after the moment of the fetch (a skewed clock, a scheduled post) is kept and marked
`future`, never held back until its time. One item whose link cannot be read is skipped and counted
(facet `skipped`, only when there are some); a document cut off before its end is an error, never a
smaller feed. Requests are conditional (ETag, Last-Modified); a 304 keeps the stored items, so the
fingerprint holds. Facets: `items` (sorted by URL), `links` (the sorted URLs), `skipped`.
"""

from __future__ import annotations

import calendar
import hashlib
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from hz.repo_paths import PathRefused, Refusal, check, read_regular
from hz.sources.base import FetchContext, Fetched, SourceError, SourceSpec, no_query
from hz.sources.canonical import canonical_url, one_line, sorted_records
from hz.sources.http import Service, client, get, limits_from
from hz.sources.window import Window, iso, parse_time

REMOTE = True
FACETS = ("items", "links", "skipped")
SKIPPED = "skipped"  # a record {"skipped": n} counts the items whose link could not be read
SERVICE = Service("the feed server", "(no token)")


def fetch(spec: SourceSpec, ctx: FetchContext) -> Fetched:
    no_query(spec)
    target = spec.target.strip()
    if target.startswith(("http://", "https://")):
        return _fetch_http(spec, target, ctx)
    return Fetched(_parse(spec, _read_file(spec, target, ctx.root), ctx.now))


def build(spec: SourceSpec, records: Any, window: Window) -> dict[str, Any]:
    items, skipped = [], 0
    for record in records:
        if SKIPPED in record:
            skipped += int(record[SKIPPED])
            continue
        when = parse_time(record.get("published"))
        if when is None or when in window or record.get("future"):
            items.append(record)
    facets: dict[str, Any] = {"items": items, "links": [r["url"] for r in items]}
    return {**facets, SKIPPED: skipped} if skipped else facets


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
            limits=limits_from(ctx.environ),
        )
    validators = {
        "etag": answer.headers.get("etag") or previous.get("etag"),
        "last_modified": answer.headers.get("last-modified") or previous.get("last_modified"),
    }
    validators = {k: v for k, v in validators.items() if v}
    if answer.status == 304:
        return Fetched(None, validators=validators, not_modified=True, requests=1)
    return Fetched(_parse(spec, answer.body, ctx.now), validators=validators, requests=1)


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


def _parse(spec: SourceSpec, body: bytes, now: datetime) -> list[dict[str, Any]]:
    import feedparser

    # Summaries are reduced to plain text here, so feedparser's HTML sanitizer would be wasted work.
    parsed = feedparser.parse(body, sanitize_html=False, resolve_relative_uris=False)
    problem = parsed.get("bozo_exception")
    if not parsed.get("version") and not parsed.entries:
        detail = f": {one_line(str(problem))}" if problem else ""
        raise SourceError(
            "malformed", f"{spec.uri} is not an RSS or Atom feed{detail}", hint="check the URL serves the feed itself"
        )
    if _cut_off(body, problem):
        raise SourceError(
            "malformed",
            f"{spec.uri} is truncated: the document ends before its root element closes",
            hint="the server or the file is incomplete; hz reads it again at the next recheck",
        )
    items, skipped = [], 0
    for entry in parsed.entries:
        try:
            items.append(_item(entry, now))
        except ValueError:  # a link with a port past 65535, a broken IPv6 host: that item only
            skipped += 1
    by_url: dict[str, dict[str, Any]] = {}
    for record in sorted_records(items):  # sorted first, so which duplicate stays never hangs on order
        by_url.setdefault(record["url"], record)
    records = [by_url[url] for url in sorted(by_url)]
    return [*records, {SKIPPED: skipped}] if skipped else records


def _cut_off(body: bytes, problem: object) -> bool:
    """Whether the XML parser ran out of document: its error sits at the very end of the bytes."""
    from xml.sax import SAXParseException

    if not isinstance(problem, SAXParseException):
        return False
    lines = body.rstrip().split(b"\n")
    line, column = problem.getLineNumber(), problem.getColumnNumber()
    if not isinstance(line, int) or not isinstance(column, int) or not 1 <= line <= len(lines):
        return False
    return line == len(lines) and column >= len(lines[-1]) - 2


def _item(entry: Any, now: datetime) -> dict[str, Any]:
    link = entry.get("link") or entry.get("id") or ""
    record: dict[str, Any] = {
        "url": canonical_url(link) if link else "",
        "title": one_line(entry.get("title")),
        "summary": one_line(_strip_tags(entry.get("summary") or "")),
        "author": one_line(entry.get("author")) or None,
        "published": _published(entry),
    }
    if not record["url"]:
        record["url"] = "urn:hz:item:" + _content_key(record)
    when = parse_time(record["published"])
    if when is not None and when > now:
        record["future"] = True
    return {k: v for k, v in record.items() if v is not None}


def _content_key(record: dict[str, Any]) -> str:
    """What an item without link or id is known by: its title, summary, author and time together."""
    parts = (record["title"], record["summary"], record["author"] or "", record["published"] or "")
    return hashlib.sha256("\x1f".join(parts).encode()).hexdigest()[:32]


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
