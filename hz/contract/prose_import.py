"""Import an OpenProse responsibility: the `hz:` block written from the file's own items and facets.

The reverse of `hz.contract.export`. The body is taken in its canonical form (every heading at its
normalized level, so a file written with `## Goal` reads like one with `### Goal`), names hz cannot take
are renamed the same way in the frontmatter and the body (`hz.contract.prose_names`), postconditions
move from `### Maintains` to `### Done when`, and retired OpenProse sections move to the hz section that
took over their job. What only the author can say (who owns it, where an input is read from, the
postconditions) is never invented: it is left out with a TODO, so validation names it until it is written.
What has a safe default is filled in and reported: a `state:` target per output, `scope: team`, a title,
the description from the goal, a fresh id.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from hz.contract.prose_names import identifiers, readable
from hz.contract.sections import Body, Section, parse_body, section_key
from hz.contract.text import Split, normalize, split_frontmatter, tidy
from hz.errors import HzError

TODO = "TODO(import-prose)"
# OpenProse sections hz retired, and the hz section whose job each one was (`hz.contract.sections.RETIRED`
# names the ones validation rejects; the rest were dropped from OpenProse before hz existed).
RETIRED_TARGETS: dict[str, str] = {
    "criteria": "done when",
    "ensures": "done when",
    "postconditions": "done when",
    "execution": "steps",
    "strategies": "steps",
    "fulfillment": "steps",
    "memory": "steps",
    "constraints": "invariants",
    "services": "description",
    "wiring": "description",
}
_HEADINGS = {"done when": "Done when", "steps": "Steps", "invariants": "Invariants", "description": "Description"}
_WHY_MOVED = {
    "execution": "hz does not run ProseScript; the agent reads it as guidance",
    "memory": "hz keeps state in the outputs of ### Maintains; what to carry between renders is guidance",
    "services": "hz wires contracts through hz.inputs (contract:<ns>/<name>#<facet>) and hz.tools: declare them there",
    "wiring": "hz wires contracts through hz.inputs (contract:<ns>/<name>#<facet>) and hz.tools: declare them there",
}
_KEEP_KEYS = ("name", "kind", "id", "version", "description")
# `Postconditions:` on a line of its own (or `**Postconditions:**`), possibly followed by the first one
_POSTCONDITIONS = re.compile(r"^\s*(?:\*\*|__)?postconditions?(?:\*\*|__)?\s*:\s*(?:\*\*|__)?\s*(?P<rest>.*)$", re.I)
_POSTCONDITION_KEYS = ("postconditions", "postcondition")
_HEADING = re.compile(r"^(?P<marks>#{1,6}) (?P<text>.*)$")
_FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")
_CODE_SPAN = re.compile(r"(?<!`)`(?P<name>[^`\n]+)`(?!`)")
_TOOL = re.compile(r"\b(?:cli|mcp):[A-Za-z0-9][A-Za-z0-9._-]*")


@dataclass(frozen=True)
class ProseFile:
    """A file with frontmatter that has an OpenProse `kind` and no `hz:` block."""

    data: dict[str, Any]
    split: Split

    @property
    def kind(self) -> str:
        return str(self.data.get("kind"))

    @property
    def name(self) -> str | None:
        name = self.data.get("name")
        return name if isinstance(name, str) else None


def read_prose(text: str) -> ProseFile | None:
    """The OpenProse file `text` holds, or None when it is something else (an hz contract, no frontmatter)."""
    from hz.contract.yamlload import YamlProblem, load_mapping

    split = split_frontmatter(normalize(text))
    if split is None:
        return None
    try:
        data = load_mapping(split.yaml)
    except YamlProblem:
        return None
    if "hz" in data or not isinstance(data.get("kind"), str):
        return None
    return ProseFile(data, split)


def kind_refusal(kind: str) -> HzError | None:
    """Why a file of this OpenProse kind cannot become a contract (None for a responsibility)."""
    if kind == "responsibility":
        return None
    from hz.contract.validate import _KIND_HINTS  # one wording of what to do with each kind

    hint = _KIND_HINTS.get(kind, "hz serves kind: responsibility only (a state that stays true)")
    return HzError(f"this is an OpenProse {kind}, and hz serves responsibilities only", hint=hint)


@dataclass
class Imported:
    text: str  # the hz contract
    renames: dict[str, str]  # OpenProse name -> identifier, only the names that changed
    notes: list[str] = field(default_factory=list)  # what the import filled in or moved
    todos: list[str] = field(default_factory=list)  # what the author must still write


@dataclass
class _Chunk:
    """A `###` section of the canonical body (or the part before the first one: key None)."""

    key: str | None
    lines: list[str]


@dataclass
class _Names:
    inputs: dict[str, tuple[str, ...]]  # OpenProse input name -> its facet names, in body order
    outputs: dict[str, tuple[str, ...]]
    loose_inputs: list[str]  # `####` facets of ### Requires under no item: each becomes an input
    synthesized: str | None  # the output item written for a ### Maintains that has facets but no item


def import_prose(prose: ProseFile, *, owner: str | None, contract_id: str) -> Imported:
    """The hz contract for an OpenProse responsibility. HzError for another kind or no name."""
    refusal = kind_refusal(prose.kind)
    if refusal is not None:
        raise refusal
    name = prose.name
    if not name:
        raise HzError("the OpenProse file has no name", hint="add name: <the file name without .prose.md>")
    canonical = parse_body(prose.split.body).canonical
    body = parse_body(canonical)
    sections = _first_sections(body)
    names = _names(sections, name)
    every = [*names.inputs, *(f for fs in names.inputs.values() for f in fs), *names.loose_inputs]
    every += [*names.outputs, *(f for fs in names.outputs.values() for f in fs)]
    mapping = identifiers(every)
    out = Imported("", {old: new for old, new in mapping.items() if old != new})
    lines = _renamed(canonical.split("\n"), body, mapping)
    chunks = _chunks(lines)
    _loose_inputs(chunks, {mapping[n] for n in names.loose_inputs})
    if names.synthesized is not None:
        _add_output_item(chunks, mapping[names.synthesized])
        out.notes.append(f"### Maintains has facets but no item: added the output item `{mapping[names.synthesized]}`")
    done = _lift_postconditions(chunks)
    _move_retired(chunks, done, out)
    text_body = "\n\n".join(t for t in (tidy("\n".join(c.lines)) for c in chunks) if t)
    frontmatter = _frontmatter(prose, names, mapping, sections, body, owner=owner, contract_id=contract_id, out=out)
    out.text = "---\n" + frontmatter + "---\n\n" + text_body + "\n"
    for old, new in out.renames.items():
        where = "in the frontmatter and wherever the body writes it in backticks, outside code blocks"
        out.notes.append(f"renamed {old!r} to {new!r} {where}")
    return out


def _first_sections(body: Body) -> dict[str, Section]:
    out: dict[str, Section] = {}
    for section in body.sections:
        out.setdefault(section.name, section)
    return out


def _names(sections: Mapping[str, Section], contract: str) -> _Names:
    requires, maintains = sections.get("requires"), sections.get("maintains")
    inputs = {n: _facets(item.facets) for n, item in requires.items.items()} if requires else {}
    loose = [f.name for f in requires.facets if f.item is None] if requires else []
    outputs = {n: _facets(item.facets) for n, item in maintains.items.items()} if maintains else {}
    synthesized = None
    if maintains is not None and not outputs and _facets(f.name for f in maintains.facets):
        synthesized = readable(contract)
        outputs[synthesized] = _facets(f.name for f in maintains.facets)
    return _Names(inputs, outputs, [n for n in dict.fromkeys(loose) if n not in inputs], synthesized)


def _facets(names: Iterator[str] | tuple[str, ...]) -> tuple[str, ...]:
    """Facet names without the `#### Postconditions` heading some authors put among them."""
    return tuple(dict.fromkeys(n for n in names if section_key(n) not in _POSTCONDITION_KEYS))


def _renamed(lines: list[str], body: Body, mapping: Mapping[str, str]) -> list[str]:
    """The canonical lines with every facet heading and every code span naming a renamed name rewritten."""
    out = list(lines)
    for section in body.sections:
        if section.name not in ("requires", "maintains"):
            continue
        for facet in section.facets:
            new = mapping.get(facet.name)
            heading = _HEADING.match(out[facet.line - 1])
            if new is not None and new != facet.name and heading:
                out[facet.line - 1] = f"{heading.group('marks')} {new}"
    for index, (line, code) in enumerate(zip(out, _in_code(out), strict=True)):
        if not code and "`" in line:  # code blocks are left as written: they may be anything
            out[index] = _CODE_SPAN.sub(lambda m: f"`{mapping.get(m.group('name'), m.group('name'))}`", line)
    return out


def _in_code(lines: list[str]) -> list[bool]:
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


def _chunks(lines: list[str]) -> list[_Chunk]:
    """The lines cut before every heading of section level or above (outside code fences)."""
    chunks = [_Chunk(None, [])]
    for line, code in zip(lines, _in_code(lines), strict=True):
        heading = None if code else _HEADING.match(line)
        if heading and len(heading.group("marks")) <= 3:
            level = len(heading.group("marks"))
            chunks.append(_Chunk(section_key(heading.group("text")) if level == 3 else None, []))
        chunks[-1].lines.append(line)
    return chunks


def _find(chunks: list[_Chunk], key: str) -> _Chunk | None:
    return next((c for c in chunks if c.key == key), None)


def _loose_inputs(chunks: list[_Chunk], loose: set[str]) -> None:
    """`#### facet` under ### Requires with no item: OpenProse subscribes to that facet of whoever
    maintains it; in hz each becomes an input item, read from the contract that maintains it."""
    requires = _find(chunks, "requires")
    if requires is None or not loose:
        return
    out: list[str] = []
    lines = requires.lines
    index = 0
    while index < len(lines):
        heading = _HEADING.match(lines[index])
        named = heading.group("text").replace("`", "") if heading else ""
        if heading and len(heading.group("marks")) == 4 and named in loose:
            end = index + 1
            while end < len(lines) and not _HEADING.match(lines[end]):
                end += 1
            paragraphs = tidy("\n".join(lines[index + 1 : end])).split("\n\n")
            first = " ".join(paragraphs[0].split()) or "an upstream facet this responsibility reads."
            out += [f"- `{named}`: {first}"]
            out += ["  " + line if line else "" for line in "\n\n".join(paragraphs[1:]).split("\n") if paragraphs[1:]]
            out.append("")
            index = end
            continue
        out.append(lines[index])
        index += 1
    requires.lines = out


def _add_output_item(chunks: list[_Chunk], name: str) -> None:
    maintains = _find(chunks, "maintains")
    if maintains is None:
        return
    lines = maintains.lines
    first_facet = next((i for i, line in enumerate(lines) if line.startswith("#### ")), len(lines))
    lines[first_facet:first_facet] = [f"- `{name}`: the state this responsibility keeps, in the facets below.", ""]


def _lift_postconditions(chunks: list[_Chunk]) -> list[str]:
    """Take the postconditions out of ### Maintains (a `Postconditions:` line or a `#### Postconditions`
    heading, up to the next heading), as `hz workflow export --prose` wrote them there."""
    maintains = _find(chunks, "maintains")
    if maintains is None:
        return []
    lines = maintains.lines
    for index, line in enumerate(lines[1:], start=1):
        heading = _HEADING.match(line)
        marker = _POSTCONDITIONS.match(line) if heading is None and not line.lstrip().startswith("-") else None
        if marker is None and not (heading and section_key(heading.group("text")) in _POSTCONDITION_KEYS):
            continue
        end = index + 1
        while end < len(lines) and not _HEADING.match(lines[end]):
            end += 1
        rest = marker.group("rest").strip() if marker else ""
        taken = ([f"- {rest}", ""] if rest else []) + lines[index + 1 : end]
        maintains.lines = lines[:index] + lines[end:]
        return taken
    return []


def _move_retired(chunks: list[_Chunk], done: list[str], out: Imported) -> None:
    """Retired sections into the hz section that does their job, keeping their text; Done when last."""
    moved: dict[str, list[str]] = {"done when": done} if done else {}
    kept: list[_Chunk] = []
    for chunk in chunks:
        target = RETIRED_TARGETS.get(chunk.key or "")
        if target is None:
            kept.append(chunk)
            continue
        heading = chunk.lines[0].lstrip("# ").strip()
        why = _WHY_MOVED.get(chunk.key or "")
        out.notes.append(f"### {heading} is retired in OpenProse: moved to ### {_HEADINGS[target]}")
        if chunk.key in ("services", "wiring"):
            out.todos.append(f"### {heading} (now in ### Description): {why}")
        comment = f"<!-- from ### {heading}{': ' + why if why else ''} -->"
        moved.setdefault(target, []).extend(["", comment, *chunk.lines[1:]])
    if done:
        out.notes.append("moved the postconditions of ### Maintains to ### Done when")
    for target, lines in moved.items():
        into = _find(kept, target)
        if into is None:
            into = _Chunk(target, [f"### {_HEADINGS[target]}"])
            kept.insert(1 if target == "description" else len(kept), into)
        into.lines += ["", *lines]
    if _find(kept, "done when") is None:
        kept.append(_Chunk("done when", ["### Done when", "", f"<!-- {TODO}: list the postconditions as items -->"]))
        out.todos.append(
            "### Done when: list the postconditions as items (- [ ] …), the checks that show the goal holds"
        )
    chunks[:] = kept


def _frontmatter(
    prose: ProseFile,
    names: _Names,
    mapping: Mapping[str, str],
    sections: Mapping[str, Section],
    body: Body,
    *,
    owner: str | None,
    contract_id: str,
    out: Imported,
) -> str:
    data = prose.data
    name = str(data["name"])
    lines = [f"{key}: {_scalar(data[key])}" for key in _KEEP_KEYS if key in data and key != "description"]
    if "id" not in data:
        lines.insert(2, f"id: {_scalar(contract_id)}")
        out.notes.append("minted an id for the ledger (OpenProse ids are minted by tools, never typed)")
    lines.append(_description(data, sections, out))
    for key, value in data.items():
        if key not in _KEEP_KEYS:
            kept = key if key.startswith("x-") else f"x-{key}"
            lines.append(f"{_scalar(kept)}: {json.dumps(value, ensure_ascii=False, default=str)}")
            if kept != key:
                out.notes.append(
                    f"kept the frontmatter key {key!r} as {kept!r} (hz tolerates x-* keys for other tools)"
                )
    title = (body.title or name.replace("-", " ").capitalize())[:80]
    lines += ["hz:", "  schema: 1", f"  title: {_scalar(title)}"]
    if owner:
        lines.append(f"  owner: {_scalar(owner)}")
    else:
        lines.append(f'  # {TODO}: owner: "@github-handle", the person accountable for this contract')
        out.todos.append('hz.owner: the accountable person, such as owner: "@someone" (or pass --owner)')
    lines.append("  scope: team")
    lines += _inputs(names, mapping, out)
    lines += _outputs(names, mapping, name, out)
    tools = sorted(set(_TOOL.findall(sections["tools"].text))) if "tools" in sections else []
    if tools:
        lines.append(f"  tools: {json.dumps(tools)}")
    if not names.inputs and not names.loose_inputs:
        out.todos.append("nothing wakes this contract: add hz.schedule, or hz.inputs it reacts to")
    if "goal" not in sections or not sections["goal"].text:
        out.todos.append("### Goal: one sentence saying what stays true")
    return "\n".join(lines) + "\n"


def _description(data: Mapping[str, Any], sections: Mapping[str, Section], out: Imported) -> str:
    if "description" in data:
        return f"description: {_scalar(data['description'])}"
    goal = sections.get("goal")
    text = " ".join(goal.text.split()) if goal else ""
    if not text:
        out.todos.append("description: what the contract keeps true, and for whom")
        return f"# {TODO}: description: what this keeps true, and for whom"
    out.notes.append("description: taken from ### Goal")
    return f"description: {_scalar(text[:1024])}"


def _inputs(names: _Names, mapping: Mapping[str, str], out: Imported) -> list[str]:
    if not names.inputs and not names.loose_inputs:
        return []
    lines = ["  inputs:"]
    for old, facets in [*names.inputs.items(), *((n, ()) for n in names.loose_inputs)]:
        new = mapping[old]
        upstream = old in names.loose_inputs
        example = f"contract:team/<its name>#{new}" if upstream else "git:., feed:https://… or contract:team/<name>"
        comment = f"# {TODO}: source: where `{new}` is read from, such as {example}"
        if facets:
            lines += [f"    {new}:", f"      {comment}", f"      facets: {_flow(mapping[f] for f in facets)}"]
        else:
            lines += [f"    {new}: {{}}  {comment}"]
        out.todos.append(f"hz.inputs.{new}.source: where it is read from, such as {example}")
    return lines


def _outputs(names: _Names, mapping: Mapping[str, str], contract: str, out: Imported) -> list[str]:
    if not names.outputs:
        out.todos.append("### Maintains and hz.outputs: one item - `name`: … per output, a #### heading per facet")
        return [f"  # {TODO}: outputs: what this maintains, one per item of ### Maintains"]
    lines = ["  outputs:"]
    for old, facets in names.outputs.items():
        new = mapping[old]
        target = f"state:{contract}/{new}.md"
        lines += [f"    {new}:", f"      target: {_scalar(target)}"]
        if facets:
            lines.append(f"      facets: {_flow(mapping[f] for f in facets)}")
        else:
            lines.append(f"      facets: []  # {TODO}: one #### heading per facet under `{new}` in ### Maintains")
            out.todos.append(f"hz.outputs.{new}.facets: write a #### heading per facet under `{new}`, and list them")
        out.notes.append(f"hz.outputs.{new}.target: {target} (drafts land in the state repository; change it freely)")
    return lines


def _scalar(value: Any) -> str:
    """A YAML 1.2 scalar for any value read from the file: JSON text is valid YAML and quotes everything."""
    return json.dumps(value, ensure_ascii=False, default=str)


def _flow(names: Iterator[str] | list[str]) -> str:
    return "[" + ", ".join(names) + "]"
