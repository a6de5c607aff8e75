"""The names of the spine's event kinds and of a turn's five steps, without any model behind them.

This module is the cheap half of the vocabulary: readers (the spine reader, the index, the idle tick)
need to know which kinds exist to skip the unknown ones, and must not pay for pydantic to learn it.
`hz.session.vocabulary` holds a payload model for every name here; a test keeps the two in step and
pins both lists, because every name is a compatibility promise: adding a kind is fine, changing what
one means needs a new name (`draft.placed.2`).
"""

from __future__ import annotations

VOCABULARY_VERSION = 1

# The turn walks these in order; their names are persisted and so frozen.
STEPS: tuple[str, ...] = ("gather", "think", "outcome", "act", "finish")

# Kinds the specification names (turns, effects, drafts, approvals, lessons, questions, context, usage,
# summaries, amendments, contract versions).
SPEC_KINDS: tuple[str, ...] = (
    "turn.started",
    "turn.step",
    "turn.waiting",
    "turn.resumed",
    "turn.steered",
    "turn.requested",
    "turn.skipped",
    "turn.finished",
    "effect.started",
    "effect.done",
    "effect.failed",
    "draft.placed",
    "approval.observed",
    "lesson.recorded",
    "lesson.dismissed",
    "question.asked",
    "question.answered",
    "context.edit",
    "usage",
    "summary.written",
    "amendment.proposed",
    "amendment.refused",
    "amendment.declined",
    "contract.amended",
)

# Kinds hz adds for the agent's own lifecycle and for the spine's housekeeping (docs/decisions.md).
LIFECYCLE_KINDS: tuple[str, ...] = (
    "heinzel.created",
    "heinzel.bound",
    "heinzel.renamed",
    "heinzel.paused",
    "heinzel.unpaused",
    "heinzel.retired",
    "heinzel.unretired",
    "contract.proposed",
    "contract.approved",
    "contract.refreshed",
    "spine.repaired",
    "spine.compacted",
)

KINDS: frozenset[str] = frozenset(SPEC_KINDS + LIFECYCLE_KINDS)

# Old kind names still found in spines, mapped to the name they are read as (see `hz.session.migrate`).
RENAMED: dict[str, str] = {}

# The payload fields each kind always carries (its model's fields without a default). Readers check them
# without pydantic, so a hand-edited line that lost one is reported as a break, never a crash later.
REQUIRED: dict[str, frozenset[str]] = {
    "amendment.declined": frozenset({"amendment_id"}),
    "amendment.proposed": frozenset({"amendment_id", "base_version", "by", "contract_fingerprint",
                                     "source_fingerprint"}),
    "amendment.refused": frozenset({"amendment_id", "widens"}),
    "approval.observed": frozenset({"decision", "key"}),
    "context.edit": frozenset({"target"}),
    "contract.amended": frozenset({"amendment_id", "contract_fingerprint", "source_fingerprint", "version"}),
    "contract.approved": frozenset({"version"}),
    "contract.proposed": frozenset({"contract_fingerprint", "name", "source_fingerprint"}),
    "contract.refreshed": frozenset({"commit", "source_fingerprint", "version"}),
    "draft.placed": frozenset({"asset", "contract_version", "hash", "key"}),
    "effect.done": frozenset({"key"}),
    "effect.failed": frozenset({"error", "key"}),
    "effect.started": frozenset({"effect", "key"}),
    "heinzel.bound": frozenset(),
    "heinzel.created": frozenset({"agent_id", "name", "namespace", "origin"}),
    "heinzel.paused": frozenset(),
    "heinzel.renamed": frozenset({"name", "previous"}),
    "heinzel.retired": frozenset(),
    "heinzel.unpaused": frozenset(),
    "heinzel.unretired": frozenset(),
    "lesson.dismissed": frozenset({"lesson_id"}),
    "lesson.recorded": frozenset({"lesson_id", "sentence"}),
    "question.answered": frozenset({"key"}),
    "question.asked": frozenset({"key", "question"}),
    "spine.compacted": frozenset({"folded_bytes", "folded_hash", "folded_lines", "head"}),
    "spine.repaired": frozenset({"dropped_bytes", "dropped_hash", "offset"}),
    "summary.written": frozenset({"asset", "wants"}),
    "turn.finished": frozenset({"cause", "disposition"}),
    "turn.requested": frozenset({"cause", "key"}),
    "turn.resumed": frozenset({"woken_by"}),
    "turn.skipped": frozenset({"causes", "keys", "reason"}),
    "turn.started": frozenset({"cause", "contract_version"}),
    "turn.steered": frozenset({"hash", "request_id"}),
    "turn.step": frozenset({"step"}),
    "turn.waiting": frozenset({"step"}),
    "usage": frozenset({"kind"}),
}  # fmt: skip


def missing_fields(kind: str, data: dict[str, object]) -> list[str]:
    """The fields a known kind's payload must carry and this one lacks (sorted; empty when whole)."""
    required = REQUIRED.get(kind)
    return [] if required is None or required <= data.keys() else sorted(required - data.keys())
