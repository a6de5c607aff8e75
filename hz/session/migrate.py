"""Migration on read: old kind names and old payload shapes are read as today's, the file stays as is.

Readers call `migrate(kind, data)` on every line; nothing ever rewrites a spine. Two rules exist today:
renamed kinds (`kinds.RENAMED`) and the additive `causes` list of turn.started / turn.finished, which
turns written before several causes per turn existed lack (they carry only `cause`).
"""

from __future__ import annotations

from typing import Any

from hz.session.kinds import RENAMED

_CAUSED = frozenset({"turn.started", "turn.finished"})
# Every kind `migrate` may change: a set test readers can afford on every line before the real one.
MIGRATING = frozenset(RENAMED) | _CAUSED


def needs_migration(kind: str, data: dict[str, Any]) -> bool:
    """Cheap test readers run on every line before calling `migrate`."""
    return kind in RENAMED or (kind in _CAUSED and "causes" not in data)


def migrate(kind: str, data: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    kind = RENAMED.get(kind, kind)
    if kind in _CAUSED and "causes" not in data and isinstance(data.get("cause"), str):
        data = {**data, "causes": [data["cause"]]}
    return kind, data
