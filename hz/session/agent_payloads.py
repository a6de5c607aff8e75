"""The payloads of the events of an agent and its contract: created, bound, renamed, paused, retired,
its contract's versions and the amendments proposed to it."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, StringConstraints

from hz.session.payload_types import (
    AgentId,
    Handle,
    Hash,
    Ident,
    Namespace,
    Payload,
    Sentence,
    Slug,
    UtcTime,
)


class Repository(Payload):
    """Which repository an adopted agent belongs to (`hz.heinzel.repository`): its root commit, its remote
    (normalised, no user or token), and its work tree's path only while it has no commit."""

    root: Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{40}([0-9a-f]{24})?$")] | None = None
    remote: Annotated[str, StringConstraints(min_length=1, max_length=500)] | None = None
    path: Annotated[str, StringConstraints(min_length=1, max_length=500)] | None = None


class HeinzelBound(Repository):
    """An agent adopted before identities were recorded, or before its repository's first commit, bound
    to the repository a tick found it in."""


class HeinzelCreated(Payload):
    agent_id: AgentId
    name: Slug
    namespace: Namespace
    handle: Handle | None = None
    origin: Literal["file", "sentence", "adopted"]
    source: Ident | None = None  # the contract file it came from, relative to its repository
    repository: Repository | None = None  # the repository it was adopted in


class HeinzelRenamed(Payload):
    name: Slug
    previous: Slug


class HeinzelPaused(Payload):
    reason: Literal["user", "pinned-content-changed"] = "user"


class HeinzelUnpaused(Payload):
    next_due: UtcTime | None = None


class HeinzelRetired(Payload):
    pass


class HeinzelUnretired(Payload):
    next_due: UtcTime | None = None


class ContractProposed(Payload):
    """Version 1 compiled and shown to the user; the agent stays `proposed` until it is approved."""

    version: Literal[1] = 1
    name: Slug
    contract_fingerprint: Hash
    source_fingerprint: Hash
    assets: list[Ident] = []
    inputs: dict[Ident, list[Ident]] = {}


class ContractApproved(Payload):
    version: int = Field(ge=1)
    by: Handle | None = None
    next_due: UtcTime | None = None


class ContractAmended(Payload):
    """An approved amendment became version `version` (n+1)."""

    version: int = Field(ge=2)
    amendment_id: Ident
    contract_fingerprint: Hash
    source_fingerprint: Hash
    assets: list[Ident] = []
    inputs: dict[Ident, list[Ident]] = {}
    by: Handle | None = None
    next_due: UtcTime | None = None


class ContractRefreshed(Payload):
    """Version `version`'s text was replaced by a team contract's text on main at `commit`, with the same
    contract fingerprint (a schedule, owner, maintainers or wording change is no new version), and
    when the agent is next due under it."""

    version: int = Field(ge=1)
    commit: Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{40}([0-9a-f]{24})?$")]
    source_fingerprint: Hash
    next_due: UtcTime | None = None


class AmendmentProposed(Payload):
    amendment_id: Ident
    by: Literal["agent", "user"]
    base_version: int = Field(ge=1)
    contract_fingerprint: Hash
    source_fingerprint: Hash
    sentence: Sentence | None = None
    widens: list[Ident] = []
    place: Ident | None = None  # the draft branch its review waits on (an agent's amendment of a team contract)


class AmendmentRefused(Payload):
    amendment_id: Ident
    code: Literal["HZC050"] = "HZC050"
    widens: list[Ident]


class AmendmentDeclined(Payload):
    amendment_id: Ident
