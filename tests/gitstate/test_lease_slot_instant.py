"""The lease lint compares a renewal's slot with its parent's by the instant, not by the spelling.

Lease chains on remotes spell a slot to the second (`…T11:00:00Z`), keys to the minute; a renewal of
the same slot stays one hold however its stamp is written, and a renewal for another slot is refused.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pygit2

from hz.gitstate import objects
from hz.gitstate.lease_lint import check_lease
from hz.gitstate.transport import ZERO
from tests.gitstate.lease_plumbing import REF, line, record

NOW = datetime(2026, 10, 26, 11, 0, 30, tzinfo=UTC)


def chain(repo: pygit2.Repository, *records: dict[str, Any]) -> str:
    tip: str | None = None
    for fields in records:
        tree = objects.write_tree(repo, None, {"lease.json": line(fields)})
        message = f"lease {fields['lease']} token {fields['token']} {fields['state']}\n"
        tip = objects.make_commit(repo, tree, [tip] if tip else [], message, NOW)
    assert tip is not None
    return tip


def test_a_renewal_spelling_the_same_slot_otherwise_is_the_same_hold(tmp_path: Path) -> None:
    repo = pygit2.init_repository(str(tmp_path / "r.git"), bare=True)
    taken = record(NOW, slot="2026-10-26T11:00:00Z")
    renewed = record(NOW, slot="2026-10-26T11:00:00.000000Z", expires="2026-10-26T11:20:30Z")
    assert check_lease(repo, REF, ZERO, chain(repo, taken, renewed), NOW + timedelta(seconds=1)) == []


def test_a_renewal_for_another_slot_under_the_same_token_is_refused(tmp_path: Path) -> None:
    repo = pygit2.init_repository(str(tmp_path / "r.git"), bare=True)
    taken = record(NOW, slot="2026-10-26T11:00:00Z")
    moved = record(NOW, slot="2026-10-26T12:00:00Z")
    tip = chain(repo, taken, moved)
    found = check_lease(repo, REF, ZERO, tip, NOW + timedelta(seconds=1))
    assert [(d.code, d.message) for d in found] == [
        ("HZS014", f"commit {tip[:12]}: token 1 kept by another holder or slot, or after a release")
    ]
