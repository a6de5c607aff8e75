"""Requests and results of `drafts` (hz.ops.drafts): this machine's waiting drafts and the team's."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, NotRequired

from typing_extensions import TypedDict

from hz.ops.context import documented, request


@request
@dataclass(frozen=True, kw_only=True)
class DraftsRequest:
    """Which waiting drafts to list (`hz drafts`)."""

    everywhere: bool = False
    """Every repository's drafts, each with its repository (else this repository's and those of none)."""


@documented
class PersonalDraft(TypedDict):
    """A draft of one of this machine's agents, from the index."""

    agent: str
    """`namespace:name` of the agent (its id when the index knows no name)."""
    asset: str | None
    place: str | None
    """Where the draft waits: a file, or a `hz/draft/…` branch."""
    version: int | None
    """The contract version it was drafted under."""
    placed_at: str | None
    key: str
    """The draft's key: `hz approve KEY` or `hz reject KEY`."""
    repository: NotRequired[str]
    """Where its agent belongs (only when every repository's drafts are listed)."""


@documented
class TeamDraft(TypedDict):
    """A draft branch on the repository's team remote, as fetched."""

    scope: Literal["team"]
    contract: str
    """The contract's id."""
    name: str | None
    """The contract's name on main (None when main has it no more)."""
    output: str
    slot: str | None
    key: str
    branch: str
    placed_at: str
    age_s: int
    """Seconds since it was placed."""
    pull: str | None
    """The URL of its open pull request, when a forge knows one."""


@documented
class DraftsResult(TypedDict):
    schema_version: int
    drafts: list[PersonalDraft | TeamDraft]
    """What `hz drafts --json` prints."""
    notes: list[str]
    """Why something may be missing (the team remote unreached, the forge silent)."""
