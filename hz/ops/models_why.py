"""Request and result of `why` (hz.ops.why): what happened to a contract's slot, or why nothing did."""

from __future__ import annotations

from dataclasses import dataclass

from typing_extensions import TypedDict

from hz.ops.context import documented, request
from hz.ops.models_agents import Cap


@request
@dataclass(frozen=True, kw_only=True)
class WhyRequest:
    """A contract (or its agent) and one of its slots."""

    contract: str
    """The contract's name (`name` or `namespace:name`), its id (`hz-…`), or a local agent's name or id."""
    slot: str | None = None
    """The slot as a UTC minute (`2026-10-30T15:00Z`); default: the latest slot due by now."""


@documented
class Fate(TypedDict):
    """How the slot's run ended, as its receipt (team) or its agent's session (personal) says."""

    outcome: str
    """finished or skipped."""
    disposition: str
    reason: str | None
    at: str
    usd: float
    holder: str | None
    """Who ran it (`@handle/machine` or `actions:<run id>`), when the lease chain is here to say."""
    role: str | None
    draft: str | None
    """The key of the draft it placed, if any."""
    draft_fate: str | None
    """pending, approved, rejected or superseded."""


@documented
class LeaseView(TypedDict):
    """The contract's lease as this clone last fetched it."""

    holder: str
    role: str
    token: int
    slot: str
    state: str
    """held or released (its record says so, or its turn's turn.finished on hz/state ended the term)."""
    expires: str
    held_now: bool
    """Held and not yet expired (with the clock-skew margin) at the time asked."""
    this_slot: bool
    """Whether it was taken for the slot asked about."""
    fetched: bool
    """True when read from the copy the last fetch brought (it may lag behind the remote)."""


@documented
class Grace(TypedDict):
    """When each role may take a team slot: the owner at once, delegates and Actions after the grace period."""

    due: str
    owner_from: str
    others_from: str
    grace_s: int


@documented
class Upstream(TypedDict):
    """A `contract:` input and whether its newest draft still waits for approval."""

    contract: str
    pending_draft: str | None


@documented
class Roles(TypedDict):
    owner: str | None
    maintainers: list[str]
    """The delegates: they may run a team slot after the grace period."""
    me: str | None
    """This machine's handle."""
    my_role: str | None
    """owner, delegate, or None when this machine may not run it."""


@documented
class AgentState(TypedDict):
    id: str
    name: str
    state: str


@documented
class WhyData(TypedDict):
    contract: str
    id: str | None
    """The lease and receipt id (`hz-…`) of a team contract, the agent id of a personal one."""
    scope: str | None
    slot: str | None
    verdict: str
    """The answer in one sentence."""
    fate: Fate | None
    lease: LeaseView | None
    grace: Grace | None
    upstream: list[Upstream]
    cap: Cap | None
    roles: Roles
    agent: AgentState | None
    """This machine's agent of the contract, if it has one."""
    notes: list[str]


@documented
class WhyResult(TypedDict):
    schema_version: int
    why: WhyData
