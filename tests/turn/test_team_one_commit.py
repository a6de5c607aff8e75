"""One lease commit per run slot (issue 22): the push that carries a turn's `turn.finished` moves no lease ref,
its term reads as over to every reader, and the remote's hook takes the next term on top of it.

Five hourly team contracts on one hook-guarded remote (the drafting team of hz.tick.team_batch's tests), ticked
for two more hours after their created turns: each chain must hold exactly as many commits as the lease ran
slots. Before, every slot cost two (the acquisition, and the release in the finishing push).
"""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

import pytest

from hz.gitstate.hook import install_hook
from hz.gitstate.identity import whoami
from hz.gitstate.lease import acquire
from hz.gitstate.remote import TeamRemote
from hz.gitstate.settings import StateSettings
from hz.tick.daemon import tick
from tests.turn.test_late_runner import hz
from tests.turn.test_team import MONDAY, git
from tests.turn.test_team_onepush import SLOTS, _lease, _team

HOURS = 2
SETTINGS = StateSettings(lease_ttl_s=600, clock_skew_s=30, tick_interval_s=300, grace_intervals=2)


def chain(bare: Path, lease: str) -> list[str]:
    return git("--git-dir", str(bare), "log", "--format=%s", f"refs/hz/lease/{lease}").splitlines()


def ran(bare: Path, lease: str) -> int:
    """How many slots of `lease` ran: its `turn.finished` files on the remote's hz/state."""
    files = git("--git-dir", str(bare), "ls-tree", "-r", "--name-only", "hz/state", f"events/{lease}/").splitlines()
    return sum(1 for name in files if name.rsplit("/", 1)[-1].startswith("turn.finished-"))


def test_each_run_slot_is_one_lease_commit_and_the_next_term_needs_no_release(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bare, clone, environ, _ = _team(tmp_path, monkeypatch)  # each created turn ran: token 1
    install_hook(bare)  # from here on, every push passes the lease lint and the state lint
    for hour in range(1, HOURS + 1):
        report = tick(root=clone, environ=environ, now=MONDAY + timedelta(hours=hour))
        assert [(e["action"], e.get("disposition")) for e in report.woken] == [("started", "drafted")] * SLOTS
    for n in range(SLOTS):
        assert ran(bare, _lease(n)) == HOURS + 1
        tokens = range(HOURS + 1, 0, -1)
        assert chain(bare, _lease(n)) == [f"lease {_lease(n)} token {t} held" for t in tokens]  # 1 a slot

    # every reader agrees the finished terms are over: the listing says released
    listed = hz("lease", "list", "--json", cwd=clone, environ=environ)
    assert listed.returncode == 0, listed.stderr
    assert {(row["status"], row["state"], row["token"]) for row in json.loads(listed.stdout)} == {
        ("released", "held", HOURS + 1)
    }

    # another member takes a finished term's lease for the next slot: no release commit needed, the hook agrees
    omar_env = {**environ, "HZ_HOME": str(tmp_path / "omar-home"), "HZ_HANDLE": "@omar"}
    omar = TeamRemote(tmp_path / "omar", str(bare), omar_env)
    git("init", "-q", str(tmp_path / "omar"))
    later = MONDAY + timedelta(hours=HOURS, minutes=5)
    taken = acquire(omar, _lease(0), slot="2026-10-26T12:00:00Z", identity=whoami(omar_env),
                    role="delegate", now=later, settings=SETTINGS)  # fmt: skip
    assert (taken.status, taken.record and taken.record.token) == ("won", HOURS + 2)
    # a term that is live and unfinished is still refused: omar's own, to priya
    priya = TeamRemote(clone, str(bare), environ)
    refused = acquire(priya, _lease(0), slot="2026-10-26T13:00:00Z", identity=whoami(environ),
                      role="owner", now=later, settings=SETTINGS)  # fmt: skip
    assert (refused.status, refused.record and refused.record.holder) == ("held", taken.record and taken.record.holder)
    assert len(chain(bare, _lease(0))) == HOURS + 2
