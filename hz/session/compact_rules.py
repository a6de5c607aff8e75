"""What the compact spine line (`hz.session.compact`) may leave out, as plain data readers can afford.

Every table here is a compatibility promise like the kind names: a line written under one rule must read
the same for as long as spines are kept, so entries are added, never changed or removed
(`tests/session/test_vocabulary.py` pins them and checks them against the payload models).

- `KIND_CODES`: the number a line writes instead of its kind's name (a kind without one is written by
  name, so a new kind needs no code to be written).
- `DEFAULTS`: the payload fields whose model default is not None; a field equal to its default is left
  out and read back as the default.
- `SETS` / `USES`: what a line leaves out because an earlier line of the same stretch (since the last
  line naming its turn, see `hz.session.compact`) said it: the effect's key, the draft's hash, the
  contract version, the cause, the gathered inputs.
- `HASHED`: the fields holding `sha256:` hashes, written as 43 characters of base64url instead of 71.
"""

from __future__ import annotations

from typing import Any

KIND_CODES: dict[str, int] = {
    "turn.started": 1,
    "turn.step": 2,
    "turn.waiting": 3,
    "turn.resumed": 4,
    "turn.steered": 5,
    "turn.requested": 6,
    "turn.skipped": 7,
    "turn.finished": 8,
    "effect.started": 9,
    "effect.done": 10,
    "effect.failed": 11,
    "draft.placed": 12,
    "approval.observed": 13,
    "lesson.recorded": 14,
    "lesson.dismissed": 15,
    "question.asked": 16,
    "question.answered": 17,
    "context.edit": 18,
    "usage": 19,
    "summary.written": 20,
    "amendment.proposed": 21,
    "amendment.refused": 22,
    "amendment.declined": 23,
    "contract.amended": 24,
    "heinzel.created": 25,
    "heinzel.bound": 26,
    "heinzel.renamed": 27,
    "heinzel.paused": 28,
    "heinzel.unpaused": 29,
    "heinzel.retired": 30,
    "heinzel.unretired": 31,
    "contract.proposed": 32,
    "contract.approved": 33,
    "contract.refreshed": 34,
    "spine.repaired": 35,
    "spine.compacted": 36,
}
KIND_NAMES: dict[int, str] = {code: kind for kind, code in KIND_CODES.items()}

DEFAULTS: dict[str, dict[str, Any]] = {
    "amendment.proposed": {"widens": []},
    "amendment.refused": {"code": "HZC050"},
    "approval.observed": {"share_changed": 0.0},
    "contract.amended": {"assets": [], "inputs": {}},
    "contract.proposed": {"version": 1, "assets": [], "inputs": {}},
    "heinzel.paused": {"reason": "user"},
    "lesson.recorded": {"hunks": []},
    "spine.compacted": {"turns": {}, "usd": {}, "inputs": {}, "kept": []},
    "summary.written": {"decisions": [], "open_questions": [], "sources": [], "kept_turns": 5},
    "turn.finished": {"causes": [], "usd": 0.0, "tokens": 0, "tokens_cached": 0, "duration_s": 0.0, "inputs": {},
                      "flags": []},
    "turn.skipped": {"moved": [], "inputs": {}, "usd": 0.0},
    "turn.started": {"causes": [], "keys": [], "skills": {}, "lessons_seq": 0, "vocabulary": 1},
    "turn.step": {"inputs": {}, "tokens": 0, "tokens_cached": 0, "usd": 0.0},
    "usage": {"tokens": 0, "tokens_cached": 0, "usd": 0.0},
}  # fmt: skip

# (kind, field) -> the stretch's slot that field sets once the line is read (whole, after filling).
SETS: dict[str, dict[str, str]] = {
    "turn.started": {"cause": "cause", "contract_version": "version"},
    "turn.step": {"inputs": "inputs"},
    "effect.started": {"key": "key"},
    "effect.done": {"key": "key", "hash": "hash"},
    "effect.failed": {"key": "key"},
    "draft.placed": {"key": "key", "hash": "hash"},
}
# (kind, field) -> the slot a missing field is read from; a field the line lacks although the slot is
# known is written as null.
USES: dict[str, dict[str, str]] = {
    "effect.done": {"key": "key"},
    "effect.failed": {"key": "key"},
    "draft.placed": {"key": "key", "hash": "hash", "contract_version": "version"},
    "turn.finished": {"cause": "cause", "contract_version": "version", "inputs": "inputs", "output_hash": "hash"},
}
# Fields that follow from the same line: a turn's `causes` is usually just its `cause`, a started turn's
# `keys` just the envelope's key, and a draft placed in a file is found at its asset's path.
DERIVED: dict[str, tuple[str, ...]] = {
    "turn.started": ("causes", "keys"),
    "turn.finished": ("causes",),
    "draft.placed": ("place",),
}
# Values a field nearly always holds, left out like a default (the model has no default for them).
TYPICAL: dict[str, dict[str, Any]] = {"effect.started": {"effect": "place_draft"}}

# Hash fields: plain ones, dictionaries of hashes, and the hash inside a body reference.
HASHED: dict[str, tuple[str, ...]] = {
    "amendment.proposed": ("contract_fingerprint", "source_fingerprint"),
    "approval.observed": ("output_fp",),
    "contract.amended": ("contract_fingerprint", "source_fingerprint"),
    "contract.proposed": ("contract_fingerprint", "source_fingerprint"),
    "contract.refreshed": ("source_fingerprint",),
    "draft.placed": ("hash",),
    "effect.done": ("hash",),
    "question.answered": ("hash",),
    "spine.compacted": ("head", "folded_hash"),
    "spine.repaired": ("dropped_hash",),
    "turn.finished": ("contract_fingerprint", "output_hash"),
    "turn.steered": ("hash",),
}
HASH_MAPS: dict[str, tuple[str, ...]] = {
    "spine.compacted": ("inputs",),
    "turn.finished": ("inputs",),
    "turn.skipped": ("inputs",),
    "turn.started": ("skills",),
    "turn.step": ("inputs",),
}
BODY_REFS: frozenset[str] = frozenset({"turn.finished", "turn.step"})
