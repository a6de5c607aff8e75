"""Request and result of `graph` (hz.ops.graph)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NotRequired

from typing_extensions import TypedDict

from hz.ops.context import documented, request


@request
@dataclass(frozen=True, kw_only=True)
class GraphRequest:
    """The contract graph of the repository the server runs in."""

    observed: bool = False
    """Also what the receipts on hz/state say ran, read, wrote and waits (as the last tick fetched them)."""


@documented
class GraphNode(TypedDict):
    name: str
    height: int
    """Wake order: a contract wakes after everything it reads."""
    enabled: bool


GraphEdge = TypedDict("GraphEdge", {"from": str, "to": str, "facet": str})


@documented
class GraphData(TypedDict):
    """What `hz graph --json` prints."""

    nodes: list[GraphNode]
    edges: list[GraphEdge]
    cycles: list[list[str]]
    observed: NotRequired[dict[str, Any]]
    """With `observed`: the receipts' reads, writes, runs (with fates and actors) and pending drafts."""


@documented
class GraphResult(TypedDict):
    schema_version: int
    graph: GraphData
