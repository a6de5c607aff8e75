"""`hz workflow list [--tag] [--json]`: the contracts of every layer, in wake order."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from hz.commands.workflow_common import compile_here
from hz.errors import EXIT_OK

if TYPE_CHECKING:
    from hz.contract.project import CompiledContract


def run_list(
    *, tags: Sequence[str], as_json: bool, environ: Mapping[str, str] = os.environ, cwd: Path | None = None
) -> int:
    compiled = compile_here(environ, cwd)
    rows = [row(c) for c in compiled.contracts if set(tags) <= set(row(c)["tags"])]
    if as_json:
        click.echo(json.dumps(rows, indent=2, ensure_ascii=False))
    elif rows:
        click.echo(_table(rows))
    else:
        click.echo("no contracts" + (f" tagged {', '.join(tags)}" if tags else ""))
    return EXIT_OK


def row(compiled: CompiledContract) -> dict[str, Any]:
    """One contract as `list --json` prints it; a contract that did not compile has only its place."""
    contract = compiled.contract
    hz = contract.frontmatter.hz if contract else None
    return {
        "qualified_name": compiled.qualified_name,
        "layer": compiled.layer,
        "path": compiled.path,
        "valid": contract is not None,
        "enabled": compiled.enabled,
        "height": compiled.height,
        "title": hz.title if hz else None,
        "description": contract.frontmatter.description if contract else None,
        "owner": hz.owner if hz else None,
        "scope": hz.scope if hz else None,
        "tags": list(hz.tags) if hz else [],
    }


def _table(rows: list[dict[str, Any]]) -> str:
    header = ("NAME", "LAYER", "SCOPE", "OWNER", "STATE", "TITLE")
    lines = [header] + [
        (
            r["qualified_name"],
            r["layer"],
            r["scope"] or "-",
            r["owner"] or "-",
            "invalid" if not r["valid"] else ("enabled" if r["enabled"] else "disabled"),
            r["title"] or "-",
        )
        for r in rows
    ]
    widths = [max(len(line[i]) for line in lines) for i in range(len(header) - 1)]
    return "\n".join("  ".join([*(c.ljust(w) for c, w in zip(line, widths, strict=False)), line[-1]]) for line in lines)
