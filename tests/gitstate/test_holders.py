"""Holders are (handle, machine): one member's two machines compete for a lease like two members.

The machines are two `$HZ_HOME` folders with the same `HZ_HANDLE`, running `hz lease` as processes
against one bare remote guarded by the hook.
"""

from __future__ import annotations

import os
import re
import stat
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from hz.gitstate.identity import NoIdentity, machine_id, whoami
from tests.gitstate.factory import hz_id, new_clone
from tests.gitstate.lease_plumbing import LEASE, REF, lease_commit, push, record

SLOT = "2026-10-30T15:00:00Z"
UNTIL = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"


@pytest.fixture
def guarded(bare: Path, hz: Any) -> Path:
    assert hz("state", "install-hook", str(bare)).exit_code == 0
    return bare


class Machine:
    """One of priya's machines: its own clone and its own $HZ_HOME."""

    def __init__(self, tmp_path: Path, name: str, remote: Path) -> None:
        self.clone = new_clone(tmp_path / name / "repo")
        self.home = tmp_path / name / "hz"
        self.remote = remote

    def hz(self, *args: str) -> subprocess.CompletedProcess[str]:
        env = {**os.environ, "HZ_HOME": str(self.home), "HZ_HANDLE": "@priya"}
        command = [sys.executable, "-m", "hz", "lease", *args, "--remote", str(self.remote)]
        return subprocess.run(command, cwd=self.clone, env=env, capture_output=True, text=True, check=False)

    @property
    def holder(self) -> str:
        return "@priya/" + machine_id(self.home)


def test_a_second_machine_finds_the_lease_held_and_cannot_renew_it(tmp_path: Path, guarded: Path) -> None:
    laptop, desktop = Machine(tmp_path, "laptop", guarded), Machine(tmp_path, "desktop", guarded)
    won = laptop.hz("acquire", LEASE, "--slot", SLOT)
    assert (won.returncode, won.stderr) == (0, "")
    assert re.fullmatch(rf"won {LEASE} token 1 until {UNTIL}\n", won.stdout)
    held = desktop.hz("acquire", LEASE, "--slot", SLOT)
    assert laptop.holder != desktop.holder
    until = won.stdout.split()[-1]
    assert (held.returncode, held.stdout) == (
        1,
        f"held by {laptop.holder} on another machine of yours (owner, token 1) until {until}\n",
    )
    renewed = desktop.hz("renew", LEASE)
    assert (renewed.returncode, renewed.stderr) == (
        1,
        f"error: this machine holds no lease {LEASE}\n  hint: acquire it first: hz lease acquire\n",
    )
    assert laptop.hz("renew", LEASE).returncode == 0


@pytest.mark.parametrize("round_", range(4))
def test_two_machines_racing_for_one_slot_one_wins(tmp_path: Path, guarded: Path, round_: int) -> None:
    machines = [Machine(tmp_path, name, guarded) for name in ("laptop", "desktop")]
    lease = hz_id(100 + round_)
    with ThreadPoolExecutor(2) as pool:
        results = list(pool.map(lambda m: m.hz("acquire", lease, "--slot", SLOT), machines))
    assert sorted(r.returncode for r in results) == [0, 1]
    winner, loser = (machines[0], machines[1]) if results[0].returncode == 0 else (machines[1], machines[0])
    lost = results[machines.index(loser)].stdout
    assert re.fullmatch(
        rf"held by {winner.holder} on another machine of yours \(owner, token 1\) until {UNTIL}\n", lost
    )


def test_the_machine_id_is_made_once_private_and_random(tmp_path: Path) -> None:
    home = tmp_path / "hz"
    first = whoami({"HZ_HANDLE": "@priya", "HZ_HOME": str(home)})
    assert re.fullmatch(r"@priya/m-[0-9a-f]{8}", first.holder)
    assert (first.handle, first.machine, first.in_actions) == ("@priya", first.holder[7:], False)
    path = home / "machine-id"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert path.read_text() == first.holder[7:] + "\n"
    assert whoami({"HZ_HANDLE": "priya", "HZ_HOME": str(home)}) == first
    assert machine_id(tmp_path / "other") != first.machine  # 32 random bits: a clash would be a 1 in 4e9 fluke
    assert first.role_for("@priya") == "owner"  # roles belong to the handle, on every machine
    assert first.role_for("@omar", ("priya",)) == "delegate"


def test_concurrent_first_uses_agree_on_one_id(tmp_path: Path) -> None:
    home = tmp_path / "hz"
    with ThreadPoolExecutor(8) as pool:
        ids = set(pool.map(lambda _: machine_id(home), range(32)))
    assert len(ids) == 1
    assert sorted(p.name for p in home.iterdir()) == ["machine-id"]


def test_a_damaged_machine_id_is_an_error_with_the_way_out(tmp_path: Path) -> None:
    home = tmp_path / "hz"
    home.mkdir()
    (home / "machine-id").write_text("priya-laptop.example.com\n")
    with pytest.raises(NoIdentity) as caught:
        whoami({"HZ_HANDLE": "@priya", "HZ_HOME": str(home)})
    assert caught.value.message == f"{home / 'machine-id'} is damaged: it holds no machine id"
    assert (
        caught.value.hint == "remove it; hz makes a new one (leases held under the old id expire as another machine's)"
    )


def test_an_actions_run_is_its_run_and_writes_no_machine_id(tmp_path: Path) -> None:
    home = tmp_path / "hz"
    me = whoami({"GITHUB_ACTIONS": "true", "GITHUB_RUN_ID": "42", "HZ_HANDLE": "@priya", "HZ_HOME": str(home)})
    assert (me.holder, me.handle, me.machine) == ("actions:42", None, None)
    assert not home.exists()


def test_a_holder_written_before_machines_stays_readable(tmp_path: Path, guarded: Path) -> None:
    """An old record says `@priya`: it lists, and once expired a machine takes it over with the next token."""
    from datetime import UTC, datetime, timedelta

    old = lease_commit(new_clone(tmp_path / "old"), record(datetime.now(UTC) - timedelta(hours=1), holder="@priya"))
    assert push(tmp_path / "old", guarded, f"{old}:{REF}").returncode == 0
    laptop = Machine(tmp_path, "laptop", guarded)
    listed = laptop.hz("list")
    assert (listed.returncode, listed.stdout.split()[:2]) == (0, [LEASE, "@priya"])
    won = laptop.hz("acquire", LEASE, "--slot", SLOT)
    assert (won.returncode, won.stdout.split()[:4]) == (0, ["won", LEASE, "token", "2"])


@pytest.mark.parametrize(
    "damage",
    ['{"tip": "x", "record": {"holder": "priya at example dot com"}}\n', "[" * 100_000 + "]" * 100_000],
    ids=["text", "nested past the recursion limit"],
)
def test_a_damaged_note_of_a_held_lease_means_not_held_here(tmp_path: Path, guarded: Path, damage: str) -> None:
    laptop = Machine(tmp_path, "laptop", guarded)
    assert laptop.hz("acquire", LEASE, "--slot", SLOT).returncode == 0
    (note,) = laptop.home.glob(f"gitstate/*/leases/{LEASE}.json")
    note.write_text(damage)
    renewed = laptop.hz("renew", LEASE)
    assert (renewed.returncode, renewed.stderr) == (
        1,
        f"error: this machine holds no lease {LEASE}\n  hint: acquire it first: hz lease acquire\n",
    )


def test_a_member_cannot_take_a_lease_as_an_actions_run(tmp_path: Path, bare: Path) -> None:
    result = Machine(tmp_path, "laptop", bare).hz("acquire", LEASE, "--slot", SLOT, "--role", "actions")
    assert (result.returncode, result.stdout) == (1, "")
    holder = "@priya/" + machine_id(tmp_path / "laptop" / "hz")
    assert (
        result.stderr
        == f"error: {holder} cannot hold a lease as actions\n  hint: the role actions is an Actions run's\n"
    )
