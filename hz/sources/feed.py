"""`feed:` — an RSS or Atom feed over HTTP(S) (`feed:https://…`) or from a repository file (`feed:path`).

Parsed with feedparser. Each item is its canonical URL (tracking parameters dropped), title, summary,
author and publication time. Titles and summaries are plain text: markup stripped, entities decoded,
whitespace folded, so a feed that re-wraps the same words does not move the fingerprint (a title the feed
marks as plain text keeps a literal `<b>`). Relative links resolve against the document's base: `xml:base`
where the feed sets it, else the response's `Content-Location`, else the URL the body came from (after
redirects); a feed file of the repository has no base, so its relative links stay as written.
`updated` times are immaterial and dropped (an item without a publication time is always in the window,
since nothing places it). Items with the same canonical URL are one item; an item with neither link nor
id is keyed by a hash of its content, so five "Daily status" posts stay five. An item dated after the
moment of the fetch (a skewed clock, a scheduled post) is kept and marked `future`, never held back until
its time. One item whose link cannot be read is skipped and counted (facet `skipped`, only when there are
some); a document that ends inside an element is an error, never a smaller feed. Requests are
conditional (ETag, Last-Modified); a 304 keeps the stored items, so the fingerprint holds. Facets:
`items` (sorted by URL), `links` (the sorted URLs), `skipped`.
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
            elsewhere=True,  # feeds move (to https, to another host); no token goes with them
        )
    validators = {
        "etag": answer.headers.get("etag") or previous.get("etag"),
        "last_modified": answer.headers.get("last-modified") or previous.get("last_modified"),
    }
    validators = {k: v for k, v in validators.items() if v}
    if answer.status == 304:
        return Fetched(None, validators=validators, not_modified=True, requests=1)
    base = _base(answer.url or url, answer.headers.get("content-location"))
    return Fetched(_parse(spec, answer.body, ctx.now, base), validators=validators, requests=1)


def _base(url: str, content_location: str | None) -> str:
    """The document's base URL: `Content-Location` read against the URL the body came from (RFC 9110)."""
    from urllib.parse import urljoin

    if not content_location:
        return url
    try:
        return urljoin(url, content_location.strip())
    except ValueError:  # a Content-Location no URL parser reads: the URL itself
        return url


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


def _parse(spec: SourceSpec, body: bytes, now: datetime, base: str | None = None) -> list[dict[str, Any]]:
    import feedparser

    # Summaries are reduced to plain text here, so feedparser's HTML sanitizer would be wasted work.
    # feedparser applies `xml:base` itself; the response's base is applied here (`_item`), since
    # feedparser empties a link it cannot join to a base, and such an item must be counted, not rekeyed.
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
            items.append(_item(entry, now, base))
        except ValueError:  # a link with a port past 65535, a broken IPv6 host: that item only
            skipped += 1
    by_url: dict[str, dict[str, Any]] = {}
    for record in sorted_records(items):  # sorted first, so which duplicate stays never hangs on order
        by_url.setdefault(record["url"], record)
    records = [by_url[url] for url in sorted(by_url)]
    return [*records, {SKIPPED: skipped}] if skipped else records


def _cut_off(body: bytes, problem: object) -> bool:
    """Whether the document ends inside an element: feedparser found it not well-formed (`bozo` with a
    SAXParseException) and every byte it has is a well-formed beginning, so only its end is missing.

    Asked of expat directly, because feedparser's loose parser then reads what it got as a smaller feed
    (an item with an empty title) and the exception's position says little once feedparser has re-encoded
    the bytes. Expat reads UTF-8, UTF-16 and Latin-1 itself; a document in another encoding is judged by
    the error's words alone.
    """
    from xml.parsers import expat
    from xml.sax import SAXParseException

    if not isinstance(problem, SAXParseException):
        return False
    parser = expat.ParserCreate()
    try:
        parser.Parse(body, False)
    except expat.ExpatError as early:
        if early.code != expat.errors.codes[expat.errors.XML_ERROR_UNKNOWN_ENCODING]:
            return False  # broken before its end: feedparser's loose reading is the best there is
        return str(problem.getMessage()) in _AT_THE_END
    try:
        parser.Parse(b"", True)
    except expat.ExpatError:
        return not _closes_with(body, b">")
    return False


def _closes_with(body: bytes, end: bytes) -> bool:
    """Whether `body` and `end` make a well-formed whole: a document whose last byte is the `>` of its
    root's end tag (`…</rss`) lost nothing but that byte, and every item is there."""
    from xml.parsers import expat

    try:
        expat.ParserCreate().Parse(body + end, True)
    except expat.ExpatError:
        return False
    return True


# expat's words for a document that stops too soon (`no element found` also when there is no root at all)
_AT_THE_END = ("no element found", "unclosed token", "unclosed CDATA section", "partial character")


def _item(entry: Any, now: datetime, base: str | None = None) -> dict[str, Any]:
    link = _resolved(entry.get("link") or entry.get("id") or "", base)
    record: dict[str, Any] = {
        "url": canonical_url(link) if link else "",
        "title": _title(entry),
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


def _resolved(link: str, base: str | None) -> str:
    """A relative link joined to the base; an absolute one exactly as written (ValueError: unreadable)."""
    from urllib.parse import urljoin, urlsplit

    if not base or not link or urlsplit(link.strip()).scheme:
        return link
    return urljoin(base, link.strip())


def _title(entry: Any) -> str:
    """The title as plain text, like the summary; one the feed marks as plain text has no markup to strip."""
    title = entry.get("title") or ""
    kind = str((entry.get("title_detail") or {}).get("type") or "")
    return one_line(_strip_tags(title) if "html" in kind else title)


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
