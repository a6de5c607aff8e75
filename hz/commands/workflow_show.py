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
from hz.errors import EXIT_ERROR, EXIT_OK, HzError

if TYPE_CHECKING:
    from hz.contract.load import Contract
    from hz.contract.project import CompiledContract


def run_show(name: str, *, as_json: bool, environ: Mapping[str, str] = os.environ, cwd: Path | None = None) -> int:
    """Print the contract; with `--json` the output is JSON whatever happens (a script parses it)."""
    try:
        compiled = compile_here(environ, cwd)
        entry = compiled.get(name)
    except HzError as exc:
        if not as_json:
            raise
        click.echo(_dumps({"ok": False, "error": exc.message, "hint": exc.hint or ""}))
        return exc.exit_code
    own = [d for d in compiled.diagnostics if d.path == entry.path]
    if entry.contract is None:
        if as_json:
            click.echo(_dumps({**_place(entry), "ok": False, "diagnostics": [d.to_json() for d in own]}))
        else:
            click.echo(render_all(own))
        return EXIT_ERROR
    data = {**describe(entry, entry.contract), "diagnostics": [d.to_json() for d in own]}
    click.echo(_dumps(data) if as_json else _text(data))
    return EXIT_OK


def _dumps(data: Mapping[str, Any]) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False)


def _place(entry: CompiledContract) -> dict[str, Any]:
    return {"qualified_name": entry.qualified_name, "layer": entry.layer, "path": entry.path}


def describe(entry: CompiledContract, contract: Contract) -> dict[str, Any]:
    from hz.contract.fingerprint import material

    return {
        **_place(entry),
        "ok": True,
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
