"""The contract graph: Tarjan against brute force, disabling exactly cycles and downstream, heights, renderers."""

from __future__ import annotations

import itertools
import json

from hypothesis import given, settings
from hypothesis import strategies as st

from hz.graph import Disabled, Edge, build_graph, render_json, render_mermaid, render_text, strongly_connected


def chain_with_cycle() -> list[Edge]:
    # a -> b <-> c -> d ; e alone ; f reads a
    return [
        Edge("t:a", "t:b", "summary"),
        Edge("t:b", "t:c", "items"),
        Edge("t:c", "t:b", "items"),
        Edge("t:c", "t:d", "table"),
        Edge("t:a", "t:f", ""),
    ]


def test_chain_heights_and_all_enabled() -> None:
    graph = build_graph(["t:a", "t:b", "t:c"], [Edge("t:a", "t:b", "x"), Edge("t:b", "t:c", "y")])
    assert [(n.name, n.height, n.enabled) for n in map(graph.nodes.__getitem__, graph.order())] == [
        ("t:a", 0, True),
        ("t:b", 1, True),
        ("t:c", 2, True),
    ]
    assert graph.cycles == ()
    assert graph.disabled == {}


def test_a_cycle_disables_exactly_the_cycle_and_its_downstream() -> None:
    graph = build_graph(["t:a", "t:b", "t:c", "t:d", "t:e", "t:f"], chain_with_cycle())
    assert graph.cycles == (("t:b", "t:c", "t:b"),)
    assert graph.disabled == {
        "t:b": Disabled("cycle", "t:b -> t:c -> t:b"),
        "t:c": Disabled("cycle", "t:b -> t:c -> t:b"),
        "t:d": Disabled("downstream-of-cycle", "t:b -> t:c -> t:b"),
    }
    assert {name for name, node in graph.nodes.items() if node.enabled} == {"t:a", "t:e", "t:f"}


def test_a_self_loop_outside_on_is_allowed() -> None:
    graph = build_graph(["t:roadmap"], [Edge("t:roadmap", "t:roadmap", "timeline", wakes=False)])
    assert graph.cycles == ()
    assert graph.nodes["t:roadmap"].enabled
    assert graph.nodes["t:roadmap"].height == 0


def test_a_self_loop_that_wakes_is_a_cycle() -> None:
    graph = build_graph(["t:x", "t:y"], [Edge("t:x", "t:x", "f"), Edge("t:x", "t:y", "f")])
    assert graph.cycles == (("t:x", "t:x"),)
    assert graph.disabled == {
        "t:x": Disabled("cycle", "t:x -> t:x"),
        "t:y": Disabled("downstream-of-cycle", "t:x -> t:x"),
    }


def test_broken_contracts_disable_their_dependents_only() -> None:
    edges = [Edge("t:a", "t:b", "f"), Edge("t:b", "t:c", "f"), Edge("t:a", "t:d", "f")]
    graph = build_graph(["t:a", "t:b", "t:c", "t:d"], edges, broken=["t:b"])
    assert graph.disabled == {"t:b": Disabled("broken", "t:b"), "t:c": Disabled("downstream-of-broken", "t:b")}
    assert graph.nodes["t:d"].enabled


def test_edges_to_unknown_contracts_are_dropped() -> None:
    graph = build_graph(["t:a"], [Edge("t:ghost", "t:a", "f")])
    assert graph.edges == ()
    assert graph.nodes["t:a"].height == 0


def test_a_very_deep_chain_needs_no_recursion() -> None:
    names = [f"t:n{i:05d}" for i in range(20_000)]
    graph = build_graph(names, [Edge(a, b, "f") for a, b in itertools.pairwise(names)])
    assert graph.nodes[names[-1]].height == 19_999
    assert graph.disabled == {}


def test_render_text() -> None:
    graph = build_graph(["t:a", "t:b", "t:c", "t:d", "t:e", "t:f"], chain_with_cycle())
    assert render_text(graph) == "\n".join(
        [
            "0  t:a",
            "0  t:e",
            "1  t:b  <- t:a#summary, t:c#items  [disabled: on cycle t:b -> t:c -> t:b]",
            "1  t:c  <- t:b#items  [disabled: on cycle t:b -> t:c -> t:b]",
            "1  t:f  <- t:a#*",
            "2  t:d  <- t:c#table  [disabled: downstream of cycle t:b -> t:c -> t:b]",
            "cycle: t:b -> t:c -> t:b",
        ]
    )


def test_render_mermaid() -> None:
    graph = build_graph(["t:a", "t:b"], [Edge("t:a", "t:b", "summary"), Edge("t:b", "t:b", "own", wakes=False)])
    assert render_mermaid(graph) == "\n".join(
        [
            "flowchart LR",
            '  n0["t:a"]',
            '  n1["t:b"]',
            "  n0 -->|summary| n1",
            "  n1 -.->|own| n1",
        ]
    )


def test_render_mermaid_marks_disabled_contracts() -> None:
    graph = build_graph(["t:a", "t:b"], [Edge("t:a", "t:b", "f"), Edge("t:b", "t:a", "g")])
    assert render_mermaid(graph).splitlines()[-2:] == [
        "  classDef disabled stroke-dasharray: 5 5,opacity:0.6",
        "  class n0,n1 disabled",
    ]


def test_render_json() -> None:
    graph = build_graph(["t:a", "t:b", "t:c"], [Edge("t:a", "t:b", "summary"), Edge("t:c", "t:c", "x")])
    assert json.loads(render_json(graph)) == {
        "nodes": [
            {"name": "t:a", "height": 0, "enabled": True},
            {"name": "t:c", "height": 0, "enabled": False},
            {"name": "t:b", "height": 1, "enabled": True},
        ],
        "edges": [{"from": "t:a", "to": "t:b", "facet": "summary"}, {"from": "t:c", "to": "t:c", "facet": "x"}],
        "cycles": [["t:c", "t:c"]],
    }


# --- properties against brute force ---


def reach(successors: dict[str, set[str]], start: str) -> set[str]:
    """Nodes reachable from `start` by one or more edges."""
    seen: set[str] = set()
    frontier = list(successors[start])
    while frontier:
        node = frontier.pop()
        if node not in seen:
            seen.add(node)
            frontier.extend(successors[node])
    return seen


graphs = st.integers(min_value=1, max_value=12).flatmap(
    lambda n: st.tuples(
        st.just(n),
        st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1), st.booleans()), max_size=3 * n),
    )
)


@settings(max_examples=300, deadline=None)
@given(graphs)
def test_tarjan_and_disabling_agree_with_brute_force(spec: tuple[int, list[tuple[int, int, bool]]]) -> None:
    count, pairs = spec
    names = [f"t:n{i}" for i in range(count)]
    edges = [Edge(names[a], names[b], "f", wakes) for a, b, wakes in pairs]
    successors = {name: set() for name in names}
    for edge in edges:
        if edge.source != edge.target or edge.wakes:
            successors[edge.source].add(edge.target)
    reachable = {name: reach(successors, name) for name in names}

    expected = {frozenset({u} | {v for v in reachable[u] if u in reachable[v]}) for u in names}
    assert {frozenset(c) for c in strongly_connected(successors)} == expected

    on_cycle = {u for u in names if u in reachable[u]}
    downstream = set().union(*(reachable[u] for u in on_cycle)) if on_cycle else set()
    graph = build_graph(names, edges)
    assert set(graph.disabled) == on_cycle | downstream
    assert {name for name, why in graph.disabled.items() if why.kind == "cycle"} == on_cycle
    assert {m for cycle in graph.cycles for m in cycle} <= on_cycle
    for cycle in graph.cycles:
        assert cycle[0] == cycle[-1]
        assert all(b in successors[a] for a, b in itertools.pairwise(cycle))

    for edge in edges:
        a, b = edge.source, edge.target
        if a != b and a not in reachable[b]:  # not within one component
            assert graph.nodes[b].height > graph.nodes[a].height
    for name in names:
        upstream = [u for u in names if name in successors[u] and u not in reachable[name]]
        expect = max((graph.nodes[u].height + 1 for u in upstream), default=0)
        if name not in on_cycle:
            assert graph.nodes[name].height == expect
