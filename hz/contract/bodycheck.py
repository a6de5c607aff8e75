"""Stage 2 of validation: the Markdown body against the frontmatter (HZC101–HZC107)."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from hz.contract.model import ContractFrontmatter
from hz.contract.sections import KNOWN_NAMES, RETIRED, Body, Section
from hz.diagnostic import Diagnostic, Severity

Position = Callable[[tuple[str | int, ...]], tuple[int, int]]

_SENTENCE_END = re.compile(r"[.!?](?:\s|$)")
# Words that open an instruction rather than describe a state ("Write the report" vs "The report is …").
_IMPERATIVE_WORDS = """
    add build check collect compile create draft ensure fetch gather generate keep list make monitor post
    prepare produce publish read render report review run send summarize summarise track update write
"""
_IMPERATIVES = frozenset(_IMPERATIVE_WORDS.split())
# A verb of state soon after the first word makes that word a noun: "Report 4 is current", "Build logs stay".
_STATE_VERBS = frozenset(["is", "are", "stays", "stay", "remains", "remain", "holds", "hold"])


class _Findings:
    def __init__(self, path: str) -> None:
        self.path = path
        self.items: list[Diagnostic] = []

    def add(self, at: tuple[int, int], code: str, severity: Severity, loc: str, message: str, hint: str) -> None:
        self.items.append(Diagnostic(self.path, at[0], at[1], code, severity, loc, message, hint))


@dataclass(frozen=True)
class Declared:
    """What the frontmatter declares that the body must match; None where it could not be read."""

    inputs: Mapping[str, object] | None
    outputs: Mapping[str, tuple[str, ...] | None] | None  # output name -> its facets (None: unreadable)

    @classmethod
    def of(cls, frontmatter: ContractFrontmatter) -> Declared:
        hz = frontmatter.hz
        return cls(hz.inputs, {name: tuple(output.facets) for name, output in hz.outputs.items()})

    @classmethod
    def guessed(cls, data: object) -> Declared:
        """From a frontmatter that did not validate: the parts still shaped as mappings, so the body is
        checked in the same run as the frontmatter errors are reported."""
        hz = data.get("hz") if isinstance(data, dict) else None
        inputs = hz.get("inputs") if isinstance(hz, dict) else None
        outputs = hz.get("outputs") if isinstance(hz, dict) else None
        facets: dict[str, tuple[str, ...] | None] | None = None
        if isinstance(outputs, dict):
            facets = {str(name): _names(value) for name, value in outputs.items()}
        return cls(inputs if isinstance(inputs, dict) else None, facets)


def _names(output: object) -> tuple[str, ...] | None:
    facets = output.get("facets") if isinstance(output, dict) else None
    return tuple(str(f) for f in facets) if isinstance(facets, list) else None


def check_body(declared: Declared, body: Body, *, path: str, body_line: int, where: Position) -> list[Diagnostic]:
    found = _Findings(path)
    sections: dict[str, Section] = {}
    _check_levels(found, body)
    for section in body.sections:
        _check_name(found, section, sections)
        sections.setdefault(section.name, section)
    _check_goal(found, sections.get("goal"), body_line)
    if declared.inputs is not None:
        _check_items(found, "Requires", "input", sections.get("requires"), declared.inputs, where, ("hz", "inputs"))
    if declared.outputs is not None:
        maintains = sections.get("maintains")
        _check_items(found, "Maintains", "output", maintains, declared.outputs, where, ("hz", "outputs"))
        _check_facets(found, declared.outputs, maintains)
    _check_done_when(found, sections.get("done when"), body_line)
    return found.items


def _check_levels(found: _Findings, body: Body) -> None:
    """One warning for headings written above the sections, saying what hz made of them."""
    if not body.stray:
        return
    first = body.stray[0]
    written, level = "#" * first.written, "#" * first.sections
    others = len(body.stray) - 1
    more = f" ({others} more heading{'s' if others > 1 else ''} like it)" if others else ""
    found.add(
        (first.line, 1),
        "HZC105",
        "warning",
        f"{written} {first.heading}",
        f"{written} {first.heading} is one level above the sections, which are written as {level} (such as "
        f"{level} Goal){more}: it ends the section before it, and hz reads the sections at {level} as they are",
        f"write it as {level} {first.heading} to make it a section, or as bold text inside the section it belongs to",
    )


def _check_name(found: _Findings, section: Section, seen: Mapping[str, Section]) -> None:
    at, loc = (section.line, 1), f"### {section.heading}"
    if section.name in RETIRED:
        found.add(
            at,
            "HZC106",
            "error",
            loc,
            f"### {section.heading} is an OpenProse section that hz does not support",
            f"use {RETIRED[section.name]} instead",
        )
    elif section.name not in KNOWN_NAMES:
        found.add(
            at,
            "HZC105",
            "warning",
            loc,
            f"unknown section ### {section.heading}; it is kept and passed to the agent",
            "known sections: " + ", ".join(sorted(KNOWN_NAMES)),
        )
    elif section.name in seen:
        found.add(
            at,
            "HZC105",
            "warning",
            loc,
            f"### {section.heading} appears a second time; only the first counts",
            f"merge it into the ### {seen[section.name].heading} on line {seen[section.name].line}",
        )


def _check_goal(found: _Findings, goal: Section | None, body_line: int) -> None:
    if goal is None or not goal.text:
        at = (goal.line, 1) if goal else (body_line, 1)
        found.add(
            at,
            "HZC101",
            "error",
            "### Goal",
            "### Goal is missing or empty" if goal is None else "### Goal is empty",
            "state in one sentence what stays true, such as: The weekly digest is current and covers every merge.",
        )
        return
    words = goal.text.lstrip("-*# ").split()
    sentences = [s for s in _SENTENCE_END.split(goal.text) if s.strip()]
    if len(sentences) > 1:
        found.add(
            (goal.line, 1),
            "HZC102",
            "warning",
            "### Goal",
            "the goal is more than one sentence",
            "keep the goal to one sentence; move detail to ### Steps or ### Description",
        )
    elif (
        words
        and words[0].lower().strip(",.:") in _IMPERATIVES
        and not _STATE_VERBS & {w.lower().strip(",.:") for w in words[1:4]}
    ):
        found.add(
            (goal.line, 1),
            "HZC102",
            "warning",
            "### Goal",
            f"the goal starts with '{words[0]}', an activity rather than a state",
            "describe the state that stays true, such as: The changelog is current …, not: Update the changelog",
        )


def _check_items(
    found: _Findings,
    title: str,
    noun: str,
    section: Section | None,
    declared: Mapping[str, object],
    where: Position,
    base: tuple[str, ...],
) -> None:
    items = section.items if section else {}
    for name in declared:
        if name not in items:
            at = (section.line, 1) if section else where((*base, name))
            found.add(
                at,
                "HZC103",
                "error",
                f"### {title}",
                f"frontmatter {noun} '{name}' has no item in ### {title}",
                f'add "- `{name}`: …" under ### {title}, or remove {".".join(base)}.{name}',
            )
    for name, item in items.items():
        if name not in declared:
            found.add(
                (item.line, 1),
                "HZC103",
                "error",
                f"### {title}",
                f"item '{name}' in ### {title} is not an {noun} of {'.'.join(base)}",
                f"declare it under {'.'.join(base)}, or remove the item",
            )


def _check_facets(found: _Findings, outputs: Mapping[str, tuple[str, ...] | None], maintains: Section | None) -> None:
    if maintains is None:
        return
    for name, facets in outputs.items():
        item = maintains.items.get(name)
        if item is None or facets is None or item.facets == facets:
            continue
        written = ", ".join(item.facets) or "none"
        found.add(
            (item.line, 1),
            "HZC104",
            "error",
            "### Maintains",
            f"output '{name}' declares facets {', '.join(facets)}, but the #### headings under its item are {written}",
            f"write one #### heading per facet under - `{name}`, in the order of hz.outputs.{name}.facets",
        )


def _check_done_when(found: _Findings, done: Section | None, body_line: int) -> None:
    if done is not None and done.list_items:
        return
    at = (done.line, 1) if done else (body_line, 1)
    message = "### Done when is missing" if done is None else "### Done when has no list items"
    found.add(
        at,
        "HZC107",
        "error",
        "### Done when",
        message,
        "list the postconditions as items, such as: - [ ] every merge of the week is listed",
    )
