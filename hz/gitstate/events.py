"""Receipt-grade events: the only records that leave a member's machine for the team's `hz/state`.

An event is one JSON line (RFC 8785, so the same event is the same bytes everywhere):

    {"data": {...}, "id": "hz-…", "key": "hz-…@…", "kind": "turn.started", "lease": "hz-…",
     "token": 7, "ts": "2026-10-30T15:00:02Z", "v": 1}

`id` is the Heinzelmännchen, `key` the idempotency key that makes the event unique for its kind,
`(lease, token)` the fencing token the writer held (soft fencing: readers void stale tokens), `data`
the kind's payload. Every model forbids unknown fields and uses only the types of `hz.gitstate.types`.
"""

from __future__ import annotations

from functools import cached_property
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from hz.canonical import canonical_json
from hz.gitstate.types import Amount, AssetRef, Count, Handle, Hash, HzId, Id, Key, Share, Slug, Token, UtcTime

Cause = Literal["schedule", "source-changed", "discovered", "asked", "approval", "created", "retry", "stale"]
Role = Literal["owner", "delegate", "actions"]
Disposition = Literal["drafted", "asked", "learned", "proposed", "skipped", "failed", "abandoned"]
Reason = Literal[
    # turn.skipped (statement 15)
    "nothing-moved",
    "check-unmet",
    "done-when-unmet",
    "cap",
    "throttled",
    # turn.finished abandoned / failed
    "fenced",
    "stopped",
    "superseded",
    "timeout",
    "resumes",
    "error",
]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class TurnStarted(_Strict):
    turn: Id
    cause: Cause
    causes: list[Cause] = Field(default_factory=list, max_length=16)
    keys: list[Key] = Field(min_length=1, max_length=16)
    contract_version: Count
    contract_fp: Hash
    token: Token
    role: Role


class TurnEnded(_Strict):
    """The payload of both `turn.finished` and `turn.skipped`."""

    turn: Id
    cause: Cause
    causes: list[Cause] = Field(default_factory=list, max_length=16)
    keys: list[Key] = Field(min_length=1, max_length=16)
    disposition: Disposition
    reason: Reason | None = None
    moved: list[Slug] = Field(default_factory=list, max_length=64)
    cost_usd: Amount = 0.0
    tokens: Count = 0
    tokens_cached: Count = 0
    duration_s: Amount = 0.0
    contract_fp: Hash | None = None
    input_fps: dict[Slug, Hash] = Field(default_factory=dict, max_length=64)
    draft_hash: Hash | None = None


class DraftPlaced(_Strict):
    turn: Id
    key: Key
    asset: AssetRef
    hash: Hash


class ApprovalObserved(_Strict):
    key: Key
    asset: AssetRef
    approver: Handle
    share_changed: Share
    output_fp: Hash
    self_approved: bool = False  # the approver is the member whose agent drafted it


class DraftRejected(_Strict):
    """A team draft's pull request was closed unmerged, or its branch deleted, with nothing of it on `main`;
    `by` is who rejected it (`hz reject`'s member, the pull request's closer through the roster, else
    `@unknown`). Optional so that receipts written before it was added still read; hz always writes it."""

    key: Key
    asset: AssetRef
    by: Handle | None = None


class DraftSuperseded(_Strict):
    """A pending team draft was replaced by a newer draft of the same idempotency key (`by`), written in the
    push that places the newer one: no person decided it."""

    key: Key
    asset: AssetRef
    by: Key


class ApprovalSeconded(_Strict):
    """A second member's `hz approve` of a draft its own author's member approved, when `[review]` asks for
    another member: the draft's publishes wait for it."""

    key: Key
    asset: AssetRef
    approver: Handle


class ContractAmended(_Strict):
    version: Count
    fingerprint: Hash


PublishAction = Literal["github.issue.comment", "github.pull.create", "jira.issue.comment", "state.file.write"]


class PublishDone(_Strict):
    """One `hz.publishes` action of an approved draft ran (hz.review.publish); its key is also at the target."""

    key: Hash  # the publish key: hash of (draft key, action, target)
    draft_key: Key  # the approved draft's key, the job the publish belongs to (not `draft`: a text-like name)
    action: PublishAction
    target: AssetRef  # where it went, as a ref: `github:acme/site/issues/12`, `state:reports/w45.md`
    hash: Hash  # of the text written there


PAYLOADS: dict[str, type[_Strict]] = {
    "turn.started": TurnStarted,
    "turn.finished": TurnEnded,
    "turn.skipped": TurnEnded,
    "draft.placed": DraftPlaced,
    "approval.observed": ApprovalObserved,
    "draft.rejected": DraftRejected,
    "draft.superseded": DraftSuperseded,
    "approval.seconded": ApprovalSeconded,
    "contract.amended": ContractAmended,
    "publish.done": PublishDone,
}
Kind = Literal[
    "turn.started",
    "turn.finished",
    "turn.skipped",
    "draft.placed",
    "approval.observed",
    "draft.rejected",
    "draft.superseded",
    "approval.seconded",
    "contract.amended",
    "publish.done",
]

LEASELESS: frozenset[str] = frozenset(
    {"approval.observed", "draft.rejected", "draft.superseded", "approval.seconded", "publish.done"}
)
"""Receipts of what became of a team draft (and of its publishes), written by whichever member or run saw
it first, with no lease: each carries the (lease, token) of a `draft.placed` (the one it follows; for
`draft.superseded`, the newer draft's that replaced it), a token the chain did give, so the lint's fence
check holds, and a later token never voids it (hz.gitstate.reader): it records a fact about `main`, the
forge and `hz/state`, not work done under a lease term."""


class Event(_Strict):
    """The envelope; `data` is checked against the model of `kind` by `Event.parse` and `Event.make`."""

    v: Literal[1] = 1
    kind: Kind
    id: HzId
    key: Key
    ts: UtcTime
    lease: HzId
    token: Token
    data: dict[str, Any]

    @classmethod
    def make(cls, kind: Kind, *, id: str, key: str, ts: str, lease: str, token: int, data: _Strict) -> Event:
        if not isinstance(data, PAYLOADS[kind]):
            raise TypeError(f"{kind} needs a {PAYLOADS[kind].__name__} payload, got {type(data).__name__}")
        payload = data.model_dump(mode="json", exclude_defaults=True)
        return cls.parse_obj_checked(
            {"v": 1, "kind": kind, "id": id, "key": key, "ts": ts, "lease": lease, "token": token, "data": payload}
        )

    @classmethod
    def parse_obj_checked(cls, raw: object) -> Event:
        """Validate the envelope and the payload of its kind (raises pydantic.ValidationError)."""
        event = cls.model_validate(raw)
        PAYLOADS[event.kind].model_validate(event.data)
        return event

    def payload(self) -> _Strict:
        return PAYLOADS[self.kind].model_validate(self.data)

    def line(self) -> bytes:
        """The event as stored: canonical JSON and one newline."""
        return self._line

    @cached_property
    def _line(self) -> bytes:
        return canonical_json(self.model_dump(mode="json")) + b"\n"


def path_of(event: Event) -> str:
    """The file on `hz/state` that holds `event` (see hz.gitstate.layout)."""
    from hz.gitstate.layout import event_path

    return event_path(event.id, event.kind, event.key)
