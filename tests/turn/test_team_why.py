"""Leases end with their turn, and a tick says why each team contract did not run (issue 19, findings 10 and "why").

The team harness: separate `hz tick` processes per member, the hook-guarded remote over loopback `git daemon`.
The pulse runs every quarter hour here, so a lease that outlived its turn (ten minutes, plus the clock-skew
margin) would still block the next slot.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from tests.gitstate.conftest import bare, loopback  # noqa: F401  (the fixtures, fetched by name below)
from tests.turn.team_harness import Member, hourly, lease_log, seed_remote
from tests.turn.test_late_runner import LEASE, hz

NINE = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)


def quarterly(tmp_path: Path, request: pytest.FixtureRequest, *names: str) -> list[Member]:
    """The pulse every 15 minutes (owner @priya, maintainer @omar) and the members `names` joined."""
    remote: Path = request.getfixturevalue("bare")
    url: str = request.getfixturevalue("loopback")
    contract = hourly("@priya", ["@omar"]).replace('schedule: "0 * * * *"', 'schedule: "*/15 * * * *"')
    seed_remote(tmp_path, remote, url, contract)
    return [Member.join(tmp_path, name, url) for name in names]


def leases(member: Member, now: datetime) -> list[dict[str, object]]:
    done = hz("lease", "list", "--json", cwd=member.clone, environ=member.environ)
    assert done.returncode == 0, done.stderr
    listed: list[dict[str, object]] = json.loads(done.stdout)
    return listed


def tick_json(member: Member, now: datetime) -> dict[str, object]:
    done = hz("tick", "--now", now.isoformat(), "--json", cwd=member.clone, environ=member.environ)
    assert done.returncode == 0, done.stdout + done.stderr
    report: dict[str, object] = json.loads(done.stdout)
    return report


def tick_text(member: Member, now: datetime) -> str:
    done = hz("tick", "--now", now.isoformat(), cwd=member.clone, environ=member.environ)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def test_a_delegates_finished_turn_releases_the_lease_and_the_owners_next_slot_runs(
    tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    priya, omar = quarterly(tmp_path, request, "priya", "omar")
    # omar (a delegate) runs the 09:00 slot once the owner's grace period passed
    woken = omar.tick(NINE + timedelta(minutes=11))
    assert [(e["action"], e.get("disposition")) for e in woken] == [("started", "drafted")], woken
    (lease,) = leases(omar, NINE)  # no release commit: its turn's turn.finished on hz/state ended the term
    assert (lease["lease"], lease["state"], lease["status"], lease["token"]) == (LEASE, "held", "released", 1)
    assert str(lease["finished"]).startswith("2026-11-02T09:11:")
    why = hz("why", "team-pulse", "--json", cwd=omar.clone, environ=omar.environ)  # the same reading, no fetch
    assert why.returncode == 0, why.stdout + why.stderr
    seen = json.loads(why.stdout)["lease"]
    assert (seen["state"], seen["held_now"], seen["token"]) == ("released", False, 1)
    # the owner's 09:15 slot is not blocked by the finished 09:00 turn (its lease would hold until 09:21)
    woken = priya.tick(NINE + timedelta(minutes=15))
    assert [(e["action"], e.get("disposition")) for e in woken] == [("started", "drafted")], woken
    chain = [(r["token"], r["state"], r["holder"].split("/")[0]) for r in lease_log(priya.clone, priya.environ, LEASE)]
    assert chain == [(1, "held", "@omar"), (2, "held", "@priya")]  # one commit a slot
    listed = hz("lease", "list", cwd=priya.clone, environ=priya.environ)
    assert listed.returncode == 0, listed.stdout + listed.stderr
    assert " released at 2026-11-02T09:15:" in listed.stdout and listed.stdout.endswith(" (its turn finished)\n")


def test_the_tick_says_why_a_team_contract_did_not_run(tmp_path: Path, request: pytest.FixtureRequest) -> None:
    priya, omar, zoe = quarterly(tmp_path, request, "priya", "omar", "zoe")
    # omar within the owner's grace period: early, until when
    report = tick_json(omar, NINE + timedelta(minutes=2))
    (early,) = report["team"]  # type: ignore[misc]
    assert early == {
        "contract": "team-pulse", "lease": LEASE, "state": "early", "slot": "2026-11-02T09:00:00Z",
        "reason": "waiting for the grace period: the owner goes first until 2026-11-02T09:10:00Z (delegate)",
        "holder": None, "until": "2026-11-02T09:10:00Z", "upstream": None,
    }  # fmt: skip
    # priya holds the lease by hand (a turn of hers under way): omar, after the grace period, sees who and until when
    held = hz("lease", "acquire", LEASE, "--slot", "2026-11-02T09:00:00Z", "--ttl", "600",
              cwd=priya.clone, environ={**priya.environ})  # fmt: skip
    assert held.returncode == 0, held.stdout + held.stderr
    holder = held.stdout.split()[0] and leases(priya, NINE)[0]["holder"]
    until = str(leases(priya, NINE)[0]["expires"])
    text = tick_text(omar, NINE + timedelta(minutes=11))
    assert text == f"team-pulse: skipped -> held by {holder} until {until} (slot 2026-11-02T09:00:00Z)\n"
    # zoe is no member of the contract
    report = tick_json(zoe, NINE + timedelta(minutes=12))
    assert [(d["state"], d["reason"]) for d in report["team"]] == [  # type: ignore[attr-defined]
        ("not-a-role", "the contract on main gives you no role in it")
    ]
