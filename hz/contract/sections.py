"""The Markdown body of a contract: its sections, facets and items, and its canonical form.

The body is parsed once with markdown-it-py. Headings are matched by text, not level: a leading title
that is alone on its level is the document title, and the shallowest level of the remaining headings
counts as `###` (one deeper as `####`). The canonical form rewrites every heading as ATX at its
normalized level and every bullet marker as `-`, so cosmetic edits do not change a fingerprint.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any

from hz.contract.text import strip_comments, tidy

SECTION_LEVEL = 3
FACET_LEVEL = 4
_ITEM = re.compile(r"^(`+)(?P<name>[^`]+?)\1\s*:?\s*(?P<text>.*)$", re.DOTALL)
_BULLET = re.compile(r"^(?P<lead>[ \t]*(?:>[ \t]?)*[ \t]*)[*+-](?=[ \t]|$)")


@dataclass(frozen=True)
class Item:
    """A backticked list item, `- \\`name\\`: text`, and the `####` facets written under it."""

    name: str
    text: str
    line: int
    facets: tuple[str, ...] = ()


@dataclass(frozen=True)
class Facet:
    name: str
    text: str
    line: int
    item: str | None  # the item it follows in its section, if any


@dataclass(frozen=True)
class Section:
    """One `###` section: `name` is the normalized heading text, `text` its intent text (no comments)."""

    name: str
    heading: str
    text: str
    line: int
    items: Mapping[str, Item]
    facets: tuple[Facet, ...]
    list_items: int  # how many list items of any kind the section holds (Done when needs one)


@dataclass(frozen=True)
class Stray:
    """A heading above the level the sections are written at (`## Notes` among `### Goal`, …)."""

    heading: str
    line: int
    written: int  # its level as written
    sections: int  # the level the contract's sections are written at


@dataclass(frozen=True)
class Body:
    title: str | None
    sections: tuple[Section, ...]  # in file order, duplicates included
    canonical: str  # the whole body in canonical form, comments kept
    stray: tuple[Stray, ...] = ()  # headings that are neither the title nor at or below the section level


@dataclass(frozen=True)
class _Heading:
    index: int  # line index within the body
    level: int  # normalized
    text: str


def section_key(heading: str) -> str:
    """How a heading is matched: case-insensitive, spaces collapsed, no trailing colon."""
    return " ".join(heading.replace("`", "").split()).rstrip(":").strip().lower()


@cache
def _markdown() -> Any:
    from markdown_it import MarkdownIt

    # Only the block structure matters here (headings, lists, fences, HTML blocks). Headings and items
    # are read from each block's raw text, so inline parsing, the costliest pass, is switched off.
    return MarkdownIt("commonmark").disable("inline")


def parse_body(body: str, first_line: int = 1) -> Body:
    """Parse a normalized body whose first line is line `first_line` of the file."""
    tokens = _markdown().parse(body)
    lines: list[str | None] = list(body.split("\n"))
    headings, stray = _normalize_headings(tokens, lines)
    _canonical_bullets(tokens, lines)
    title = headings[0].text if headings and headings[0].level < SECTION_LEVEL else None
    sections = _sections(tokens, lines, headings, first_line)
    canonical = tidy("\n".join(line for line in lines if line is not None))
    strays = tuple(Stray(text, index + first_line, level, written) for index, text, level, written in stray)
    return Body(title, tuple(sections), canonical, strays)


def _normalize_headings(
    tokens: list[Any], lines: list[str | None]
) -> tuple[list[_Heading], list[tuple[int, str, int, int]]]:
    """The headings at their normalized levels, and the ones above the section level (index, text, level,
    section level as written)."""
    found = [
        (token.map[0], token.map[1], int(token.tag[1]), " ".join(tokens[i + 1].content.split()))
        for i, token in enumerate(tokens)
        if token.type == "heading_open" and token.level == 0 and token.map
    ]
    levels = [level for _, _, level, _ in found]
    has_title = bool(found) and levels.count(levels[0]) == 1 and min(levels) == levels[0] and len(found) > 1
    if has_title and section_key(found[0][3]) in KNOWN_NAMES:
        has_title = False
    rest = found[1:] if has_title else found
    written = _section_level(rest)
    shift = written - SECTION_LEVEL
    out: list[_Heading] = []
    stray: list[tuple[int, str, int, int]] = []
    for position, (start, end, level, text) in enumerate(found):
        is_title = has_title and position == 0
        normalized = 1 if is_title else min(max(level - shift, 1), 6)
        if not is_title and level < written:
            stray.append((start, text, level, written))
            if _is_section_name(text):  # a known section written a level too high is still that section
                normalized = SECTION_LEVEL
        # Blank lines around every heading, so whether the author left one there is not material.
        lines[start] = "\n" + "#" * normalized + " " + text + "\n"
        for index in range(start + 1, end):  # a setext underline has no ATX counterpart
            lines[index] = None
        out.append(_Heading(start, normalized, text))
    return out, stray


def _section_level(headings: list[tuple[int, int, int, str]]) -> int:
    """The level the sections are written at: where the known section names stand (the most used such
    level, the shallowest on a tie), else the shallowest level. So one stray `## Notes` above `### Goal`
    does not push every section down to a facet."""
    named = Counter(level for _, _, level, text in headings if _is_section_name(text))
    if named:
        return max(named.items(), key=lambda pair: (pair[1], -pair[0]))[0]
    return min((level for _, _, level, _ in headings), default=SECTION_LEVEL)


def _is_section_name(heading: str) -> bool:
    key = section_key(heading)
    return key in KNOWN_NAMES or key in RETIRED


def _canonical_bullets(tokens: list[Any], lines: list[str | None]) -> None:
    for token in tokens:
        if token.type == "list_item_open" and token.markup in "*+" and token.map:
            line = lines[token.map[0]]
            if line is not None:
                lines[token.map[0]] = _BULLET.sub(r"\g<lead>-", line, count=1)


def _sections(tokens: list[Any], lines: list[str | None], headings: list[_Heading], first_line: int) -> list[Section]:
    """Every `###` section, each built from its own slice of headings and list items.

    Sections, headings and list items all come in line order, so one index over them finds each
    section's share by bisection: the work is linear in the body, however many sections it holds.
    """
    index = _Index(tokens, headings)
    starts = [h for h in headings if h.level <= SECTION_LEVEL]
    out: list[Section] = []
    for number, heading in enumerate(starts):
        if heading.level < SECTION_LEVEL:
            continue  # the document title
        end = starts[number + 1].index if number + 1 < len(starts) else len(lines)
        out.append(_section(index, lines, heading, end, first_line))
    return out


class _Index:
    """The headings and list items of a body, in line order, for lookups by line range."""

    def __init__(self, tokens: list[Any], headings: list[_Heading]) -> None:
        self.tokens = tokens
        self.headings = headings
        self.heading_lines = [h.index for h in headings]
        # (first line, token position, nesting level) of every list item, in line order
        self.list_items = [
            (t.map[0], position, t.level) for position, t in enumerate(tokens) if t.type == "list_item_open" and t.map
        ]
        self.item_lines = [line for line, _, _ in self.list_items]

    def headings_within(self, start: int, end: int) -> list[_Heading]:
        """Headings strictly after line `start` and before line `end`."""
        return self.headings[bisect_right(self.heading_lines, start) : bisect_left(self.heading_lines, end)]

    def list_items_within(self, start: int, end: int) -> list[tuple[int, int, int]]:
        return self.list_items[bisect_right(self.item_lines, start) : bisect_left(self.item_lines, end)]


def _section(index: _Index, lines: list[str | None], heading: _Heading, end: int, first_line: int) -> Section:
    within = index.list_items_within(heading.index, end)
    items = _items(index.tokens, within, first_line)
    inner = index.headings_within(heading.index, end)
    # where each inner heading's text ends: at the next heading of facet level or above, else the section end
    ends: list[int] = [end] * len(inner)
    for number in range(len(inner) - 2, -1, -1):
        after = inner[number + 1]
        ends[number] = after.index if after.level <= FACET_LEVEL else ends[number + 1]
    facet_heads = [(n, h) for n, h in enumerate(inner) if h.level == FACET_LEVEL]
    item_lines = [item.line for item in items]
    facets: list[Facet] = []
    for number, head in facet_heads:
        facet_end = ends[number]
        owner = _owner(items, item_lines, head.index + first_line, len(facet_heads))
        text = _intent(lines, head.index + 1, facet_end)
        facets.append(Facet(head.text.replace("`", ""), text, head.index + first_line, owner))
    own: dict[str, list[str]] = {}
    for facet in facets:
        if facet.item is not None:
            own.setdefault(facet.item, []).append(facet.name)
    named: dict[str, Item] = {}
    for item in items:
        named.setdefault(item.name, Item(item.name, item.text, item.line, tuple(own.get(item.name, ()))))
    text = _intent(lines, heading.index + 1, end)
    return Section(
        section_key(heading.text), heading.text, text, heading.index + first_line, named, tuple(facets), len(within)
    )


def _owner(items: list[Item], item_lines: list[int], line: int, facet_count: int) -> str | None:
    before = bisect_left(item_lines, line)
    if before:
        return items[before - 1].name
    # Facets written above a single item still belong to it.
    return items[0].name if len(items) == 1 and facet_count else None


def _items(tokens: list[Any], within: list[tuple[int, int, int]], first_line: int) -> list[Item]:
    out: list[Item] = []
    for line, position, level in within:
        if level != 1:
            continue
        inline = tokens[position + 2] if position + 2 < len(tokens) and tokens[position + 2].type == "inline" else None
        match = _ITEM.match(inline.content) if inline is not None else None
        if match:
            text = tidy(strip_comments(match.group("text")))
            out.append(Item(match.group("name").strip(), text, line + first_line))
    return out


def _intent(lines: list[str | None], start: int, end: int) -> str:
    return tidy(strip_comments("\n".join([line for line in lines[start:end] if line is not None])))


# Section names of schema 1, and the OpenProse sections it retired with what replaces them.
KNOWN_NAMES = frozenset(
    {"description", "goal", "requires", "maintains", "continuity", "steps", "done when", "invariants", "tools"}
)
RETIRED: dict[str, str] = {
    "criteria": "### Done when",
    "ensures": "### Done when",
    "postconditions": "### Done when",
    "execution": "### Steps (ProseScript is not supported; write ordered guidance instead)",
    "strategies": "### Steps",
}
# Sections that state who, when or background, not what is correct: left out of the contract fingerprint.
UNFINGERPRINTED = frozenset({"description", "continuity"})
