"""The `hz:` frontmatter an OpenProse import writes: what the file said, what has a safe default, and a
TODO for what only its author knows (`hz.contract.prose_import` reshapes the body)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from hz.contract.model import CROCKFORD_PATTERN
from hz.contract.sections import Body, Section

TODO = "TODO(import-prose)"
KEEP_KEYS = ("name", "kind", "id", "version", "description")
_TOOL = re.compile(r"\b(?:cli|mcp):[A-Za-z0-9][A-Za-z0-9._-]*")


@dataclass
class Imported:
    text: str  # the hz contract
    renames: dict[str, str]  # OpenProse name -> identifier, only the names that changed
    notes: list[str] = field(default_factory=list)  # what the import filled in or moved
    todos: list[str] = field(default_factory=list)  # what the author must still write


@dataclass
class Names:
    inputs: dict[str, tuple[str, ...]]  # OpenProse input name -> its facet names, in body order
    outputs: dict[str, tuple[str, ...]]
    loose_inputs: list[str]  # `####` facets of ### Requires under no item: each becomes an input
    synthesized: str | None  # the output item written for a ### Maintains that has facets but no item
    fields: tuple[str, ...] = ()  # items of a ### Maintains without facets: the fields of one output
    whole: tuple[str, ...] = ()  # output items without facets: each its own one facet


def frontmatter(
    data: Mapping[str, Any],
    name: str,
    names: Names,
    mapping: Mapping[str, str],
    sections: Mapping[str, Section],
    body: Body,
    *,
    owner: str | None,
    contract_id: str,
    out: Imported,
    goal: str | None,
    description: str,
) -> str:
    lines = [f"name: {_scalar(name)}"]
    lines += [f"{key}: {_scalar(data[key])}" for key in KEEP_KEYS if key in data and key not in ("name", "description")]
    lines = _with_id(lines, data.get("id"), contract_id, out)
    lines.append(_description(data, description, goal, out))
    for key, value in data.items():
        if key not in KEEP_KEYS:
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
    if not goal:
        out.todos.append("### Goal: one sentence saying what stays true")
    return "\n".join(lines) + "\n"


def _with_id(lines: list[str], written: Any, contract_id: str, out: Imported) -> list[str]:
    """The frontmatter lines with an hz id after `kind`: the file's own when it is one, else a minted one,
    the OpenProse id kept beside it as a comment (hz ids are ULIDs; `build.pkg-core` names, it is no id)."""
    at = next((i + 1 for i, line in enumerate(lines) if line.startswith("kind:")), 1)
    if isinstance(written, str) and re.match(CROCKFORD_PATTERN, written):
        return lines
    lines = [line for line in lines if not line.startswith("id:")]
    minted = [f"id: {_scalar(contract_id)}"]
    if written is None:
        out.notes.append("minted an id for the ledger (OpenProse ids are minted by tools, never typed)")
    else:
        kept = " ".join(str(written).split())[:120]
        minted.append(f"# OpenProse id: {kept} (hz ids are 26-character ULIDs: a new one was minted)")
        out.notes.append(f"id: {kept!r} is not an hz id (a 26-character ULID): minted one, the old kept as a comment")
    return [*lines[:at], *minted, *lines[at:]]


def _description(data: Mapping[str, Any], lead: str, goal: str | None, out: Imported) -> str:
    if "description" in data:
        return f"description: {_scalar(data['description'])}"
    text = lead or goal or ""
    if not text:
        out.todos.append("description: what the contract keeps true, and for whom")
        return f"# {TODO}: description: what this keeps true, and for whom"
    out.notes.append(f"description: taken from ### {'Description' if lead else 'Goal'}")
    return f"description: {_scalar(text[:1024])}"


def _inputs(names: Names, mapping: Mapping[str, str], out: Imported) -> list[str]:
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


def _outputs(names: Names, mapping: Mapping[str, str], contract: str, out: Imported) -> list[str]:
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
