"""Many leases taken in one atomic push: all won at once, or the ones another member took since the look
are lost to them (held) and the rest go in one more push."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from hz.gitstate.lease import Claim, Plan, acquire, plan, read_lease
from hz.gitstate.lease_batch import push_plans
from hz.gitstate.remote import TeamRemote
from tests.gitstate.factory import git, hz_id
from tests.gitstate.test_lease import ANN, BOB, NOW, SETTINGS, SLOT, member


def _plans(team: TeamRemote, count: int) -> dict[str, Plan]:
    steps: dict[str, Plan] = {}
    for n in range(1, count + 1):
        step = plan(team, Claim(hz_id(n), SLOT, ANN.holder, "owner"), NOW, SETTINGS)
        assert isinstance(step, Plan)
        steps[hz_id(n)] = step
    return steps


def test_five_leases_are_taken_in_one_push_each_one_commit(tmp_path: Path, bare: Path) -> None:
    ann = member(tmp_path, "ann", str(bare))
    outcomes = push_plans(ann, _plans(ann, 5), NOW)
    assert {lease: o.status for lease, o in outcomes.items()} == {hz_id(n): "won" for n in range(1, 6)}
    for n in range(1, 6):
        assert git("--git-dir", str(bare), "rev-list", "--count", f"refs/hz/lease/{hz_id(n)}").strip() == "1"
        assert read_lease(ann, hz_id(n)).record == outcomes[hz_id(n)].record


def test_a_lease_taken_since_the_look_is_lost_and_the_rest_are_won(tmp_path: Path, bare: Path) -> None:
    ann, bob = member(tmp_path, "ann", str(bare)), member(tmp_path, "bob", str(bare))
    steps = _plans(ann, 3)  # ann looked: all three free
    taken = acquire(bob, hz_id(2), slot=SLOT, identity=BOB, role="owner", now=NOW, settings=SETTINGS)
    assert taken.won
    outcomes = push_plans(ann, steps, NOW + timedelta(seconds=1))
    assert {lease: o.status for lease, o in outcomes.items()} == {hz_id(1): "won", hz_id(2): "held", hz_id(3): "won"}
    held = outcomes[hz_id(2)].record
    assert held is not None and held.holder == "@bob/m-0000000b"
    assert read_lease(bob, hz_id(2)).record == taken.record  # bob's lease untouched: exactly one holder
    assert read_lease(bob, hz_id(3)).record == outcomes[hz_id(3)].record


def test_a_refusal_of_the_hook_settles_nothing_so_each_lease_goes_alone(tmp_path: Path, bare: Path) -> None:
    ann = member(tmp_path, "ann", str(bare))
    hook = bare / "hooks" / "pre-receive"
    hook.write_text("#!/bin/sh\necho 'HZS020 not yours' >&2\nexit 1\n")
    hook.chmod(0o755)
    assert push_plans(ann, _plans(ann, 2), NOW) == {}
    assert git("--git-dir", str(bare), "for-each-ref", "refs/hz/lease/").strip() == ""
