"""The contract graph of a repository: contracts, `contract:` edges, wake order, disabled contracts and,
when asked, what the receipts on `hz/state` say ran, read, wrote and waits (hz.ops.observed)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from hz.ops import SCHEMA_VERSION
from hz.ops.context import Context
from hz.ops.models_graph import GraphData, GraphRequest, GraphResult

if TYPE_CHECKING:
    from hz.contract.project import Compiled
    from hz.graph import Graph
    from hz.graph_observed import Observed


@dataclass(frozen=True)
class Loaded:
    """What the heads draw from: the compiled repository, the graph shown and the receipts (if read)."""

    root: Path
    compiled: Compiled
    graph: Graph
    seen: Observed | None


def load(ctx: Context, *, observed: bool, cwd: Path | None = None) -> Loaded:
    """Every layer's contracts; those that do not compile appear disabled."""
    from hz.contract.project import compile_repository
    from hz.ops.observed import read_observed
    from hz.repo import find_root

    root = ctx.root if cwd is None and ctx.root is not None else find_root(cwd)  # outside one: NotInRepository
    compiled = compile_repository(root, ctx.environ, cwd=cwd)
    graph = shown_graph(compiled, ctx.environ)
    seen = read_observed(root, compiled, graph, ctx.environ) if observed else None
    return Loaded(root, compiled, graph, seen)


def graph(ctx: Context, request: GraphRequest) -> GraphResult:
    return {"schema_version": SCHEMA_VERSION, "graph": as_data(load(ctx, observed=request.observed))}


def as_data(loaded: Loaded) -> GraphData:
    from hz import graph_observed
    from hz.graph import to_json

    data: dict[str, Any] = to_json(loaded.graph)
    if loaded.seen is not None:
        data["observed"] = graph_observed.to_json(loaded.seen)
    return cast(GraphData, data)


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
