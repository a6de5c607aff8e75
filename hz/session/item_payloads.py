"""The payloads of what a turn leaves behind: effects, drafts and their approvals, lessons, questions,
context edits, usage and summaries."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from hz.session.payload_types import (
    Count,
    Handle,
    Hash,
    Ident,
    Key,
    Money,
    Payload,
    Sentence,
    Short,
    UtcTime,
)

# --- effects, drafts, approvals ------------------------------------------------------------------


class EffectStarted(Payload):
    key: Key
    effect: Ident


class EffectDone(Payload):
    key: Key
    hash: Hash | None = None


class EffectFailed(Payload):
    key: Key
    error: Short


class DraftPlaced(Payload):
    key: Key
    asset: Ident
    hash: Hash
    contract_version: int = Field(ge=1)
    place: Ident | None = None  # where it can be found: a path in the work tree, a draft branch


class ApprovalObserved(Payload):
    key: Key
    decision: Literal["approved", "rejected"]
    approver: Handle | None = None
    share_changed: Annotated[float, Field(ge=0, le=1)] = 0.0
    output_fp: Hash | None = None


# --- lessons, questions, context, usage, summaries -----------------------------------------------


class LessonRecorded(Payload):
    lesson_id: Ident
    sentence: Sentence
    hunks: list[Hash] = []  # hashes of the diff hunks, which live in the turn body
    approval_key: Key | None = None


class LessonDismissed(Payload):
    lesson_id: Ident


class QuestionAsked(Payload):
    key: Key
    question: Sentence


class QuestionAnswered(Payload):
    key: Key
    request_id: Ident | None = None
    hash: Hash | None = None


class ContextEdit(Payload):
    target: Ident
    replacement: Sentence | None = None


class Usage(Payload):
    kind: Literal["summary", "lesson", "handoff"]
    tokens: Count = 0
    tokens_cached: Count = 0
    usd: Money = 0.0


class SummaryWritten(Payload):
    """The fixed schema a user reads the same way every time; `previous_seq` chains summaries."""

    asset: Sentence
    wants: Sentence
    decisions: list[Sentence] = []
    open_questions: list[Sentence] = []
    next_deadline: UtcTime | None = None
    sources: list[Ident] = []
    previous_seq: int | None = Field(default=None, ge=1)
    kept_turns: Count = 5
