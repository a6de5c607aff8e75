"""Leases: exclusive creation, holders, expiry with the skew margin, owner first, renew and release."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from hz.gitstate.identity import whoami
from hz.gitstate.lease import NotHolder, acquire, read_lease, renew
from hz.gitstate.remote import TeamRemote
from hz.gitstate.settings import StateSettings
from tests.gitstate.factory import git, hz_id, new_clone

NOW = datetime(2026, 10, 30, 15, 0, tzinfo=UTC)
SLOT = "2026-10-30T15:00:00Z"
SETTINGS = StateSettings(lease_ttl_s=600, clock_skew_s=30, tick_interval_s=300, grace_intervals=2)
ANN = whoami({"HZ_HANDLE": "@ann"}, machine="m-0000000a")
BOB = whoami({"HZ_HANDLE": "bob"}, machine="m-0000000b")


def member(tmp_path: Path, name: str, url: str) -> TeamRemote:
    env = {"HZ_HOME": str(tmp_path / f"home-{name}"), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    return TeamRemote(new_clone(tmp_path / name), url, env)


def test_first_acquire_creates_the_lease_with_token_1(tmp_path: Path, remote_url: str) -> None:
    ann = member(tmp_path, "ann", remote_url)
    outcome = acquire(ann, hz_id(1), slot=SLOT, identity=ANN, role="owner", now=NOW, settings=SETTINGS)
    assert outcome.status == "won"
    assert outcome.record is not None
    record = outcome.record
    assert (record.holder, record.token, record.expires) == ("@ann/m-0000000a", 1, "2026-10-30T15:10:00Z")
    assert read_lease(member(tmp_path, "x", remote_url), hz_id(1)).record == outcome.record


def test_a_held_lease_is_refused_and_names_its_holder(tmp_path: Path, bare: Path) -> None:
    ann, bob = member(tmp_path, "ann", str(bare)), member(tmp_path, "bob", str(bare))
    acquire(ann, hz_id(1), slot=SLOT, identity=ANN, role="owner", now=NOW, settings=SETTINGS)
    later = NOW + timedelta(seconds=600 + 29)  # expired by ann's clock, but within the skew margin
    outcome = acquire(bob, hz_id(1), slot=SLOT, identity=BOB, role="owner", now=later, settings=SETTINGS)
    assert outcome.status == "held"
    assert outcome.record is not None and outcome.record.holder == "@ann/m-0000000a"


def test_an_expired_lease_is_taken_over_with_the_next_token(tmp_path: Path, bare: Path) -> None:
    ann, bob = member(tmp_path, "ann", str(bare)), member(tmp_path, "bob", str(bare))
    acquire(ann, hz_id(1), slot=SLOT, identity=ANN, role="owner", now=NOW, settings=SETTINGS)
    later = NOW + timedelta(seconds=600 + 31)
    outcome = acquire(bob, hz_id(1), slot=SLOT, identity=BOB, role="owner", now=later, settings=SETTINGS)
    assert outcome.status == "won" and outcome.record is not None and outcome.record.token == 2
    with pytest.raises(NotHolder) as caught:
        renew(ann, hz_id(1), later, SETTINGS)
    assert caught.value.message == f"lease {hz_id(1)} moved on: held by @bob/m-0000000b (token 2)"


def test_creation_is_exclusive_when_two_start_from_nothing(tmp_path: Path, bare: Path) -> None:
    ann, bob = member(tmp_path, "ann", str(bare)), member(tmp_path, "bob", str(bare))
    # both saw "no lease" and then push: the remote accepts only the first creation
    from hz.gitstate.lease import Plan, push_plan
    from hz.gitstate.lease_record import LeaseRecord

    def record(holder: str) -> LeaseRecord:
        return LeaseRecord(lease=hz_id(1), holder=holder, role="owner", token=1, slot=SLOT,
                           acquired=SLOT, expires="2026-10-30T15:10:00Z")  # fmt: skip

    first = push_plan(ann, Plan(None, record("@ann")), NOW)
    second = push_plan(bob, Plan(None, record("@bob")), NOW)
    assert (first.status, second.status) == ("won", "held")
    assert second.record == first.record


def test_delegates_wait_the_grace_period_and_skip_done_slots(tmp_path: Path, bare: Path) -> None:
    bob = member(tmp_path, "bob", str(bare))
    early = acquire(bob, hz_id(1), slot=SLOT, identity=BOB, role="delegate", now=NOW + timedelta(minutes=9),
                    settings=SETTINGS, due=NOW)  # fmt: skip
    assert (early.status, early.not_before) == ("early", NOW + timedelta(minutes=10))
    late = acquire(bob, hz_id(1), slot=SLOT, identity=BOB, role="delegate", now=NOW + timedelta(minutes=10),
                   settings=SETTINGS, due=NOW)  # fmt: skip
    assert late.status == "won"


def test_release_is_a_commit_and_the_token_never_resets(tmp_path: Path, bare: Path) -> None:
    ann, bob = member(tmp_path, "ann", str(bare)), member(tmp_path, "bob", str(bare))
    acquire(ann, hz_id(1), slot=SLOT, identity=ANN, role="owner", now=NOW, settings=SETTINGS)
    renew(ann, hz_id(1), NOW + timedelta(minutes=1), SETTINGS)
    released = renew(ann, hz_id(1), NOW + timedelta(minutes=2), SETTINGS, release=True)
    assert (released.state, released.token) == ("released", 1)
    taken = acquire(
        bob, hz_id(1), slot=SLOT, identity=BOB, role="owner", now=NOW + timedelta(minutes=3), settings=SETTINGS
    )
    assert taken.record is not None and taken.record.token == 2
    chain = git("--git-dir", str(bare), "log", "--format=%s", f"refs/hz/lease/{hz_id(1)}").splitlines()
    assert chain == [
        f"lease {hz_id(1)} token 2 held",
        f"lease {hz_id(1)} token 1 released",
        f"lease {hz_id(1)} token 1 held",
        f"lease {hz_id(1)} token 1 held",
    ]


def test_actions_identity_and_handles() -> None:
    actions = whoami({"GITHUB_ACTIONS": "true", "GITHUB_RUN_ID": "123456", "HZ_HANDLE": "@ann"})
    assert (actions.holder, actions.role_for("@ann")) == ("actions:123456", "actions")
    assert ANN.role_for("ann") == "owner"
    assert BOB.role_for("@ann", ("@bob",)) == "delegate"
    assert BOB.role_for("@ann", ()) is None


def test_a_holder_stops_acting_a_skew_margin_before_expiry(tmp_path: Path, bare: Path) -> None:
    from hz.gitstate.lease import mine

    ann = member(tmp_path, "ann", str(bare))
    acquire(ann, hz_id(1), slot=SLOT, identity=ANN, role="owner", now=NOW, settings=SETTINGS)
    held = mine(ann, hz_id(1), NOW + timedelta(seconds=600 - 31), SETTINGS)
    assert held is not None and held.record.token == 1
    assert mine(ann, hz_id(1), NOW + timedelta(seconds=600 - 30), SETTINGS) is None
    assert mine(member(tmp_path, "bob", str(bare)), hz_id(1), NOW, SETTINGS) is None
