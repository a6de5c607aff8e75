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
The models are filed by what they describe: `hz.session.agent_payloads` (the agent and its contract),
`turn_payloads`, `item_payloads` (what a turn leaves behind) and `spine_payloads`, all built on the field
types and the `Payload` base of `hz.session.payload_types`.
"""

from __future__ import annotations

from typing import Any

from hz.addresses import looks_like_address
from hz.session.agent_payloads import (
    AmendmentDeclined,
    AmendmentProposed,
    AmendmentRefused,
    ContractAmended,
    ContractApproved,
    ContractProposed,
    ContractRefreshed,
    HeinzelBound,
    HeinzelCreated,
    HeinzelPaused,
    HeinzelRenamed,
    HeinzelRetired,
    HeinzelUnpaused,
    HeinzelUnretired,
)
from hz.session.item_payloads import (
    ApprovalObserved,
    ContextEdit,
    DraftPlaced,
    EffectDone,
    EffectFailed,
    EffectStarted,
    LessonDismissed,
    LessonRecorded,
    QuestionAnswered,
    QuestionAsked,
    SummaryWritten,
    Usage,
)
from hz.session.kinds import KINDS, STEPS, VOCABULARY_VERSION
from hz.session.payload_types import Payload, Step
from hz.session.spine_payloads import SpineCompacted, SpineRepaired
from hz.session.turn_payloads import (
    TurnFinished,
    TurnRequested,
    TurnResumed,
    TurnSkipped,
    TurnStarted,
    TurnSteered,
    TurnStep,
    TurnWaiting,
)

__all__ = ["MODELS", "STEPS", "VOCABULARY_VERSION", "looks_like_address", "validate_payload"]


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
