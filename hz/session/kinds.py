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
    "heinzel.renamed",
    "heinzel.paused",
    "heinzel.unpaused",
    "heinzel.retired",
    "heinzel.unretired",
    "contract.proposed",
    "contract.approved",
    "spine.repaired",
)

KINDS: frozenset[str] = frozenset(SPEC_KINDS + LIFECYCLE_KINDS)

# Old kind names still found in spines, mapped to the name they are read as (see `hz.session.migrate`).
RENAMED: dict[str, str] = {}
