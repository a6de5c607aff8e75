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
    from hz.ops import models_actions as acts
    from hz.ops import models_agents as agents
    from hz.ops import models_drafts as drafts
    from hz.ops import models_graph as graphs
    from hz.ops import models_why as whys

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
            agents.ShowRequest, agents.ShowResult, "hz.ops.show:show_agent", "hz heinzel show NAME", "agent",
            read_only=True,
        ),
        Operation(
            "heinzel_chat", "Talk to a Heinzelmännchen",
            "Say something to one Heinzelmännchen: a turn of its own now, or steering for the turn that runs "
            "(with `after`, its next turn). The message is part of its session, as in `hz heinzel show`.",
            acts.ChatRequest, acts.TurnResult, "hz.ops.turns:chat", "hz heinzel chat NAME MESSAGE", "said",
        ),
        Operation(
            "heinzel_wake", "Wake a Heinzelmännchen",
            "Start a turn of cause asked now (or as its next turn, if it is awake).",
            agents.AgentRequest, acts.TurnResult, "hz.ops.turns:wake", "hz heinzel wake NAME", "said",
        ),
        Operation(
            "heinzel_new", "Propose a new Heinzelmännchen",
            "Propose a new Heinzelmännchen from a contract's text or a sentence; it wakes only after a person "
            "approves it (`hz approve NAME`).",
            acts.NewRequest, acts.NewResult, "hz.ops.new:new_agent", "hz heinzel new NAME --from FILE", "said",
        ),
        Operation(
            "heinzel_retry", "Retry the last turn",
            "Run the last finished turn again from after its gather step, with a hint.",
            acts.RetryRequest, acts.TurnResult, "hz.ops.turns:retry", "hz heinzel retry NAME HINT", "said",
        ),
        Operation(
            "heinzel_resume", "Resume a waiting turn",
            "Resume a waiting turn now, whatever it waits for.",
            agents.AgentRequest, acts.TurnResult, "hz.ops.turns:resume", "hz heinzel resume NAME", "said",
        ),
        Operation(
            "heinzel_stop", "Stop the running turn",
            "Stop the running or waiting turn: it ends abandoned; queued messages wait for the next turn.",
            agents.AgentRequest, acts.TurnResult, "hz.ops.turns:stop", "hz heinzel stop NAME", "said",
            destructive=True,
        ),
        Operation(
            "drafts", "Waiting drafts",
            "Every draft that waits for a person: this machine's agents' and the team's (from the team remote), "
            "each with the key to approve or reject it by.",
            drafts.DraftsRequest, drafts.DraftsResult, "hz.ops.drafts:list_drafts", "hz drafts", "drafts",
            read_only=True,
        ),
        Operation(
            "approve", "Approve (a person's decision)",
            "Approve a proposed Heinzelmännchen, an amendment (am-…) or a personal draft by its key. Approving "
            "is a person's act: the server asks its person first, or refuses.",
            acts.ApproveRequest, acts.ApproveResult, "hz.ops.decide:approve", "hz approve ITEM", "said",
            destructive=True, person=True,
        ),
        Operation(
            "reject", "Reject a draft (a person's decision)",
            "Reject one waiting draft by its key: recorded, and the draft taken back (a team draft's pull "
            "request closed and its branch deleted).",
            acts.RejectRequest, acts.RejectResult, "hz.ops.decide:reject", "hz reject KEY", "said",
            destructive=True, person=True,
        ),
        Operation(
            "answer", "Answer a question",
            "Answer the question a Heinzelmännchen asked; its waiting turn goes on with the answer.",
            acts.AnswerRequest, acts.AnswerResult, "hz.ops.turns:answer", "hz heinzel chat NAME ANSWER", "said",
        ),
        Operation(
            "lessons", "Lessons",
            "What a Heinzelmännchen learned from a person's edits of its approved drafts.",
            agents.AgentRequest, acts.LessonsResult, "hz.ops.lessons:list_lessons", "hz heinzel lessons NAME",
            "lessons", read_only=True,
        ),
        Operation(
            "heinzel_dismiss", "Dismiss a lesson",
            "Dismiss a lesson: kept, never shown to a model again.",
            acts.DismissRequest, acts.DismissResult, "hz.ops.lessons:dismiss_lesson",
            "hz heinzel dismiss NAME LESSON", "said",
        ),
        Operation(
            "heinzel_hide", "Hide a line from the model",
            "Hide a finished turn's line or a lesson from a Heinzelmännchen's model, or show it a short text "
            "instead (context.edit); the record itself is unchanged.",
            acts.HideRequest, acts.HideResult, "hz.ops.lessons:hide_line",
            "hz heinzel hide NAME TARGET", "said",
        ),
        Operation(
            "graph", "Contract graph",
            "How this repository's contracts feed each other: contracts, contract: edges, wake order, "
            "disabled contracts; with `observed`, what ran, read, wrote and waits according to hz/state.",
            graphs.GraphRequest, graphs.GraphResult, "hz.ops.graph:graph", "hz graph --json", "graph",
            read_only=True,
        ),
        Operation(
            "why", "Why did it (not) run?",
            "For a contract and a slot: its last fate, who holds or held the lease and until when, the grace "
            "period, a missing upstream approval, a cap, the roles that may run it.",
            whys.WhyRequest, whys.WhyResult, "hz.ops.why:why", "hz why CONTRACT [SLOT]", "why",
            read_only=True,
        ),
    ]  # fmt: skip
    return {operation.name: operation for operation in found}


OPERATIONS: dict[str, Operation] = _table()
