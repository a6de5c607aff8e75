"""Stage 3 across contracts: `contract:` inputs become graph edges (HZC202, HZC203), cycles become HZC201.

A reference reads `contract:<namespace>/<name>#<facet>`; the namespace may be left out (the name then
resolves like a bare name on the command line, team first), and so may the facet (every facet). A
reference to a contract that another one overrides reads the replacement.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from hz.contract.layers import LayerKind
from hz.contract.names import Entry, resolve_name
from hz.contract.resolve import Reporter, did_you_mean, source_locs
from hz.contract.validate import dotted
from hz.diagnostic import Diagnostic
from hz.errors import HzError
from hz.graph import Edge, Graph

if TYPE_CHECKING:
    from hz.contract.load import Contract

_REFERENCE = re.compile(
    r"contract:(?:(?P<ns>[a-z][a-z0-9-]*)/)?(?P<name>[a-z][a-z0-9-]*)(?:#(?P<facet>[a-z][a-z0-9_]*))?"
)

Loc = tuple[str | int, ...]


@dataclass(frozen=True)
class Reference:
    namespace: str | None
    name: str
    facet: str  # "" for every facet


def parse_reference(uri: str) -> Reference | None:
    match = _REFERENCE.fullmatch(uri)
    if match is None:
        return None
    return Reference(match["ns"], match["name"], match["facet"] or "")


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
    reference = parse_reference(uri)
    if reference is None:
        hint = "write contract:<namespace>/<name>#<facet>, such as contract:team/weekly-digest#summary"
        report.add(loc, "HZC202", f"'{uri}' is not a contract reference", hint)
        return None
    qualified = f"{reference.namespace}:{reference.name}" if reference.namespace else reference.name
    try:
        if qualified not in by_name:  # a qualified name is looked up directly; only bare names resolve
            qualified = resolve_name(qualified, names)
    except HzError:
        known = sorted(q.replace(":", "/") for q, _ in names)
        hint = did_you_mean(f"{reference.namespace or 'team'}/{reference.name}", known, "contracts")
        report.add(loc, "HZC202", f"'{uri}' names a contract that no layer defines", hint)
        return None
    target = by_name[overridden.get(qualified, qualified)]
    if reference.facet and target.contract is not None:
        facets = sorted({f for output in target.contract.frontmatter.hz.outputs.values() for f in output.facets})
        if reference.facet not in facets:
            report.add(
                loc,
                "HZC202",
                f"{target.file.qualified_name} maintains no facet '{reference.facet}'",
                did_you_mean(reference.facet, facets, "facets"),
            )
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
