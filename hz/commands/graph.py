"""`hz graph`: the contract graph of this repository (hz.ops.graph) as text, Mermaid, JSON or a static HTML page."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import click

if TYPE_CHECKING:
    from hz.contract.project import Compiled
    from hz.graph import Graph
    from hz.graph_observed import Observed

GraphFormat = Literal["text", "mermaid", "json", "html"]
STDOUT = "-"


def run_graph(
    fmt: GraphFormat = "text",
    *,
    observed: bool = False,
    html: str = STDOUT,
    environ: Mapping[str, str] = os.environ,
    cwd: Path | None = None,
) -> int:
    """Print the graph of every layer (hz.ops.graph); contracts that do not compile appear disabled. With
    `observed` (always for the page), the receipts on `hz/state` are drawn beside the declared edges."""
    from hz import graph_observed
    from hz.graph import render_mermaid, render_text
    from hz.ops import Context
    from hz.ops.graph import as_data, load

    loaded = load(Context(environ=environ), observed=observed or fmt == "html", cwd=cwd)
    graph, seen = loaded.graph, loaded.seen
    if seen is not None and fmt == "html":
        return _write_page(graph, loaded.compiled, seen, loaded.root, html)
    if fmt == "json":
        click.echo(json.dumps(as_data(loaded), indent=2, ensure_ascii=False))
        return 0
    if fmt == "mermaid":
        click.echo(render_mermaid(graph))
        if seen is not None:
            ids = {name: f"n{i}" for i, name in enumerate(graph.order())}
            click.echo(graph_observed.render_mermaid(seen, ids, graph.edges))
    else:
        click.echo(render_text(graph))
        if seen is not None:
            click.echo(graph_observed.render_text(seen))
    if not loaded.compiled.ok:
        click.echo("some contracts have errors; `hz workflow validate` shows them", err=True)
    return 0


def _write_page(graph: Graph, compiled: Compiled, seen: Observed, root: Path, target: str) -> int:
    from hz.errors import HzError
    from hz.fsio import atomic_write
    from hz.graph_html import render_html

    titles = {c.qualified_name: c.contract.frontmatter.hz.title for c in compiled.contracts if c.contract}
    page = render_html(graph, titles, seen, repository=root.name)
    if target == STDOUT:
        click.echo(page, nl=False)
        return 0
    try:
        atomic_write(Path(target), page, mode=0o644)
    except OSError as exc:
        raise HzError(f"cannot write {target}: {exc.strerror}", hint="name a file in a folder you can write") from None
    click.echo(f"wrote {target}", err=True)
    return 0
