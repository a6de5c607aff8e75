"""Requests and results of the agent operations: list and show (hz.ops.agents).

Results are TypedDicts, the exact JSON `hz heinzel list --json` and `hz heinzel show --json` have always
printed, now written down; the `…Result` envelopes add `schema_version` for REST and MCP.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from typing_extensions import TypedDict

from hz.ops.context import documented, request

State = Literal["proposed", "asleep", "awake", "waiting", "paused", "retired", "frozen"]
STATES: tuple[State, ...] = ("proposed", "asleep", "awake", "waiting", "paused", "retired", "frozen")


@request
@dataclass(frozen=True, kw_only=True)
class ListRequest:
    """Which Heinzelmännchen to list (the filters of `hz heinzel list`)."""

    state: State | None = None
    """Only agents in this state."""
    artifact: str | None = None
    """Only agents that keep this asset (an output target)."""
    contract: str | None = None
    """Only agents of this contract, as NAME or NAME@VERSION."""
    everywhere: bool = False
    """Every repository's agents, each with its repository (else this repository's and those of none)."""


@request
@dataclass(frozen=True, kw_only=True)
class AgentRequest:
    """One Heinzelmännchen, by name (`namespace:name` or `name`) or id (`hz-…`)."""

    name: str
    """The agent's name or id."""


@request
@dataclass(frozen=True, kw_only=True)
class ShowRequest(AgentRequest):
    """One Heinzelmännchen in full; the timeline whole, or a page of it."""

    turns: int | None = None
    """Only the latest this many entries of the timeline (None: every one)."""
    before: int | None = None
    """Only entries older than the one whose `seq` this is (the next page back)."""
    verify: bool = False
    """Read the agent's whole spine again and check its chain first (else the index answers, as it has
    kept up with every line appended)."""


@documented
class ContractRef(TypedDict):
    name: str | None
    version: int | None
    """The approved version the agent runs (None while it is proposed)."""
    fingerprint: str | None


@documented
class Pending(TypedDict):
    """What the agent waits for from a person, each by its key or id (None: nothing of that kind)."""

    draft: str | None
    amendment: str | None
    question: str | None


@documented
class Repository(TypedDict, total=False):
    """Where an adopted agent belongs: its repository's root commit, remote and path, as far as known."""

    root: str
    remote: str
    path: str


@documented
class AgentSummary(TypedDict):
    """One row of `hz heinzel list --json`."""

    id: str
    name: str
    namespace: str
    handle: str | None
    state: str
    """One of proposed, asleep, awake, waiting, paused, retired, frozen."""
    frozen: str | None
    """Where and why the agent's spine breaks (then its state is frozen)."""
    contract: ContractRef
    assets: list[str]
    next_due: str | None
    last_turn: str | None
    pending: Pending
    cost_today: float
    """USD spent today (UTC), as the spend ledger counts it against the caps (the part in doubt included)."""
    in_doubt_today: float
    """The part of cost_today whose cost is not known: reserved by requests the endpoint never settled."""
    in_doubt: str | None
    """Why it is in doubt (a request is in flight, or was when hz stopped); None when nothing is."""
    repository: Repository | None
    """None for an agent of no repository."""


@documented
class ListResult(TypedDict):
    schema_version: int
    agents: list[AgentSummary]
    """What `hz heinzel list --json` prints."""


@documented
class Version(TypedDict):
    version: int
    contract_fingerprint: str | None
    amendment_id: str | None
    approved: int
    """1 when approved, 0 while it awaits approval."""
    at: str | None


@documented
class Amendment(TypedDict):
    amendment_id: str
    by_whom: str | None
    base_version: int | None
    status: str
    version: int | None
    sentence: str | None
    widens: list[str]


@documented
class Cap(TypedDict):
    """Which spending cap stopped a turn, its limit, what was spent and what the turn needed (USD)."""

    name: str
    limit_usd: float
    spent_usd: float
    needed_usd: float


@documented
class TimelineEntry(TypedDict):
    """A turn, or a skip no turn was started for."""

    turn: str | None
    started_at: str | None
    cause: str | None
    status: str
    step: str | None
    disposition: str | None
    reason: str | None
    usd: float
    report: str | None
    cap: Cap | None
    flags: list[str]
    seq: int | None
    """Where in the spine the turn started or the skip was recorded (what `before` names)."""


@documented
class Lesson(TypedDict):
    lesson_id: str
    sentence: str
    dismissed: bool
    recorded_at: str
    turn: str | None
    hunks: list[str | None]
    """The edits the lesson came from; None where the turn's body expired."""


@documented
class AgentDraft(TypedDict):
    key: str
    asset: str | None
    place: str | None
    contract_version: int | None
    status: str
    placed_at: str | None


@documented
class Question(TypedDict):
    key: str
    question: str | None
    answered: int
    asked_at: str | None
    answer_with: str | None
    """The command that answers it (None once answered)."""
    waits_until: str | None
    """Until when the asking turn waits for the answer (None once answered, or when no turn waits)."""


@documented
class SessionSummary(TypedDict):
    """The latest `summary.written`: what the agent carries forward about its asset and its user."""

    seq: int
    at: str
    asset: str | None
    wants: str | None
    decisions: list[str] | None
    open_questions: list[str] | None
    next_deadline: str | None
    sources: list[str] | None


@documented
class ContextEdit(TypedDict):
    """A line a person hid from the model (`hz heinzel hide`): a turn or a lesson; the record is unchanged."""

    target: str
    replacement: str | None
    """What the model sees instead; None: nothing."""
    at: str


@documented
class SpineState(TypedDict):
    last_seq: int | None
    broken_seq: int | None
    problem: str | None


Fate = Literal["steered", "queued", "own-turn", "answer", "waiting"]


@documented
class Message(TypedDict):
    """One message said to the agent in its chat, and what became of it (hz.ops.conversation)."""

    request_id: str
    received: str | None
    text: str | None
    """What the person wrote (None once the inbox copy expired)."""
    fate: Fate
    """steered (reached a running turn), queued (the next turn), own-turn, answer (to a question), waiting."""
    turn: str | None
    """The turn that took it in."""
    reply: str | None
    """That turn's report line, once it finished."""
    disposition: str | None


@documented
class AgentDetail(AgentSummary):
    """What `hz heinzel show --json` prints."""

    origin: str | None
    source: str | None
    created_at: str | None
    versions: list[Version]
    amendments: list[Amendment]
    timeline: list[TimelineEntry]
    timeline_total: int
    """How many entries the whole timeline has (more than `timeline` holds when a page of it was asked)."""
    timeline_older: bool
    """Whether entries older than the first of `timeline` exist (a page of it was asked)."""
    summary: SessionSummary | None
    """The latest session summary, None before the first."""
    context_edits: list[ContextEdit]
    lessons: list[Lesson]
    drafts: list[AgentDraft]
    questions: list[Question]
    chat: list[Message]
    """What was said to it and what became of each message (hz.ops.conversation), oldest first."""
    cost_month: dict[str, float]
    """USD this month (UTC) by cause."""
    spine: SpineState


@documented
class ShowResult(TypedDict):
    schema_version: int
    agent: AgentDetail


@dataclass(frozen=True)
class Table:
    """What the text of `hz heinzel list` needs, from the index's narrow query (10,000 rows in a few ms):
    the same agents as `list_agents`, for a head that prints a table rather than JSON."""

    lines: list[Any]  # hz.session.queries.ListLine, with frozen agents shown frozen
    spent: dict[str, float]
    repos: dict[str, str] | None  # id -> where it belongs, when every repository's agents are listed
    broken: list[dict[str, Any]]  # the spines that break: agent, problem
    doubt: dict[str, tuple[float, str]] = field(default_factory=dict)  # id -> (USD in doubt, why)


__all__ = [
    "STATES",
    "AgentDetail",
    "AgentRequest",
    "AgentSummary",
    "ListRequest",
    "ListResult",
    "ShowRequest",
    "ShowResult",
    "State",
    "Table",
]
