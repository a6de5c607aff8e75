"""A remote without hz's hook (GitHub) holds whatever anyone pushed to `hz/state`: every reader must live with it.

The team is the bookkeeping tests' (a hooked loopback remote, priya's draft placed); the forged events are
then written straight into the bare repository, past the hook, as a push to GitHub would land them.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from hz.canonical import canonical_json
from hz.gitstate.layout import event_path
from tests.gitstate import plumbing
from tests.gitstate.conftest import bare, loopback  # noqa: F401  (the fixtures, fetched by name below)
from tests.review.test_approval_bookkeeping import START, placed_draft, team
from tests.turn.test_late_runner import hz


def forged_placed(placed: dict[str, Any], ts: str, asset: str) -> tuple[str, bytes]:
    """A `draft.placed` like priya's, under her token, for another asset and with time `ts`: its path and bytes."""
    key = placed["key"].rsplit("@", 1)[0] + "@" + asset
    event = {**placed, "key": key, "ts": ts, "data": {**placed["data"], "key": key, "asset": asset}}
    return event_path(event["id"], "draft.placed", key), canonical_json(event) + b"\n"


def test_events_out_of_range_are_voided_and_said_once_never_a_crash(
    tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    """Issue 20, finding 1: a `draft.placed` of the year 1 made every member's tick exit 3 (OverflowError).
    Each clone says each voided file once; a file far too large to be an event is never loaded."""
    remote, _, priya, omar = team(tmp_path, request)
    placed, _ = placed_draft(remote, priya)
    year_one = forged_placed(placed, "0001-01-01T00:00:00Z", "state:a.md")
    year_9999 = forged_placed(placed, "9999-12-31T23:59:59Z", "state:b.md")
    path, line = forged_placed(placed, placed["ts"], "state:c.md")
    huge = (path, b" " * 8_000_000 + line)  # 8 MB at an event's path: never loaded into a reader's memory
    plumbing.append_unguarded(remote, dict([year_one, year_9999, huge]))

    first = omar.tick(START + timedelta(minutes=5))
    voided = [e for e in first if e["action"] == "voided"]
    why = "no event hz can read (a remote without hz's hook took it): voided"
    assert voided == [{"agent": "approvals", "action": "voided", "path": path, "error": why}
                      for path in sorted([year_one[0], year_9999[0], huge[0]])]  # fmt: skip
    assert [e for e in omar.tick(START + timedelta(minutes=10)) if e["action"] == "voided"] == []

    text = hz("tick", "--now", (START + timedelta(minutes=15)).isoformat(), cwd=priya.clone, environ=priya.environ)
    assert text.returncode == 0, text.stdout + text.stderr
    said = [line for line in text.stdout.splitlines() if line.startswith("approvals: ignored")]  # her clone's first
    assert said == [f"approvals: ignored {p}: {why}" for p in sorted([year_one[0], year_9999[0], huge[0]])]

    log = hz("state", "log", "--no-fetch", cwd=omar.clone, environ=omar.environ)
    assert log.returncode == 0, log.stderr
    first_path = next(p for p in sorted(plumbing_paths(log.stderr)))
    assert log.stderr == (f"hz: skipped 3 file(s) on hz/state that are no event hz can read (first: {first_path}); "
                          "`hz state lint` says why\n")  # fmt: skip


def plumbing_paths(stderr: str) -> list[str]:
    return [word.rstrip(");") for word in stderr.split() if word.startswith("events/")]
