"""Text and addresses in the decoded values of an event: what the lint looks for before any type check.

The checks run on values after JSON decoding (so `\\u0040` is already `@`) and after Unicode
compatibility folding (NFKC), which turns the fullwidth `＠` (U+FF20) and the small `﹫` (U+FE6B) into a
plain `@`. Spelled-out addresses (`priya at example dot com`, `priya [at] example [dot] com`) are folded
to their symbol form first, so one pattern finds every spelling.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Iterator
from typing import Any

from hz.addresses import looks_like_address

# `at`/`dot` as a word between blanks, or inside brackets with or without blanks around them. A match
# starts only where a run of blanks starts (`(?<!\s)`): the leftmost match starts there anyway, and
# trying every blank of a run of 4,000 as a start took 0.4 s per value (quadratic).
_SPELLED_AT = re.compile(r"(?<!\s)(?:\s*[\[\(\{<]\s*at\s*[\]\)\}>]\s*|\s+at\s+)", re.IGNORECASE)
_SPELLED_DOT = re.compile(r"(?<!\s)(?:\s*[\[\(\{<]\s*dot\s*[\]\)\}>]\s*|\s+dot\s+)", re.IGNORECASE)

BANNED_WORDS = frozenset(
    {"text", "draft", "body", "transcript", "summary", "lesson", "message", "prompt", "content", "name", "email"}
)
# a field may name a banned thing when it only holds that thing's fingerprint or id (draft_hash)
HARMLESS_SUFFIXES = frozenset({"hash", "fp", "id", "key", "size", "count"})


@functools.lru_cache(maxsize=1024)  # a push repeats the same dozen field names in every event
def banned_field(name: str) -> bool:
    parts = [p for p in re.split(r"[_.\-]", name.lower()) if p]
    if not parts or (parts[-1] in HARMLESS_SUFFIXES and len(parts) > 1):
        return False
    return any(p in BANNED_WORDS for p in parts)


def folded(value: str) -> str:
    """`value` with every spelling of `@` and `.` in an address reduced to the plain symbol."""
    plain = unicodedata.normalize("NFKC", value)
    return _SPELLED_DOT.sub(".", _SPELLED_AT.sub("@", plain))


_SPELLING = re.compile(r"[\s\[\(\{<]")


def address_in(value: str) -> bool:
    if value.isascii() and _SPELLING.search(value) is None:
        # NFKC leaves ASCII as it is, and `at` or `dot` spelled out needs a blank or a bracket: `folded`
        # would return `value` itself, so the hook's thousands of ids and hashes skip it
        return looks_like_address(value)
    return looks_like_address(folded(value))


def strings(value: Any) -> Iterator[str]:
    """Every string in a decoded JSON value, object keys included."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, child in value.items():
            yield key
            yield from strings(child)
    elif isinstance(value, list):
        for child in value:
            yield from strings(child)


def first_address(value: Any) -> str | None:
    """The first string in `value` that holds something shaped like an address, or None."""
    return next((s for s in strings(value) if address_in(s)), None)


_BLANK_OR_ESCAPE = re.compile(r"[\s\\]")
_BRACKETED = re.compile(r"[\[\(\{<](?:at|dot)[\]\)\}>]", re.IGNORECASE)


def first_address_of(line: str, value: Any) -> str | None:
    """`first_address(value)` for `value` decoded from the JSON text `line`, without walking it when the text
    shows there is none: ASCII with no blank and no escape holds every string verbatim, each one already
    folded (NFKC keeps ASCII, and no `[at]` or `(dot)` is spelled in it), and an address in the text lies
    inside one string (its `@`, the letter before and the domain after are never quotes or JSON syntax)."""
    text = line.removesuffix("\n")  # an event file's own newline is outside every string
    plain = text.isascii() and _BLANK_OR_ESCAPE.search(text) is None and _BRACKETED.search(text) is None
    if plain and not looks_like_address(text):
        return None
    return first_address(value)


def field_names(value: Any, prefix: str = "") -> Iterator[str]:
    """Dotted names of every object key in `value` (`data.cost_usd`)."""
    if isinstance(value, dict):
        for key, child in value.items():
            name = f"{prefix}{key}"
            yield name
            yield from field_names(child, name + ".")
    elif isinstance(value, list):
        for child in value:
            yield from field_names(child, prefix)


@functools.lru_cache(maxsize=256)  # every event of a kind has the same keys at each level
def _banned_of(keys: tuple[str, ...]) -> frozenset[str]:
    return frozenset(key for key in keys if banned_field(key.rsplit(".", 1)[-1]))


def banned_names(value: Any, prefix: str = "") -> list[str]:
    """The dotted names of `field_names(value)` whose last part `banned_field` refuses, in the same order;
    each object's keys are judged once per set of keys, so a push of thousands of alike events pays once."""
    found: list[str] = []
    if isinstance(value, dict):
        banned = _banned_of(tuple(value))
        for key, child in value.items():
            if key in banned:
                found.append(prefix + key)
            if isinstance(child, (dict, list)):
                found.extend(banned_names(child, f"{prefix}{key}."))
    elif isinstance(value, list):
        for child in value:
            if isinstance(child, (dict, list)):
                found.extend(banned_names(child, prefix))
    return found
