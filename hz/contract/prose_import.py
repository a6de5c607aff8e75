"""Import an OpenProse responsibility: the `hz:` block written from the file's own items and facets.

The reverse of `hz.contract.export`. The body is taken in its canonical form (every heading at its
normalized level, so a file written with `## Goal` reads like one with `### Goal`), names hz cannot take
are renamed the same way in the frontmatter and the body (`hz.contract.prose_names`), postconditions
move from `### Maintains` to `### Done when`, retired OpenProse sections move to the hz section that took
over their job, and today's shapes (a title and lead, field lists, inline components) are read by
`hz.contract.prose_shapes`. What only the author can say (who owns it, when it runs, where an input is
read from) is never invented: it is left out with a TODO, so validation names it until it is written.
What the file says some other way is taken from there and reported: the title, description and Goal
from the title and lead, the postconditions from the Goal when the file states none. What has a safe
default is filled in and reported: a `state:` target per output, `scope: team`, a fresh id, the name
from the file's name.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from hz.contract.prose_frontmatter import TODO, Imported, Names
from hz.contract.prose_frontmatter import frontmatter as write_frontmatter
from hz.contract.prose_names import identifiers, readable
from hz.contract.prose_shapes import (
    HEADING,
    Chunk,
    components,
    fields_as_facets,
    find,
    first_sentence,
    in_code,
    named_list,
    postcondition_list,
    take_lead,
    whole_as_facet,
)
from hz.contract.prose_shapes import chunks as cut_chunks
from hz.contract.sections import Body, Section, parse_body, section_key
from hz.contract.text import Split, normalize, split_frontmatter, tidy
from hz.errors import HzError

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
# `Postconditions:` on a line of its own (or `**Postconditions:**`), possibly followed by the first one
_POSTCONDITIONS = re.compile(r"^\s*(?:\*\*|__)?postconditions?(?:\*\*|__)?\s*:\s*(?:\*\*|__)?\s*(?P<rest>.*)$", re.I)
_POSTCONDITION_KEYS = ("postconditions", "postcondition")
_CODE_SPAN = re.compile(r"(?<!`)`(?P<name>[^`\n]+)`(?!`)")


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


def import_prose(prose: ProseFile, *, owner: str | None, contract_id: str, file_name: str | None = None) -> Imported:
    """The hz contract for an OpenProse responsibility. HzError for another kind, or no name at all
    (neither `name:` nor `file_name`, the file's name, to take one from)."""
    refusal = kind_refusal(prose.kind)
    if refusal is not None:
        raise refusal
    name = prose.name or name_from_file(file_name)
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
    if not prose.name:
        out.notes.append(f"name: {name} (the file has no name: it is taken from the file's name)")
    chunks = cut_chunks(_renamed(canonical.split("\n"), body, mapping))
    _loose_inputs(chunks, {mapping[n] for n in names.loose_inputs})
    done = _lift_postconditions(chunks)  # first: the item added below never moves with them
    _shape_outputs(chunks, names, mapping, out)
    goal = _lead(chunks, sections, out)
    description = _lead_description(chunks)  # before ### Services and ### Wiring join it
    _move_retired(chunks, done, out, goal)
    for component in components(chunks):
        out.notes.append(
            f"## {component} is an inline component (OpenProse runs it as a function of this file): hz keeps "
            "its text in the body as guidance and runs none of it; make it a contract of its own, or a tool"
        )
    text_body = "\n\n".join(t for t in (tidy("\n".join(c.lines)) for c in chunks) if t)
    frontmatter = write_frontmatter(
        prose.data, name, names, mapping, sections, body, owner=owner, contract_id=contract_id, out=out,
        goal=goal, description=description,
    )  # fmt: skip
    out.text = "---\n" + frontmatter + "---\n\n" + text_body + "\n"
    for old, new in out.renames.items():
        where = "in the frontmatter and wherever the body writes it in backticks, outside code blocks"
        out.notes.append(f"renamed {old!r} to {new!r} {where}")
    return out


def name_from_file(file_name: str | None) -> str | None:
    """The contract name a file's name gives: `digest.prose.md` and `digest.md` give `digest`."""
    if not file_name:
        return None
    stem = file_name.rsplit("/", 1)[-1].removesuffix(".md").removesuffix(".prose")
    return stem or None


def _shape_outputs(chunks: list[Chunk], names: Names, mapping: Mapping[str, str], out: Imported) -> None:
    maintains = find(chunks, "maintains")
    if maintains is None:
        return
    if names.fields:
        output = mapping[next(iter(names.outputs))]
        fields_as_facets(maintains, tuple(mapping[f] for f in names.fields), output)
        listed = ", ".join(f"`{mapping[f]}`" for f in names.fields)
        out.notes.append(
            f"### Maintains lists fields ({listed}) and no facets: they are the facets of one output `{output}`"
        )
    elif names.synthesized is not None:
        _add_output_item(chunks, mapping[names.synthesized])
        out.notes.append(f"### Maintains has facets but no item: added the output item `{mapping[names.synthesized]}`")
    for item in names.whole:
        whole_as_facet(maintains, mapping[item])
        out.notes.append(f"`{mapping[item]}` has no #### facets: it is its own one facet, `{mapping[item]}`")


def _lead(chunks: list[Chunk], sections: Mapping[str, Section], out: Imported) -> str | None:
    """Move the lead under the title to ### Description; the Goal, from the description when the file
    has none. Returns the goal (None when there is nothing to take it from)."""
    lead = take_lead(chunks)
    if lead:
        description = find(chunks, "description")
        if description is None:
            chunks.insert(1, Chunk("description", ["### Description", "", lead]))
        else:
            description.lines[1:1] = ["", lead]
        out.notes.append("the lead paragraph under the title moved to ### Description")
    written = sections.get("goal")
    if written is not None and written.text:
        return " ".join(written.text.split())
    source = _lead_description(chunks)
    if not source:
        return None
    goal = first_sentence(source)
    chunk = find(chunks, "goal")
    if chunk is None:
        at = next((i + 1 for i, c in enumerate(chunks) if c.key == "description"), 1)
        chunks.insert(at, Chunk("goal", ["### Goal", "", goal]))
    else:
        chunk.lines = [chunk.lines[0], "", goal, *chunk.lines[1:]]
    out.notes.append("### Goal: the first sentence of the description (say it as the state that stays true)")
    return goal


def _lead_description(chunks: list[Chunk]) -> str:
    """The first paragraph of ### Description, whitespace folded ("" when there is none)."""
    from hz.contract.text import strip_comments

    chunk = find(chunks, "description")
    if chunk is None:
        return ""
    text = tidy(strip_comments("\n".join(chunk.lines[1:])))
    return " ".join(text.split("\n\n", 1)[0].split()) if text else ""


def _first_sections(body: Body) -> dict[str, Section]:
    out: dict[str, Section] = {}
    for section in body.sections:
        out.setdefault(section.name, section)
    return out


def _names(sections: Mapping[str, Section], contract: str) -> Names:
    requires, maintains = sections.get("requires"), sections.get("maintains")
    inputs = {n: _facets(item.facets) for n, item in requires.items.items()} if requires else {}
    loose = [f.name for f in requires.facets if f.item is None] if requires else []
    outputs = {n: _facets(item.facets) for n, item in maintains.items.items()} if maintains else {}
    loose_inputs = [n for n in dict.fromkeys(loose) if n not in inputs]
    facets = _facets(f.name for f in maintains.facets) if maintains is not None else ()
    if maintains is not None and not outputs and facets:
        return Names(inputs, {readable(contract): facets}, loose_inputs, readable(contract))
    listed = {n: named_list(item.text) for n, item in maintains.items.items()} if maintains else {}
    if (len(outputs) > 1 or any(listed.values())) and not facets:  # `- \`path\`: …`: fields of one output
        fields = tuple(dict.fromkeys(f for n in outputs for f in (n, *listed[n])))
        return Names(inputs, {readable(contract): fields}, loose_inputs, None, fields=fields)
    whole = tuple(n for n, fs in outputs.items() if not fs)
    outputs = {n: fs or (n,) for n, fs in outputs.items()}
    return Names(inputs, outputs, loose_inputs, None, whole=whole)


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
            heading = HEADING.match(out[facet.line - 1])
            if new is not None and new != facet.name and heading:
                out[facet.line - 1] = f"{heading.group('marks')} {new}"
    for index, (line, code) in enumerate(zip(out, in_code(out), strict=True)):
        if not code and "`" in line:  # code blocks are left as written: they may be anything
            out[index] = _CODE_SPAN.sub(lambda m: f"`{mapping.get(m.group('name'), m.group('name'))}`", line)
    return out


def _loose_inputs(chunks: list[Chunk], loose: set[str]) -> None:
    """`#### facet` under ### Requires with no item: OpenProse subscribes to that facet of whoever
    maintains it; in hz each becomes an input item, read from the contract that maintains it."""
    requires = find(chunks, "requires")
    if requires is None or not loose:
        return
    out: list[str] = []
    lines = requires.lines
    index = 0
    while index < len(lines):
        heading = HEADING.match(lines[index])
        named = heading.group("text").replace("`", "") if heading else ""
        if heading and len(heading.group("marks")) == 4 and named in loose:
            end = index + 1
            while end < len(lines) and not HEADING.match(lines[end]):
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


def _add_output_item(chunks: list[Chunk], name: str) -> None:
    maintains = find(chunks, "maintains")
    if maintains is None:
        return
    lines = maintains.lines
    first_facet = next((i for i, line in enumerate(lines) if line.startswith("#### ")), len(lines))
    lines[first_facet:first_facet] = [f"- `{name}`: the state this responsibility keeps, in the facets below.", ""]


def _lift_postconditions(chunks: list[Chunk]) -> list[str]:
    """Take the postconditions out of ### Maintains (a `Postconditions:` line or a `#### Postconditions`
    heading, up to the next heading), as `hz workflow export --prose` wrote them there."""
    maintains = find(chunks, "maintains")
    if maintains is None:
        return []
    lines = maintains.lines
    for index, line in enumerate(lines[1:], start=1):
        heading = HEADING.match(line)
        marker = _POSTCONDITIONS.match(line) if heading is None and not line.lstrip().startswith("-") else None
        if marker is None and not (heading and section_key(heading.group("text")) in _POSTCONDITION_KEYS):
            continue
        end = index + 1
        while end < len(lines) and not HEADING.match(lines[end]):
            end += 1
        rest = marker.group("rest").strip() if marker else ""
        taken = ([f"- {rest}", ""] if rest else []) + lines[index + 1 : end]
        maintains.lines = lines[:index] + lines[end:]
        return taken
    span = postcondition_list(lines)
    if span is None:
        return []
    taken = [line if line.startswith((" ", "\t")) else re.sub(r"^[-*+]\s+", "- ", line) for line in lines[slice(*span)]]
    maintains.lines = lines[: span[0]] + lines[span[1] :]
    return taken


def _move_retired(chunks: list[Chunk], done: list[str], out: Imported, goal: str | None) -> None:
    """Retired sections into the hz section that does their job, keeping their text; Done when last
    (the goal as its one check when the file states no postcondition at all)."""
    moved: dict[str, list[str]] = {"done when": done} if done else {}
    kept: list[Chunk] = []
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
        into = find(kept, target)
        if into is None:
            into = Chunk(target, [f"### {_HEADINGS[target]}"])
            kept.insert(1 if target == "description" else len(kept), into)
        into.lines += ["", *lines]
    if find(kept, "done when") is None and goal:
        kept.append(Chunk("done when", ["### Done when", "", f"- [ ] {goal}"]))
        out.notes.append(
            "### Done when: the goal as its one check (the file states no postcondition); "
            "add the checks that show it holds"
        )
    elif find(kept, "done when") is None:
        kept.append(Chunk("done when", ["### Done when", "", f"<!-- {TODO}: list the postconditions as items -->"]))
        out.todos.append(
            "### Done when: list the postconditions as items (- [ ] …), the checks that show the goal holds"
        )
    chunks[:] = kept
