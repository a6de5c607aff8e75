"""Every operation by name, with its request and result types and what a head should know about it.

The names are the MCP tool names, matching the CLI (`hz heinzel list` -> `heinzel_list`, `hz drafts` ->
`drafts`); REST and the pages may use the same table. An operation's function is imported only when it
is called (`Operation.function`), so reading the table stays cheap.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from hz.ops.context import Context


@dataclass(frozen=True)
class Operation:
    name: str
    """The tool name (MCP), matching the CLI command."""
    title: str
    summary: str
    request: type[Any]
    """A frozen dataclass: the operation's arguments."""
    result: type[Any]
    """A TypedDict: what it returns (with `schema_version`)."""
    target: str
    """`module:function` of the implementation, taking (Context, request)."""
    cli: str
    """The command a person types for it."""
    payload: str
    """The result's key that holds what the CLI's `--json` prints."""
    read_only: bool = False
    destructive: bool = False
    person: bool = False
    """Whether it is a person's decision (an approval): an agent's client must ask its person first."""

    def function(self) -> Callable[[Context, Any], Any]:
        module, _, attribute = self.target.partition(":")
        found: Callable[[Context, Any], Any] = getattr(importlib.import_module(module), attribute)
        return found

    def run(self, ctx: Context, request: Any) -> Any:
        return self.function()(ctx, request)


def _table() -> dict[str, Operation]:
    from hz.ops import models_agents as agents
    from hz.ops import models_drafts as drafts

    found = [
        Operation(
            "heinzel_list", "List Heinzelmännchen",
            "The Heinzelmännchen of this repository (and of none), with state, contract, next due time, "
            "pending items and today's cost; filter by state, artifact or contract.",
            agents.ListRequest, agents.ListResult, "hz.ops.agents:list_agents", "hz heinzel list", "agents",
            read_only=True,
        ),
        Operation(
            "heinzel_show", "Show one Heinzelmännchen",
            "One Heinzelmännchen in full: contract versions, amendments, timeline of turns, lessons, "
            "pending drafts and questions, cost.",
            agents.AgentRequest, agents.ShowResult, "hz.ops.show:show_agent", "hz heinzel show NAME", "agent",
            read_only=True,
        ),
        Operation(
            "drafts", "Waiting drafts",
            "Every draft that waits for a person: this machine's agents' and the team's (from the team remote), "
            "each with the key to approve or reject it by.",
            drafts.DraftsRequest, drafts.DraftsResult, "hz.ops.drafts:list_drafts", "hz drafts", "drafts",
            read_only=True,
        ),
    ]  # fmt: skip
    return {operation.name: operation for operation in found}


OPERATIONS: dict[str, Operation] = _table()
