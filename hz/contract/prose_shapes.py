"""The shapes OpenProse bodies are written in, reshaped into the sections an hz contract reads.

`hz.contract.prose_import` cuts the canonical body into chunks (a `###` section each, and the part before
the first one) and moves them; the shapes people write today are read here:

- a `# Title` and a lead paragraph (often a `>` quote) in place of `### Goal`: the lead becomes
  `### Description`, its first sentence the Goal;
- a `### Description` and no Goal: the Goal is the description's first sentence;
- a `### Maintains` whose items carry no `####` facets (`- \\`path\\`: …`, `- \\`html\\`: …`): a field list
  of one output, so each item becomes a facet of that one output;
- inline components (`## reviewer` with its own `### Parameters`): reported, kept in the body as text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from hz.contract.sections import section_key

HEADING = re.compile(r"^(?P<marks>#{1,6}) (?P<text>.*)$")
_FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")
_QUOTE = re.compile(r"^\s{0,3}> ?")
_FIELD = re.compile(r"^[-*+] `(?P<name>[^`\n]+)`\s*(?:[:\u2014\u2013]|-(?=\s))?\s*(?P<rest>.*)$")
# A sentence ends at . ! or ? followed by a blank and what starts a sentence (not `e.g. x`, not `v1.2`).
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(`*_\[])")
_ABBREVIATIONS = ("e.g.", "i.e.", "etc.", "vs.", "cf.")


@dataclass
class Chunk:
    """A `###` section of the canonical body (or the part before the first one, or a `##`/`#` part: key None)."""

    key: str | None
    lines: list[str]


def in_code(lines: list[str]) -> list[bool]:
    """For each line, whether it belongs to a fenced code block (its fences included)."""
    out: list[bool] = []
    fence: str | None = None
    for line in lines:
        opened = _FENCE.match(line)
        inside = fence is not None or opened is not None
        if opened:
            mark = opened.group(1)
            if fence is None:
                fence = mark
            elif mark[0] == fence[0] and len(mark) >= len(fence):
                fence = None
        out.append(inside)
    return out


def chunks(lines: list[str]) -> list[Chunk]:
    """The lines cut before every heading of section level or above (outside code fences)."""
    out = [Chunk(None, [])]
    for line, code in zip(lines, in_code(lines), strict=True):
        heading = None if code else HEADING.match(line)
        if heading and len(heading.group("marks")) <= 3:
            level = len(heading.group("marks"))
            out.append(Chunk(section_key(heading.group("text")) if level == 3 else None, []))
        out[-1].lines.append(line)
    return out


def find(found: list[Chunk], key: str) -> Chunk | None:
    return next((c for c in found if c.key == key), None)


def first_sentence(text: str) -> str:
    """The first sentence of `text`, whitespace folded; the whole text when it has one sentence."""
    folded = " ".join(text.split())
    for match in _SENTENCE_END.finditer(folded):
        before = folded[: match.start()]
        if not before.lower().endswith(_ABBREVIATIONS):
            return before
    return folded


def take_lead(found: list[Chunk]) -> str:
    """The lead of the body: the paragraphs before the first section, under the `# Title` (quote marks
    dropped). They are taken out of their chunks, which keep only their heading lines."""
    lead: list[str] = []
    for chunk in found:
        if chunk.key is not None:
            break
        code = in_code(chunk.lines)
        headings = [line for line, inside in zip(chunk.lines, code, strict=True) if not inside and HEADING.match(line)]
        rest = [_QUOTE.sub("", line) for line in chunk.lines if line not in headings]
        text = "\n".join(rest).strip("\n")
        if text.strip() and not (text.lstrip().startswith("<!--") and text.rstrip().endswith("-->")):
            lead.append(text)
            chunk.lines = headings
    return "\n\n".join(lead)


def components(found: list[Chunk]) -> list[str]:
    """The names of inline components: `##` parts after the first section (OpenProse's functions)."""
    names: list[str] = []
    seen_section = False
    for chunk in found:
        seen_section = seen_section or chunk.key is not None
        heading = HEADING.match(chunk.lines[0]) if chunk.lines else None
        if seen_section and chunk.key is None and heading and len(heading.group("marks")) == 2:
            names.append(heading.group("text").strip())
    return names


def named_list(text: str) -> list[str]:
    r"""The further names of an item written as a list of them (`- \`a\`, \`b\`, \`c\`.`): here `b`, `c`."""
    if not _MORE_NAMES.fullmatch(text.strip()):
        return []
    return re.findall(r"`([^`\n]+)`", text)


def fields_as_facets(maintains: Chunk, fields: tuple[str, ...], output: str) -> None:
    r"""Rewrite a field list of ### Maintains (`- \`name\`: text`, continuation lines indented) as the
    `####` facets of one output item, which is put after the text above the list; other text stays above.

    A bullet naming a field again (a second list describing the facets) adds to that field's facet. A
    field with a nested list keeps it under a bullet naming the field without a code span, so no nested
    name reads as an item."""
    wanted = set(fields)
    above: list[str] = [maintains.lines[0]]
    said: dict[str, list[tuple[str, list[str]]]] = {}  # field -> (its text, its continuation lines) …
    current: list[str] | None = None  # the continuation lines being read
    for line in maintains.lines[1:]:
        match = _FIELD.match(line)
        name = match.group("name").replace("`", "") if match else ""
        if match and name in wanted:
            rest = match.group("rest").strip()
            names = [name, *(n for n in named_list(rest) if n in wanted)]
            for each in names:
                said.setdefault(each, [])
            current = []
            said[names[-1]].append(("" if len(names) > 1 else rest, current))
        elif current is not None and line.startswith((" ", "\t")) and line.strip():
            current.append(line)
        else:
            current = None
            above.append(line)
    while above and not above[-1].strip():
        above.pop()
    item = f"- `{output}`: the state this responsibility keeps, one facet per field below."
    facets = [line for name, parts in said.items() for line in _facet(name, parts, output)]
    maintains.lines = [*above, "", item, *facets, ""]


def _facet(name: str, parts: list[tuple[str, list[str]]], output: str) -> list[str]:
    """A field's facet: its heading, then each thing said of it (a nested list kept under a plain bullet)."""
    out = ["", f"#### {name}"]
    for text, more in parts:
        if any(_LIST.match(line.strip()) for line in more):
            out += ["", f"- {name}: {text}".rstrip(), *more]
        elif text or more:
            out += ["", " ".join([text, *(line.strip() for line in more)]).strip()]
    return out if len(out) > 2 else [*out, "", f"A field of `{output}`."]


_MORE_NAMES = re.compile(r"(?:,\s*(?:and\s+)?`[^`\n]+`)+\s*\.?")
_LIST = re.compile(r"^(?:[-*+]|\d+[.)])\s")


def whole_as_facet(maintains: Chunk, item: str) -> None:
    """An output item with no facets: one `####` facet of its own name, right under the item."""
    lines = maintains.lines
    for index, line in enumerate(lines):
        match = _FIELD.match(line)
        if match and match.group("name") == item:
            end = index + 1
            while end < len(lines) and lines[end].startswith((" ", "\t")) and lines[end].strip():
                end += 1
            lines[end:end] = ["", f"#### {item}", "", f"The whole of `{item}`.", ""]
            return


def postcondition_list(lines: list[str]) -> tuple[int, int] | None:
    """Where a list of postconditions stands in prose: the bullets right after a paragraph that names
    postconditions and ends with a colon ("… self-polices these **postconditions** before signing:")."""
    code = in_code(lines)
    for index, line in enumerate(lines):
        if code[index] or not line.rstrip().endswith(":") or _LIST.match(line.strip()):
            continue
        start = index
        while start > 0 and lines[start - 1].strip() and not code[start - 1]:
            start -= 1
        if "postcondition" not in " ".join(lines[start : index + 1]).lower():
            continue
        first = index + 1
        while first < len(lines) and not lines[first].strip():
            first += 1
        if first >= len(lines) or not _LIST.match(lines[first]):
            continue
        end = first
        while end < len(lines) and (_LIST.match(lines[end]) or lines[end].startswith((" ", "\t"))):
            end += 1
        if not any(_NAMING.match(line) for line in lines[first:end]):  # `- \`path\`: …` lists fields
            return first, end
    return None


_NAMING = re.compile(r"^[-*+] `[^`\n]+`\s*[:,]")
