"""Stage 3 across contracts: `contract:` inputs become graph edges (HZC202, HZC203), cycles become HZC201.

Which references are valid and what they name is `hz.contract.refs`, shared with the tick.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from hz.contract.layers import LayerKind
from hz.contract.names import Entry
from hz.contract.refs import BadReference, check_facet, parse_reference, resolve_reference
from hz.contract.resolve import Reporter, source_locs
from hz.contract.validate import dotted
from hz.diagnostic import Diagnostic
from hz.graph import Edge, Graph

if TYPE_CHECKING:
    from hz.contract.load import Contract

Loc = tuple[str | int, ...]


@dataclass
class Links:
    edges: list[Edge] = field(default_factory=list)
    # edge -> the reader and the YAML location of its input; positions are looked up only for diagnostics,
    # since locating a node parses the frontmatter again
    origin: dict[Edge, tuple[Contract, str, Loc]] = field(default_factory=dict)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    rejected: set[str] = field(default_factory=set)


def link(entries: Sequence[Entry], overridden: Mapping[str, str], compiled: set[str]) -> Links:
    """Edges from every compiled contract's `contract:` inputs, with HZC202/HZC203 for bad ones."""
    by_name = {entry.file.qualified_name: entry for entry in entries}
    names: list[tuple[str, LayerKind]] = [(q, e.file.layer.kind) for q, e in by_name.items()]
    links = Links()
    for entry in entries:
        if entry.contract is None or entry.file.qualified_name not in compiled:
            continue
        report = Reporter(entry.contract, entry.file.display)
        wakes = _wake_inputs(entry)
        for input_name, uri, loc in source_locs(entry.contract):
            if not uri.startswith("contract:"):
                continue
            target = _target(uri, names, overridden, by_name, report, loc)
            if target is None:
                continue
            reference = parse_reference(uri)
            assert reference is not None
            edge = Edge(target.file.qualified_name, entry.file.qualified_name, reference.facet, input_name in wakes)
            links.edges.append(edge)
            links.origin.setdefault(edge, (entry.contract, entry.file.display, loc))
            if entry.scope == "team" and target.scope == "personal":
                message = f"a team contract depends on the personal contract {target.file.qualified_name}"
                hint = "team contracts run for everyone; make the upstream scope: team, or this one personal"
                report.add(loc, "HZC203", message, hint)
        if report.found:
            links.diagnostics += report.found
            links.rejected.add(entry.file.qualified_name)
    return links


def _wake_inputs(entry: Entry) -> set[str]:
    assert entry.contract is not None
    hz = entry.contract.frontmatter.hz
    if hz.on is None:
        return set(hz.inputs)
    return {wake.partition(".")[0] for wake in hz.on}


def _target(
    uri: str,
    names: list[tuple[str, LayerKind]],
    overridden: Mapping[str, str],
    by_name: Mapping[str, Entry],
    report: Reporter,
    loc: Loc,
) -> Entry | None:
    try:
        reference, qualified = resolve_reference(uri, names, overridden)
        target = by_name[qualified]
        if target.contract is not None:
            check_facet(reference, target.file.qualified_name, target.contract)
    except BadReference as problem:
        report.add(loc, "HZC202", problem.message, problem.hint or "")
        return None
    return target


def graph_diagnostics(graph: Graph, links: Links) -> list[Diagnostic]:
    """HZC201 for contracts on or below a cycle, HZC202 for those below a contract that does not compile."""
    found: list[Diagnostic] = []
    for edge in graph.edges:
        reason, upstream = graph.disabled.get(edge.target), graph.disabled.get(edge.source)
        if reason is None or upstream is None or edge not in links.origin:
            continue
        if reason.kind == "cycle" and upstream.kind == "cycle" and upstream.cause == reason.cause:
            code, message = "HZC201", f"this input closes a cycle: {reason.cause}"
            hint = "break the cycle: remove one contract: input, or keep a self-read out of hz.on"
        elif reason.kind == "downstream-of-cycle":
            code, message = "HZC201", f"reads {edge.source}, which is on or below the cycle {reason.cause}; disabled"
            hint = "fix the cycle upstream and this contract runs again"
        elif reason.kind == "downstream-of-broken":
            code = "HZC202"
            message = f"reads {edge.source}, which does not compile or depends on one that does not; disabled"
            hint = f"fix {reason.cause} and this contract runs again"
        else:
            continue
        contract, path, loc = links.origin[edge]
        line, column = contract.locate(loc)
        found.append(Diagnostic(path, line, column, code, "error", dotted(loc), message, hint))
    return sorted(set(found))
