"""Canonical forms of what sources return, so only material changes move a fingerprint.

URLs lose tracking parameters, fragments, default ports and letter-case noise; text is NFC with LF line
ends, no trailing blanks and no runs of empty lines; records lose the fields a source changes without
anything having happened (fetch times, counters). A canonical value is never None for real content: a
facet that comes out as None is a bug in its canonicalizer and is refused here rather than fingerprinted.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from hz.sources.fastjcs import fingerprint

# Query parameters that identify a campaign or a click, never the page.
TRACKING_PREFIXES = ("utm_", "mc_", "pk_", "hsa_", "_hs")
TRACKING_NAMES = frozenset(
    {"fbclid", "gclid", "dclid", "msclkid", "yclid", "igshid", "mkt_tok", "ref_src", "ref_url", "ncid", "cmpid"}
)
_DEFAULT_PORTS = {"http": 80, "https": 443}
_BLANK_RUNS = re.compile(r"\n{3,}")
_LONE_SURROGATES = re.compile("[\ud800-\udfff]")


class CanonicalizerBug(Exception):
    """A canonicalizer produced nothing for real content; fingerprinting it would hide every change."""


def canonical_url(url: str) -> str:
    """`url` without userinfo, tracking parameters or fragment, with lower-case scheme and host and sorted query."""
    text = url.strip()
    parts = urlsplit(text)
    if not parts.scheme or not parts.netloc:
        return text
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower()
    if parts.port is not None and parts.port != _DEFAULT_PORTS.get(scheme):
        host = f"{host}:{parts.port}"
    # no userinfo: a user name or password in a link is a credential, never part of what the page is
    query = sorted((k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if not is_tracking(k))
    return urlunsplit((scheme, host, parts.path or "/", urlencode(query), ""))


def is_tracking(name: str) -> bool:
    lowered = name.lower()
    return lowered in TRACKING_NAMES or lowered.startswith(TRACKING_PREFIXES)


def canonical_text(text: str) -> str:
    """NFC, LF line ends, trailing blanks stripped, blank-line runs collapsed, no leading/trailing empty lines."""
    normal = unicodedata.normalize("NFC", text).replace("\r\n", "\n").replace("\r", "\n")
    lines = "\n".join(line.rstrip() for line in normal.split("\n"))
    return _BLANK_RUNS.sub("\n\n", lines).strip("\n")


def one_line(text: str | None) -> str:
    """A title or subject: canonical text with all whitespace runs made one space."""
    return " ".join(canonical_text(text or "").split())


def escaped_name(name: str) -> str:
    """A file or ref name that may hold bytes that are not UTF-8, as text every canonical form can carry.

    Git and the file system hand such names over with Python's surrogateescape (byte 0xE9 as U+DCE9);
    each such byte becomes the four characters `\\xe9`, so the name stays readable, the same on every
    machine, and a UTF-8 name (every name so far) keeps its exact text and fingerprint. A literal
    `\\xe9` in a name reads the same; `hz.sources.file` names the second of two such files skipped.
    """
    if name.isascii():
        return name
    return _LONE_SURROGATES.sub(_escape, name)


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code - 0xDC00:02x}" if 0xDC80 <= code <= 0xDCFF else f"\\u{code:04x}"


def without(record: Mapping[str, Any], volatile: Iterable[str]) -> dict[str, Any]:
    """`record` minus the volatile keys (and minus keys whose value is None, so absent and null agree)."""
    drop = set(volatile)
    return {k: v for k, v in record.items() if k not in drop and v is not None}


def sorted_records(records: Iterable[Mapping[str, Any]], *keys: str) -> list[dict[str, Any]]:
    """Records in an order that depends only on their content: by `keys`, then by their whole JSON form."""
    from hz.canonical import canonical_json

    def order(record: Mapping[str, Any]) -> tuple[Any, ...]:
        return (*(str(record.get(k, "")) for k in keys), canonical_json(dict(record)))

    return [dict(r) for r in sorted(records, key=order)]


def facet_fingerprints(facets: Mapping[str, Any]) -> dict[str, str]:
    """One fingerprint per facet; a None facet value is a canonicalizer bug, never a silent constant."""
    missing = sorted(name for name, value in facets.items() if value is None)
    if missing:
        raise CanonicalizerBug(f"facet(s) {', '.join(missing)} canonicalized to null")
    return {name: fingerprint(value) for name, value in sorted(facets.items())}


def combined(fingerprints: Mapping[str, str]) -> str:
    """The fingerprint of a whole input: the canonical hash of its facet fingerprint map."""
    return fingerprint(dict(fingerprints))
