"""`hz graph`: the contract graph of this repository as text, Mermaid or JSON."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Literal

import click

GraphFormat = Literal["text", "mermaid", "json"]
NOT_RECORDED = "observed edges: not yet recorded (they come from action logs of rendered turns)"


def run_graph(
    fmt: GraphFormat = "text",
    *,
    observed: bool = False,
    environ: Mapping[str, str] = os.environ,
    cwd: Path | None = None,
) -> int:
    """Print the graph of every layer; contracts that do not compile appear disabled."""
    from hz.contract.project import compile_repository
    from hz.graph import render_mermaid, render_text, to_json
    from hz.repo import find_root

    compiled = compile_repository(find_root(cwd), environ, cwd=cwd)
    if fmt == "json":
        data = to_json(compiled.graph)
        if observed:
            data["observed"] = None
        click.echo(json.dumps(data, indent=2, ensure_ascii=False))
        return 0
    click.echo(render_mermaid(compiled.graph) if fmt == "mermaid" else render_text(compiled.graph))
    if observed:
        click.echo(("%% " if fmt == "mermaid" else "") + NOT_RECORDED)
    if not compiled.ok:
        click.echo("some contracts have errors; `hz workflow validate` shows them", err=True)
    return 0
