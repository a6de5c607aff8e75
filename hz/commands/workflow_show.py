"""`hz workflow show NAME [--json]`: one contract with everything hz derived from it."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from hz.commands.workflow_common import compile_here
from hz.diagnostic import render_all
from hz.errors import EXIT_ERROR, EXIT_OK

if TYPE_CHECKING:
    from hz.contract.load import Contract
    from hz.contract.project import CompiledContract


def run_show(name: str, *, as_json: bool, environ: Mapping[str, str] = os.environ, cwd: Path | None = None) -> int:
    compiled = compile_here(environ, cwd)
    entry = compiled.get(name)
    if entry.contract is None:
        click.echo(render_all(d for d in compiled.diagnostics if d.path == entry.path))
        return EXIT_ERROR
    data = describe(entry, entry.contract)
    click.echo(json.dumps(data, indent=2, ensure_ascii=False) if as_json else _text(data))
    return EXIT_OK


def describe(entry: CompiledContract, contract: Contract) -> dict[str, Any]:
    from hz.contract.fingerprint import material

    return {
        "qualified_name": contract.qualified_name,
        "layer": entry.layer,
        "path": entry.path,
        "enabled": entry.enabled,
        "disabled": entry.disabled,
        "height": entry.height,
        "fingerprints": {
            "contract": contract.contract_fingerprint,
            "source": contract.source_fingerprint,
            "sections": dict(contract.section_fingerprints),
        },
        "frontmatter": contract.frontmatter.model_dump(mode="json", by_alias=True),
        "sections": {name: _section(section) for name, section in contract.sections.items()},
        "material": material(contract.frontmatter, contract.section_fingerprints),
    }


def _section(section: Any) -> dict[str, Any]:
    return {
        "heading": section.heading,
        "line": section.line,
        "text": section.text,
        "items": {n: {"text": i.text, "line": i.line, "facets": list(i.facets)} for n, i in section.items.items()},
        "facets": [{"name": f.name, "item": f.item, "line": f.line, "text": f.text} for f in section.facets],
    }


def _text(data: dict[str, Any]) -> str:
    fm = data["frontmatter"]
    lines = [
        f"{data['qualified_name']}  {fm['hz']['title']}",
        f"  layer: {data['layer']}  path: {data['path']}  height: {data['height']}",
        f"  state: {'enabled' if data['enabled'] else 'disabled: ' + str(data['disabled'])}",
        f"  owner: {fm['hz']['owner']}  scope: {fm['hz']['scope']}",
        "",
        "fingerprints",
        f"  contract  {data['fingerprints']['contract']}",
        f"  source    {data['fingerprints']['source']}",
    ]
    lines += [f"  ### {name}  {fp}" for name, fp in data["fingerprints"]["sections"].items()]
    lines += ["", "frontmatter", *_yaml(fm, "  "), ""]
    for section in data["sections"].values():
        lines.append(f"### {section['heading']}  (line {section['line']})")
        lines += ["  " + line if line else "" for line in section["text"].split("\n")]
        lines.append("")
    return "\n".join(lines).rstrip("\n")


def _yaml(value: Any, indent: str) -> list[str]:
    """A compact YAML-like view of the default-filled frontmatter (empty values left out)."""
    out: list[str] = []
    for key, item in value.items():
        if item in (None, [], {}):
            continue
        if isinstance(item, dict):
            out += [f"{indent}{key}:", *_yaml(item, indent + "  ")]
        elif isinstance(item, list) and any(isinstance(i, dict) for i in item):
            out.append(f"{indent}{key}:")
            for element in item:
                out.append(f"{indent}  - {json.dumps(element, ensure_ascii=False)}")
        else:
            out.append(f"{indent}{key}: {json.dumps(item, ensure_ascii=False)}")
    return out
