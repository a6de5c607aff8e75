"""The contract graph: explicit `contract:` edges, cycles by Tarjan's algorithm, heights for wake order.

An edge `A -> B` (facet f) means B reads A's facet f. Contracts on a cycle, and everything downstream of
them, are disabled; so is everything downstream of a contract that could not be compiled. The rest
stays enabled. A self-loop (a contract reading what it maintains) is not a cycle unless that input
wakes the contract (it is in `hz.on`): then it would wake itself forever.

Heights order a tick: sources have height 0, any other contract one more than its highest upstream.
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from typing import Literal


@dataclass(frozen=True, order=True)
class Edge:
    source: str  # upstream qualified name
    target: str  # downstream qualified name (the reader)
    facet: str  # "" when the input subscribes to every facet
    wakes: bool = True  # the input is in the reader's `hz.on`


@dataclass(frozen=True)
class Node:
    name: str
    height: int
    enabled: bool


@dataclass(frozen=True)
class Disabled:
    """Why a contract is off: it is on a cycle, downstream of one, or downstream of a broken contract."""

    kind: Literal["cycle", "downstream-of-cycle", "broken", "downstream-of-broken"]
    cause: str  # the cycle as `a -> b -> a`, or the broken contract's name


@dataclass(frozen=True)
class Graph:
    nodes: Mapping[str, Node]
    edges: tuple[Edge, ...]
    cycles: tuple[tuple[str, ...], ...]  # each as a closed path: first == last
    disabled: Mapping[str, Disabled]

    def order(self) -> list[str]:
        """Every contract by height, then name: the order a tick wakes them."""
        return sorted(self.nodes, key=lambda name: (self.nodes[name].height, name))

    def upstream(self, name: str) -> list[Edge]:
        return [edge for edge in self.edges if edge.target == name]


def build_graph(names: Iterable[str], edges: Iterable[Edge], *, broken: Iterable[str] = ()) -> Graph:
    """The graph of `names` (qualified), with edges between them; `broken` contracts start disabled."""
    nodes = sorted(set(names))
    known = set(nodes)
    kept = tuple(sorted({e for e in edges if e.source in known and e.target in known}))
    successors: dict[str, set[str]] = {name: set() for name in nodes}
    for edge in kept:
        if edge.source != edge.target or edge.wakes:
            successors[edge.source].add(edge.target)
    components = strongly_connected(successors)
    cyclic = [c for c in components if len(c) > 1 or c[0] in successors[c[0]]]
    cycles = {tuple(c): _cycle_path(c, successors) for c in cyclic}
    disabled = _disable(successors, cycles, broken)
    heights = _heights(components, successors)
    graph_nodes = {name: Node(name, heights[name], name not in disabled) for name in nodes}
    return Graph(graph_nodes, kept, tuple(sorted(cycles.values())), disabled)


def strongly_connected(successors: Mapping[str, Iterable[str]]) -> list[list[str]]:
    """Tarjan's algorithm without recursion: the components, each sorted, in reverse topological order."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    components: list[list[str]] = []
    for root in sorted(successors):
        if root in index:
            continue
        work = [(root, iter(sorted(successors.get(root, ()))))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is None:
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[node])
                if low[node] == index[node]:
                    components.append(_pop_component(node, stack, on_stack))
            elif child not in index:
                index[child] = low[child] = len(index)
                stack.append(child)
                on_stack.add(child)
                work.append((child, iter(sorted(successors.get(child, ())))))
            elif child in on_stack:
                low[node] = min(low[node], index[child])
    return components


def _pop_component(root: str, stack: list[str], on_stack: set[str]) -> list[str]:
    component: list[str] = []
    while True:
        member = stack.pop()
        on_stack.discard(member)
        component.append(member)
        if member == root:
            return sorted(component)


def _cycle_path(component: list[str], successors: Mapping[str, set[str]]) -> tuple[str, ...]:
    """A shortest closed path through the component's first member, for printing.

    It may not pass through every member of a larger component; all of them are disabled regardless.
    """
    start, members = component[0], set(component)
    previous: dict[str, str] = {}
    queue = deque([start])
    while queue:
        node = queue.popleft()
        for child in sorted(successors[node] & members):
            if child == start and (node != start or len(members) == 1):
                path = [node]
                while path[-1] != start:
                    path.append(previous[path[-1]])
                return (*reversed(path), start)
            if child != start and child not in previous:
                previous[child] = node
                queue.append(child)
    raise AssertionError(f"component without a cycle: {component}")


def _disable(
    successors: Mapping[str, set[str]], cycles: Mapping[tuple[str, ...], tuple[str, ...]], broken: Iterable[str]
) -> dict[str, Disabled]:
    disabled: dict[str, Disabled] = {}
    for component, path in sorted(cycles.items()):
        for member in component:
            disabled[member] = Disabled("cycle", " -> ".join(path))
    for component, path in sorted(cycles.items()):
        _spread(component, successors, disabled, Disabled("downstream-of-cycle", " -> ".join(path)))
    for name in sorted(set(broken)):
        disabled.setdefault(name, Disabled("broken", name))
        _spread((name,), successors, disabled, Disabled("downstream-of-broken", name))
    return disabled


def _spread(
    starts: Iterable[str], successors: Mapping[str, set[str]], disabled: dict[str, Disabled], reason: Disabled
) -> None:
    queue = deque(starts)
    seen = set(queue)
    while queue:
        for child in sorted(successors.get(queue.popleft(), ())):
            if child not in seen:
                seen.add(child)
                disabled.setdefault(child, reason)
                queue.append(child)


def _heights(components: list[list[str]], successors: Mapping[str, set[str]]) -> dict[str, int]:
    """Longest path from a source over the condensation; members of one component share a height."""
    component_of = {member: i for i, component in enumerate(components) for member in component}
    height = [0] * len(components)
    # Tarjan emits components in reverse topological order, so walk them backwards.
    for i in reversed(range(len(components))):
        for member in components[i]:
            for child in successors[member]:
                j = component_of[child]
                if j != i:
                    height[j] = max(height[j], height[i] + 1)
    return {member: height[component_of[member]] for member in component_of}


# --- renderers ---


def render_text(graph: Graph) -> str:
    """One line per contract in wake order, with its upstream facets and why it is disabled."""
    lines: list[str] = []
    for name in graph.order():
        node = graph.nodes[name]
        upstream = ", ".join(f"{e.source}#{e.facet or '*'}" for e in graph.upstream(name))
        line = f"{node.height}  {name}" + (f"  <- {upstream}" if upstream else "")
        if reason := graph.disabled.get(name):
            line += f"  [disabled: {describe(reason)}]"
        lines.append(line)
    for cycle in graph.cycles:
        lines.append(f"cycle: {' -> '.join(cycle)}")
    return "\n".join(lines)


def describe(reason: Disabled) -> str:
    """Why a contract is disabled, in words."""
    return {
        "cycle": f"on cycle {reason.cause}",
        "downstream-of-cycle": f"downstream of cycle {reason.cause}",
        "broken": "does not compile",
        "downstream-of-broken": f"depends on {reason.cause}, which does not compile",
    }[reason.kind]


def render_mermaid(graph: Graph) -> str:
    """A Mermaid flowchart; disabled contracts drawn dashed."""
    ids = {name: f"n{i}" for i, name in enumerate(graph.order())}
    lines = ["flowchart LR"]
    lines += [f'  {ids[name]}["{name}"]' for name in graph.order()]
    for edge in graph.edges:
        if edge.source in ids and edge.target in ids:
            arrow = "-->" if edge.wakes else "-.->"
            lines.append(f"  {ids[edge.source]} {arrow}|{edge.facet or '*'}| {ids[edge.target]}")
    if graph.disabled:
        lines.append("  classDef disabled stroke-dasharray: 5 5,opacity:0.6")
        lines.append("  class " + ",".join(ids[name] for name in sorted(graph.disabled) if name in ids) + " disabled")
    return "\n".join(lines)


def to_json(graph: Graph) -> dict[str, object]:
    return {
        "nodes": [asdict(graph.nodes[name]) for name in graph.order()],
        "edges": [{"from": e.source, "to": e.target, "facet": e.facet} for e in graph.edges],
        "cycles": [list(cycle) for cycle in graph.cycles],
    }


def render_json(graph: Graph) -> str:
    return json.dumps(to_json(graph), indent=2, ensure_ascii=False)
