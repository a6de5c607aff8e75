"""The event vocabulary is compatibility data: these lists may only grow, never change."""

from __future__ import annotations

import re
import subprocess
import sys
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel

from hz.session import kinds
from hz.session.vocabulary import MODELS, looks_like_address, validate_payload

FROZEN_STEPS = ("gather", "think", "outcome", "act", "finish")

FROZEN_FIELDS: dict[str, list[str]] = {
    "amendment.declined": ["amendment_id"],
    "amendment.proposed": [
        "amendment_id", "base_version", "by", "contract_fingerprint", "place", "sentence", "source_fingerprint",
        "widens",
    ],
    "amendment.refused": ["amendment_id", "code", "widens"],
    "approval.observed": ["approver", "decision", "key", "output_fp", "share_changed"],
    "context.edit": ["replacement", "target"],
    "contract.amended": [
        "amendment_id", "assets", "by", "contract_fingerprint", "inputs", "next_due", "source_fingerprint", "version",
    ],
    "contract.approved": ["by", "next_due", "version"],
    "contract.proposed": ["assets", "contract_fingerprint", "inputs", "name", "source_fingerprint", "version"],
    "contract.refreshed": ["commit", "next_due", "source_fingerprint", "version"],
    "draft.placed": ["asset", "contract_version", "hash", "key", "place"],
    "effect.done": ["hash", "key"],
    "effect.failed": ["error", "key"],
    "effect.started": ["effect", "key"],
    "heinzel.bound": ["path", "remote", "root"],
    "heinzel.created": ["agent_id", "handle", "name", "namespace", "origin", "repository", "source"],
    "heinzel.paused": ["reason"],
    "heinzel.renamed": ["name", "previous"],
    "heinzel.retired": [],
    "heinzel.unpaused": ["next_due"],
    "heinzel.unretired": ["next_due"],
    "lesson.dismissed": ["lesson_id"],
    "lesson.recorded": ["approval_key", "hunks", "lesson_id", "sentence"],
    "question.answered": ["hash", "key", "request_id"],
    "question.asked": ["key", "question"],
    "spine.compacted": ["folded_bytes", "folded_hash", "folded_lines", "head", "inputs", "kept", "turns", "usd"],
    "spine.repaired": ["dropped_bytes", "dropped_hash", "offset"],
    "summary.written": [
        "asset", "decisions", "kept_turns", "next_deadline", "open_questions", "previous_seq", "sources", "wants",
    ],
    "turn.finished": [
        "body_ref", "cap", "cause", "causes", "contract_fingerprint", "contract_version", "disposition",
        "duration_s", "error", "flags", "inputs", "next_due", "output_hash", "reason", "report", "step", "tokens",
        "tokens_cached", "usd",
    ],
    "turn.requested": ["cause", "key"],
    "turn.resumed": ["step", "woken_by"],
    "turn.skipped": ["cap", "causes", "inputs", "keys", "moved", "next_due", "reason", "usd"],
    "turn.started": [
        "cause", "causes", "contract_version", "from_step", "hint", "keys", "lease_token", "lessons_seq",
        "parent_turn", "skills", "vocabulary",
    ],
    "turn.steered": ["hash", "request_id"],
    "turn.step": ["body_ref", "inputs", "outcome", "step", "tokens", "tokens_cached", "usd"],
    "turn.waiting": ["on", "step", "until"],
    "usage": ["kind", "tokens", "tokens_cached", "usd"],
}  # fmt: skip

# Kinds the specification names (sorted); each must exist under exactly this name.
SPEC_NAMED = {
    "amendment.declined", "approval.observed", "context.edit", "contract.amended", "draft.placed",
    "effect.done", "effect.failed", "effect.started", "lesson.dismissed", "lesson.recorded",
    "question.answered", "question.asked", "summary.written", "turn.finished", "turn.requested", "turn.resumed",
    "turn.skipped", "turn.started", "turn.steered", "turn.waiting", "usage",
}  # fmt: skip


def test_step_names_and_version_are_frozen() -> None:
    assert kinds.STEPS == FROZEN_STEPS
    assert kinds.VOCABULARY_VERSION == 1


def test_every_kind_and_its_fields_are_frozen() -> None:
    assert {kind: sorted(model.model_fields) for kind, model in MODELS.items()} == FROZEN_FIELDS
    assert set(FROZEN_FIELDS) == kinds.KINDS


def test_the_readers_list_of_required_fields_is_the_models() -> None:
    required = {
        kind: frozenset(n for n, f in model.model_fields.items() if f.is_required()) for kind, model in MODELS.items()
    }
    assert required == kinds.REQUIRED


def test_every_kind_the_specification_names_exists() -> None:
    assert SPEC_NAMED <= kinds.KINDS


def _field_names(model: type[BaseModel]) -> set[str]:
    names = set(model.model_fields)
    for info in model.model_fields.values():
        for arg in getattr(info.annotation, "__args__", (info.annotation,)):
            if isinstance(arg, type) and issubclass(arg, BaseModel):
                names |= _field_names(arg)
    return names


def test_no_kind_has_a_field_that_would_hold_content() -> None:
    forbidden = {"text", "draft", "transcript", "body", "message", "content", "email"}
    offenders = {kind: _field_names(model) & forbidden for kind, model in MODELS.items()}
    assert {kind: names for kind, names in offenders.items() if names} == {}


@pytest.mark.parametrize(
    ("kind", "data"),
    [
        ("lesson.recorded", {"lesson_id": "l1", "sentence": "write to priya@example.com first"}),
        ("question.asked", {"key": "k", "question": "Is ops@acme.io the right list?"}),
        ("turn.finished", {"disposition": "failed", "cause": "asked", "error": "bounce from a.b@c.de"}),
        ("summary.written", {"asset": "doc", "wants": "w", "decisions": ["cc x@y.org"]}),
    ],
)
def test_a_value_shaped_like_an_address_is_refused(kind: str, data: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match="a spine event may not hold an e-mail address"):
        validate_payload(kind, data)


@given(st.from_regex(r"[a-z0-9._]{1,12}@[a-z0-9]{1,10}\.[a-z]{2,6}", fullmatch=True), st.text(max_size=20))
def test_any_embedded_address_is_recognised(address: str, around: str) -> None:
    assert looks_like_address(f"{around} {address} {around}")


def test_unknown_fields_and_kinds_are_refused() -> None:
    with pytest.raises(ValueError, match="Extra inputs are not permitted"):
        validate_payload("lesson.dismissed", {"lesson_id": "l1", "text": "the whole draft"})
    with pytest.raises(ValueError, match=re.escape("unknown event kind 'draft.text'")):
        validate_payload("draft.text", {})


def test_payloads_are_normalised_to_json() -> None:
    data = validate_payload("turn.waiting", {"step": "act", "until": "2026-10-30T17:00:00+02:00"})
    assert data == {"step": "act", "until": "2026-10-30T15:00:00Z"}
    assert re.fullmatch(r"[a-z]+", data["step"])


def test_reading_needs_no_pydantic() -> None:
    code = (
        "import sys; import hz.session.spine, hz.session.kinds, hz.session.migrate;"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('pydantic', 'pygit2', 'ruamel')))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"


# --- the compact line (format 2): what a line may leave out is pinned like the kinds ----------------------

FROZEN_KIND_CODES = {
    "turn.started": 1, "turn.step": 2, "turn.waiting": 3, "turn.resumed": 4, "turn.steered": 5,
    "turn.requested": 6, "turn.skipped": 7, "turn.finished": 8, "effect.started": 9, "effect.done": 10,
    "effect.failed": 11, "draft.placed": 12, "approval.observed": 13, "lesson.recorded": 14,
    "lesson.dismissed": 15, "question.asked": 16, "question.answered": 17, "context.edit": 18, "usage": 19,
    "summary.written": 20, "amendment.proposed": 21, "amendment.refused": 22, "amendment.declined": 23,
    "contract.amended": 24, "heinzel.created": 25, "heinzel.bound": 26, "heinzel.renamed": 27,
    "heinzel.paused": 28, "heinzel.unpaused": 29, "heinzel.retired": 30, "heinzel.unretired": 31,
    "contract.proposed": 32, "contract.approved": 33, "contract.refreshed": 34, "spine.repaired": 35,
    "spine.compacted": 36,
}  # fmt: skip
# What changed with the compact line: the kinds and their fields above did not; these are new, and each
# entry is a promise (a line written under it reads the same for as long as spines are kept).
FROZEN_LEFT_OUT = {
    "stretch": {  # read from an earlier line of the same turn's stretch
        "draft.placed": {"contract_version": "version", "hash": "hash", "key": "key"},
        "effect.done": {"key": "key"},
        "effect.failed": {"key": "key"},
        "turn.finished": {"cause": "cause", "contract_version": "version", "inputs": "inputs", "output_hash": "hash"},
    },
    "derived": {"draft.placed": ("place",), "turn.finished": ("causes",), "turn.started": ("causes", "keys")},
    "typical": {"effect.started": {"effect": "place_draft"}},
}  # fmt: skip


def test_the_compact_lines_codes_and_rules_are_frozen() -> None:
    from hz.session import compact_rules as rules

    assert rules.KIND_CODES == FROZEN_KIND_CODES
    assert set(rules.KIND_CODES) <= kinds.KINDS and len(set(rules.KIND_CODES.values())) == len(rules.KIND_CODES)
    assert {"stretch": rules.USES, "derived": rules.DERIVED, "typical": rules.TYPICAL} == FROZEN_LEFT_OUT
    for kind, fields in {**rules.USES, **rules.SETS, **rules.HASHED, **rules.HASH_MAPS}.items():
        assert set(fields) <= set(MODELS[kind].model_fields), kind


def test_the_compact_lines_defaults_are_the_models() -> None:
    from pydantic_core import PydanticUndefined

    from hz.session.compact_rules import DEFAULTS

    found = {}
    for kind, model in MODELS.items():
        defaults = {n: f.default for n, f in model.model_fields.items() if f.default not in (None, PydanticUndefined)}
        if defaults:
            found[kind] = defaults
    assert found == DEFAULTS
