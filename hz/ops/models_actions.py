"""Requests and results of the operations that change something: approve, reject, the turns a person asks
for (wake, chat, answer, retry, resume, stop), new agents and lessons (hz.ops.decide, .turns, .new,
.lessons). Each result says in `said` what the CLI prints for it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from typing_extensions import TypedDict

from hz.ops.context import documented, request
from hz.ops.models_agents import Lesson


@request
@dataclass(frozen=True, kw_only=True)
class ApproveRequest:
    """What to approve: a proposed agent (its v1), an amendment (`am-…`) or a personal draft by its key."""

    item: str
    """An amendment id, an agent's name or id (proposed, or with one pending amendment), or a draft key."""


@documented
class ApproveResult(TypedDict):
    schema_version: int
    item: str
    kind: Literal["agent", "amendment", "draft", "seconded"]
    """What was approved (`seconded`: a team draft its author's member approved, by a second member)."""
    agent: str | None
    """`namespace:name` of the agent whose version or amendment it was (None for a draft)."""
    version: int | None
    """The contract version the agent is at now (None for a draft)."""
    said: str


@request
@dataclass(frozen=True, kw_only=True)
class RejectRequest:
    """Reject one waiting draft by its key (`hz drafts` lists them)."""

    key: str
    """The draft's key."""


@documented
class RejectResult(TypedDict):
    schema_version: int
    key: str
    said: str


@request
@dataclass(frozen=True, kw_only=True)
class ChatRequest:
    """A message to one Heinzelmännchen: a turn of its own, or steering for the turn that runs."""

    name: str
    """The agent's name or id."""
    message: str
    """What you say to it."""
    after: bool = False
    """If it is awake, run this as its next turn instead of steering the running one."""


@request
@dataclass(frozen=True, kw_only=True)
class AnswerRequest:
    """The answer to the question a Heinzelmännchen asked (its turn waits for it)."""

    name: str
    """The agent's name or id."""
    answer: str
    """Your answer, in your words."""
    key: str | None = None
    """The question's key, to be sure it is that question (`heinzel_show` lists them)."""


@request
@dataclass(frozen=True, kw_only=True)
class RetryRequest:
    """Run the last turn again from after its gather step, with a hint."""

    name: str
    """The agent's name or id."""
    hint: str = "try again"
    """One line on what to do differently ("shorter")."""


@documented
class TurnResult(TypedDict):
    schema_version: int
    agent: str
    """The agent as it was named in the request."""
    queued: str | None
    """The request id left for a turn running in another process (None: it ran here, or nothing ran)."""
    ran: list[dict[str, Any]]
    """What ran in this process, one entry per turn, as `hz tick --json` reports them."""
    said: list[str]


@documented
class AnswerResult(TurnResult):
    question: str
    """The key of the question answered."""


@request
@dataclass(frozen=True, kw_only=True)
class NewRequest:
    """Propose a new Heinzelmännchen from a contract's text or from a sentence; approving lets it wake."""

    name: str
    """The new agent's name."""
    contract: str | None = None
    """The contract's full text (a .prose.md file's content)."""
    say: str | None = None
    """What it should do, in plain words: the model runner writes version 1."""
    source: str | None = None
    """The file the contract text came from, for the record."""
    namespace: Literal["me", "project", "team"] = "me"


@documented
class NewResult(TypedDict):
    schema_version: int
    id: str
    name: str
    namespace: str
    state: str
    said: list[str]


@documented
class LessonsResult(TypedDict):
    schema_version: int
    agent: str
    """The agent's name."""
    lessons: list[Lesson]
    """What `hz heinzel lessons --json` prints."""


@request
@dataclass(frozen=True, kw_only=True)
class DismissRequest:
    """Dismiss a lesson: kept, never shown to a model again."""

    name: str
    """The agent's name or id."""
    lesson: str
    """The lesson's id, or its number in the agent's lessons."""


@documented
class DismissResult(TypedDict):
    schema_version: int
    agent: str
    lesson: str
    dismissed: bool
    """False when it was dismissed already (dismissing twice changes nothing)."""
    said: str


@request
@dataclass(frozen=True, kw_only=True)
class HideRequest:
    """Hide a finished turn's line or a lesson from the agent's model (`context.edit`); the record is unchanged."""

    name: str
    """The agent's name or id."""
    target: str
    """A finished turn's id or a lesson's id."""
    replacement: str | None = None
    """A short text the model sees instead; None hides the line."""


@documented
class HideResult(TypedDict):
    schema_version: int
    agent: str
    target: str
    what: str
    """What the target is: turn or lesson."""
    replacement: str | None
    said: str
