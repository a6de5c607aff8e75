"""The payloads of a turn's events: started, its steps, waits and resumes, steering, and how it ended."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from hz.session.kinds import VOCABULARY_VERSION
from hz.session.payload_types import (
    Cause,
    Count,
    Hash,
    Ident,
    Key,
    Money,
    Payload,
    Sentence,
    Short,
    Step,
    UtcTime,
)


class BodyRef(Payload):
    hash: Hash
    size: Count


class TurnStarted(Payload):
    cause: Cause
    causes: list[Cause] = []
    keys: list[Key] = []
    contract_version: int = Field(ge=1)
    skills: dict[Ident, Hash] = {}
    lessons_seq: Count = 0
    vocabulary: int = VOCABULARY_VERSION
    parent_turn: Ident | None = None
    from_step: Step | None = None
    hint: Sentence | None = None
    lease_token: Count | None = None


class TurnStep(Payload):
    """A checkpoint: `step` is done; what it produced is referenced, never inlined."""

    step: Step
    inputs: dict[Ident, Hash] = {}
    outcome: Literal["draft", "lessons", "amendment", "question", "nothing"] | None = None
    body_ref: BodyRef | None = None
    tokens: Count = 0
    tokens_cached: Count = 0
    usd: Money = 0.0


class WaitOn(Payload):
    kind: Literal["source", "approval", "answer"]
    input: Ident | None = None
    fingerprint_not: Hash | None = None
    key: Key | None = None


class TurnWaiting(Payload):
    step: Step
    until: UtcTime | None = None
    on: WaitOn | None = None


class TurnResumed(Payload):
    woken_by: Literal["timer", "source", "approval", "answer", "asked"]
    step: Step | None = None


class TurnSteered(Payload):
    request_id: Ident
    hash: Hash


class TurnRequested(Payload):
    cause: Cause
    key: Key


class CapSkip(Payload):
    """Which cap stopped a turn (or the runner's day, after it over-reported), its limit and what was gone."""

    name: Literal["turn", "day", "contract", "over-reported"]
    limit_usd: Money
    spent_usd: Money
    needed_usd: Money


class TurnSkipped(Payload):
    causes: list[Cause]
    keys: list[Key]
    reason: Literal["nothing-moved", "check-unmet", "done-when-unmet", "cap", "throttled", "ran-elsewhere", "not-owner"]
    moved: list[Ident] = []
    inputs: dict[Ident, Hash] = {}
    usd: Money = 0.0
    next_due: UtcTime | None = None
    cap: CapSkip | None = None


class TurnFinished(Payload):
    disposition: Literal["drafted", "asked", "learned", "proposed", "skipped", "failed", "abandoned"]
    reason: Ident | None = None
    cause: Cause
    causes: list[Cause] = []
    usd: Money = 0.0
    tokens: Count = 0
    tokens_cached: Count = 0
    duration_s: Annotated[float, Field(ge=0)] = 0.0
    contract_version: int | None = Field(default=None, ge=1)
    contract_fingerprint: Hash | None = None
    inputs: dict[Ident, Hash] = {}
    output_hash: Hash | None = None
    body_ref: BodyRef | None = None
    report: Sentence | None = None
    step: Step | None = None
    error: Short | None = None
    next_due: UtcTime | None = None
    cap: CapSkip | None = None
    # an endpoint that reported more than the request's limit, or no usage at all (its reservation counted)
    flags: list[Literal["over-reported", "no-usage"]] = []
