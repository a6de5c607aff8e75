"""A lease this machine holds, damaged on a remote without the hook: its events are fenced, the flush goes on."""

from __future__ import annotations

import subprocess
from datetime import UTC, datetime, timedelta
from pathlib import Path

from hz.gitstate.identity import whoami
from hz.gitstate.lease import acquire
from hz.gitstate.remote import TeamRemote
from hz.gitstate.settings import StateSettings
from hz.gitstate.writer import StateWriter
from tests.gitstate.factory import git, hz_id, new_clone, started

NOW = datetime(2026, 10, 30, 15, 0, tzinfo=UTC)
SLOT = "2026-10-30T15:00:00Z"
SETTINGS = StateSettings(lease_ttl_s=600, clock_skew_s=30)
MINE, OTHER = hz_id(1), hz_id(2)


def _member(tmp_path: Path, bare: Path) -> TeamRemote:
    env = {"HZ_HOME": str(tmp_path / "home-ann"), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    team = TeamRemote(new_clone(tmp_path / "ann"), str(bare), env)
    for agent in (MINE, OTHER):
        won = acquire(team, agent, slot=SLOT, identity=whoami({"HZ_HANDLE": "ann"}, machine="m-0000000a"),
                      role="owner", now=NOW, settings=SETTINGS)  # fmt: skip
        assert won.won
    return team


def _tag_over(bare: Path, ref: str) -> str:
    """Replace the lease ref by a tag object around its own commit, as a push to a hookless server can."""
    commit = git("--git-dir", str(bare), "rev-parse", ref).strip()
    text = f"object {commit}\ntype commit\ntag lease\ntagger Eve <eve> 0 +0000\n\ncall 555-0100\n"
    made = subprocess.run(
        ["git", "--git-dir", str(bare), "mktag"], input=text, capture_output=True, text=True, check=True
    )
    tag = made.stdout.strip()
    git("--git-dir", str(bare), "update-ref", ref, tag)
    return tag


def test_a_lease_damaged_after_acquisition_is_fenced_not_an_error(tmp_path: Path, bare: Path) -> None:
    team = _member(tmp_path, bare)
    _tag_over(bare, f"refs/hz/lease/{MINE}")
    writer = StateWriter(team, SETTINGS)
    damaged, fine = started(MINE, SLOT, 1), started(OTHER, SLOT, 1)
    writer.queue(damaged, fine)
    result = writer.flush(NOW + timedelta(minutes=1))
    assert (result.fenced, result.dropped, result.landed, result.pending) == ({MINE}, [damaged], [fine], 0)
    assert git("--git-dir", str(bare), "log", "--format=%s", "hz/state").splitlines() == ["hz-state: 1 event"]
    again = StateWriter(team, SETTINGS)  # the next tick: the damaged lease is held by nobody here
    again.queue(started(MINE, "2026-10-30T15:10:00Z", 1))
    later = again.flush(NOW + timedelta(minutes=2))
    assert (later.fenced, later.landed, later.pushes) == ({MINE}, [], 0)
