"""`hz graph`: the contract graph of this repository as text, Mermaid, JSON or a static HTML page."""

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
    """Print the graph of every layer; contracts that do not compile appear disabled. With `observed`
    (always for the page), the receipts on `hz/state` are drawn beside the declared edges."""
    from hz import graph_observed
    from hz.commands.graph_observed import read_observed
    from hz.contract.project import compile_repository
    from hz.graph import render_mermaid, render_text, to_json
    from hz.repo import find_root

    root = find_root(cwd)
    compiled = compile_repository(root, environ, cwd=cwd)
    graph = shown_graph(compiled, environ)
    seen = read_observed(root, compiled, graph, environ) if observed or fmt == "html" else None
    if seen is not None and fmt == "html":
        return _write_page(graph, compiled, seen, root, html)
    if fmt == "json":
        data = to_json(graph)
        if seen is not None:
            data["observed"] = graph_observed.to_json(seen)
        click.echo(json.dumps(data, indent=2, ensure_ascii=False))
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
    if not compiled.ok:
        click.echo("some contracts have errors; `hz workflow validate` shows them", err=True)
    return 0


def shown_graph(compiled: Compiled, environ: Mapping[str, str]) -> Graph:
    """The repository's graph without the module contracts nobody here adopted (hz.contract.layers)."""
    from hz.contract.layers import adopted_modules
    from hz.graph import build_graph

    graph = compiled.graph
    modules = [c.qualified_name for c in compiled.contracts if c.layer == "module"]
    if not modules:
        return graph
    others = [name for name in graph.nodes if name not in modules]
    reads = [(e.source, e.target) for e in graph.edges]
    home = _home_adopted(modules, environ)
    shown = adopted_modules(modules, others, reads, home.__contains__) | set(others)
    broken = [name for name, why in graph.disabled.items() if why.kind == "broken"]
    return build_graph([n for n in graph.nodes if n in shown], graph.edges, broken=[b for b in broken if b in shown])


def _home_adopted(modules: list[str], environ: Mapping[str, str]) -> set[str]:
    """The module contracts this home keeps a live agent of: one made from the module's own file
    (`hz heinzel new NAME --from <package>/workflows/NAME.prose.md`, a personal agent in `me`), or one in
    the module's namespace. A home never made is not made here."""
    from hz.config import private_home
    from hz.contract.layers import SUFFIX
    from hz.session.store import HEINZEL, Store

    if not (private_home(environ) / HEINZEL).is_dir():
        return set()
    found = set()
    with Store.from_environ(environ) as store:
        for qualified in modules:
            namespace, _, name = qualified.partition(":")
            rows = store.index.agents_of_contract(name, namespace) + [
                row for row in store.index.agents_of_contract(name, "me") if row["source"] == name + SUFFIX
            ]
            if any(not row["retired"] for row in rows):
                found.add(qualified)
    return found


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
