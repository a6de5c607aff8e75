"""`hz why` on a team contract, asked by a delegate on a real hooked remote: who ran the slot, and why the
next one waits for the owner (the grace period)."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from tests.gitstate.conftest import bare, loopback  # noqa: F401  (the fixtures, fetched by name below)
from tests.turn.team_harness import Member, pulse_team
from tests.turn.test_late_runner import LEASE, hz

SLOT = datetime(2026, 10, 26, 11, 0, tzinfo=UTC)
KEY = f"{LEASE}@v1@2026-10-26T11:00Z@state:pulse/20261026T1100.md"


def _why(member: Member, *argv: str) -> dict[str, Any]:
    done = hz("why", "team-pulse", *argv, "--json", cwd=member.clone, environ=member.environ)
    assert (done.returncode, done.stderr) == (0, "")
    found: dict[str, Any] = json.loads(done.stdout)
    return found


def test_a_delegate_sees_who_ran_the_slot_and_that_the_next_waits_for_the_owner(
    tmp_path: Path,
    bare: Path,  # noqa: F811
    loopback: str,  # noqa: F811
) -> None:
    priya, omar = pulse_team(tmp_path, bare, loopback, "priya", "omar")
    assert [e["action"] for e in priya.tick(SLOT + timedelta(minutes=1))] == ["started"]
    omar.tick(SLOT + timedelta(minutes=12))  # his one fetch brings the receipts and the lease
    ran = _why(omar, "2026-10-26T11:00Z", "--now", "2026-10-26T11:30Z")
    fate = ran["fate"]
    assert (fate["outcome"], fate["disposition"], fate["role"], fate["draft"], fate["draft_fate"]) == (
        "finished", "drafted", "owner", KEY, "pending"
    )  # fmt: skip
    assert fate["holder"].startswith("@priya/")
    assert ran["roles"] == {"owner": "@priya", "maintainers": ["@omar"], "me": "@omar", "my_role": "delegate"}
    assert (
        ran["verdict"] == f"finished at {fate['at']} by {fate['holder']} (owner): drafted; its draft {KEY} is pending"
    )
    assert ran["lease"]["holder"] == fate["holder"] and ran["lease"]["this_slot"] is True
    assert ran["grace"] == {"due": "2026-10-26T11:00Z", "owner_from": "2026-10-26T11:00Z",
                            "others_from": "2026-10-26T11:10Z", "grace_s": 600}  # fmt: skip
    waiting = _why(omar, "--now", "2026-10-26T12:04Z")  # the 12:00 slot: nobody ran it yet
    assert (waiting["slot"], waiting["fate"]) == ("2026-10-26T12:00Z", None)
    assert waiting["verdict"] == (
        "waiting for @priya to run it; delegates and Actions may take it from 2026-10-26T12:10Z"
    )
    text = hz("why", "team-pulse", "--now", "2026-10-26T12:04Z", cwd=omar.clone, environ=omar.environ)
    assert text.stdout.splitlines()[:2] == [
        "team:team-pulse slot 2026-10-26T12:00Z: waiting for @priya to run it; delegates and Actions may take it from "
        "2026-10-26T12:10Z",
        "  owner @priya · delegates @omar; you (@omar) are its delegate",
    ]
