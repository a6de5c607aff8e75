"""The fingerprints of a contract: what is hashed, and what is deliberately left out.

Every hash is `sha256:` of RFC 8785 canonical JSON (`hz.canonical`). `contract_fingerprint` covers what
makes an output correct: kind, inputs, outputs, publishes, tools and the intent sections. Keys that say
when, who or how much (schedule, owner, agent, cost, retries, …) and the Description and Continuity
sections are left out, so changing them never re-renders anything.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from hz.canonical import fingerprint
from hz.contract.model import ContractFrontmatter, Input, format_duration
from hz.contract.sections import UNFINGERPRINTED, Section

FORMAT = "hz-contract/1"  # changes only when canonicalization itself changes


def section_fingerprints(sections: Iterable[Section]) -> dict[str, str]:
    """The fingerprint of each intent section's normalized text, by normalized section name.

    The first of two same-named sections is the one that counts (the second is reported by validation).
    """
    out: dict[str, str] = {}
    for section in sections:
        if section.name not in UNFINGERPRINTED and section.name not in out:
            out[section.name] = fingerprint(section.text)
    return out


def contract_fingerprint(frontmatter: ContractFrontmatter, sections: Mapping[str, str]) -> str:
    """The intent of a contract: equal for every cosmetic variant of it, different for any material one."""
    return fingerprint(material(frontmatter, sections))


def material(frontmatter: ContractFrontmatter, sections: Mapping[str, str]) -> dict[str, Any]:
    """The JSON value `contract_fingerprint` hashes (shown by `hz workflow show`)."""
    hz = frontmatter.hz
    return {
        "format": FORMAT,
        "kind": frontmatter.kind,
        "inputs": {name: _input(value) for name, value in hz.inputs.items()},
        "outputs": {
            name: {"target": out.target, "facets": list(out.facets), "format": out.format}
            for name, out in hz.outputs.items()
        },
        "publishes": [{"action": p.action, "output": p.output, "target": p.target} for p in hz.publishes],
        # Tools and input facets are sets: their order in the file is cosmetic. Output facets keep
        # their order, because it is the order of the maintained document.
        "tools": sorted(hz.tools),
        "sections": dict(sections),
    }


def _input(value: Input) -> dict[str, Any]:
    return {
        "source": list(value.source),
        "query": value.query,
        "facets": sorted(value.facets),
        "window": format_duration(value.window) if value.window is not None else None,
        "stage": value.stage,
        "required": value.required,
    }


def source_fingerprint(canonical_text: str) -> str:
    """The full canonical text, comments included: any edit at all changes it."""
    return fingerprint(canonical_text)
