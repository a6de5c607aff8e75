"""A pydantic model for the payload (`data`) of every event kind the spine may hold.

Writers validate a payload here before it is appended (`validate_payload`); readers never import this
module (it pulls in pydantic), they read plain JSON. Every model forbids unknown fields, and every string
anywhere in a payload is refused when it looks like an e-mail address: the spine holds ids, hashes,
sizes, costs, dispositions and the few short texts the user reads, never an address.

Naming of those short texts (the spine has no field called text, draft, transcript, body or message):
`sentence` for a lesson and an amendment, `question` for a question, `report` for a turn's report line,
`hint` for the user's retry hint, and the named fields of a summary. Anything longer lives in a turn
body (`hz.session.bodies`) and is referenced by hash.

The kind names and step names are in `hz.session.kinds`; `MODELS` maps each name to its model and a
test pins both the names and every model's field names (the vocabulary is frozen: add, never change).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, AwareDatetime, BaseModel, ConfigDict, Field, StringConstraints, model_validator

from hz.addresses import looks_like_address
from hz.session.kinds import KINDS, STEPS, VOCABULARY_VERSION

__all__ = ["MODELS", "STEPS", "VOCABULARY_VERSION", "looks_like_address", "validate_payload"]


Hash = Annotated[str, StringConstraints(pattern=r"^sha256:[0-9a-f]{64}$")]
AgentId = Annotated[str, StringConstraints(pattern=r"^hz-[0-9A-HJKMNP-TV-Z]{26}$")]
Slug = Annotated[str, StringConstraints(pattern=r"^[a-z][a-z0-9]*(-[a-z0-9]+)*$", max_length=64)]
Handle = Annotated[str, StringConstraints(pattern=r"^@[A-Za-z0-9][A-Za-z0-9-]{0,38}(?:/[A-Za-z0-9._-]+)?$")]
Key = Annotated[str, StringConstraints(min_length=1, max_length=512)]
Ident = Annotated[str, StringConstraints(min_length=1, max_length=200)]
Sentence = Annotated[str, StringConstraints(min_length=1, max_length=1000)]
Short = Annotated[str, StringConstraints(max_length=2000)]
Money = Annotated[float, Field(ge=0)]
Count = Annotated[int, Field(ge=0)]
Step = Literal["gather", "think", "outcome", "act", "finish"]
Cause = Literal["schedule", "source-changed", "discovered", "asked", "approval", "created", "retry", "stale"]
Namespace = Literal["me", "project", "team"]


def _utc(moment: datetime) -> datetime:
    return moment.astimezone(UTC)


UtcTime = Annotated[AwareDatetime, AfterValidator(_utc)]


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in (*_strings(k), *_strings(v))]
    if isinstance(value, list | tuple):
        return [s for item in value for s in _strings(item)]
    return []


class Payload(BaseModel):
    """Base of every payload: frozen, closed, and free of anything shaped like an e-mail address."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    @model_validator(mode="before")
    @classmethod
    def _no_addresses(cls, value: Any) -> Any:
        for text in _strings(value):
            if looks_like_address(text):
                raise ValueError("a spine event may not hold an e-mail address")
        return value


# --- the agent and its contract ------------------------------------------------------------------


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


# --- turns ---------------------------------------------------------------------------------------


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


class SpineRepaired(Payload):
    """The next writer cut off a torn last line (a crash mid-append), or `hz heinzel repair` set the lines
    from a break on aside (`SpineWriter.set_aside`)."""

    offset: Count
    dropped_bytes: Count
    dropped_hash: Hash


class KeptEvent(Payload):
    """An event of the folded lines that is still live (a contract version, a lesson, a pending draft …),
    kept whole inside the line that folded them: the same seq, time, turn, kind, key and payload."""

    seq: int = Field(ge=1)
    ts: Ident
    turn: Ident | None = None
    kind: Ident
    key: Key | None = None
    data: dict[str, Any]


class SpineCompacted(Payload):
    """The first line of a compacted spine: the lines up to seq (this line's seq) folded away, `head` the
    hash of the last of them and `folded_hash` of all their bytes, what the folded turns added up to, the
    last fingerprint of each input they saw, and the events among them that are still live."""

    head: Hash
    folded_hash: Hash
    folded_bytes: Count
    folded_lines: Count
    turns: dict[Ident, Count] = {}  # folded turns by disposition (`skipped` for skips)
    usd: dict[Ident, Money] = {}  # what they spent, by cause
    inputs: dict[Ident, Hash] = {}
    kept: list[KeptEvent] = []


MODELS: dict[str, type[Payload]] = {
    "heinzel.created": HeinzelCreated,
    "heinzel.bound": HeinzelBound,
    "heinzel.renamed": HeinzelRenamed,
    "heinzel.paused": HeinzelPaused,
    "heinzel.unpaused": HeinzelUnpaused,
    "heinzel.retired": HeinzelRetired,
    "heinzel.unretired": HeinzelUnretired,
    "contract.proposed": ContractProposed,
    "contract.approved": ContractApproved,
    "contract.amended": ContractAmended,
    "contract.refreshed": ContractRefreshed,
    "amendment.proposed": AmendmentProposed,
    "amendment.refused": AmendmentRefused,
    "amendment.declined": AmendmentDeclined,
    "turn.started": TurnStarted,
    "turn.step": TurnStep,
    "turn.waiting": TurnWaiting,
    "turn.resumed": TurnResumed,
    "turn.steered": TurnSteered,
    "turn.requested": TurnRequested,
    "turn.skipped": TurnSkipped,
    "turn.finished": TurnFinished,
    "effect.started": EffectStarted,
    "effect.done": EffectDone,
    "effect.failed": EffectFailed,
    "draft.placed": DraftPlaced,
    "approval.observed": ApprovalObserved,
    "lesson.recorded": LessonRecorded,
    "lesson.dismissed": LessonDismissed,
    "question.asked": QuestionAsked,
    "question.answered": QuestionAnswered,
    "context.edit": ContextEdit,
    "usage": Usage,
    "summary.written": SummaryWritten,
    "spine.repaired": SpineRepaired,
    "spine.compacted": SpineCompacted,
}

assert set(MODELS) == KINDS, "every kind needs a model and every model a kind"
assert tuple(Step.__args__) == STEPS  # type: ignore[attr-defined]


def validate_payload(kind: str, data: dict[str, Any]) -> dict[str, Any]:
    """Validate `data` for `kind` and return it in its JSON form (defaults filled, times as ISO UTC)."""
    model = MODELS.get(kind)
    if model is None:
        raise ValueError(f"unknown event kind {kind!r}")
    return model.model_validate(data).model_dump(mode="json", exclude_none=True)
