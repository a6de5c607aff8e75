"""A drafting tick of many team slots: every lease taken in one push before any turn runs, the receipts and
drafts in one more; a lease another member took since the tick's fetch is theirs, the rest run here.

git processes are counted by a `git` on PATH that notes each call and runs the real one (size, not time)."""

from __future__ import annotations

import shutil
from datetime import timedelta
from pathlib import Path

import pytest

from hz.gitstate.identity import whoami
from hz.gitstate.lease import acquire
from hz.gitstate.remote import TeamRemote
from hz.gitstate.settings import StateSettings
from hz.heinzel.lifecycle import Origin, create
from hz.session.store import Store
from hz.tick.daemon import tick
from tests.turn.team_harness import bare_remote, push_main
from tests.turn.test_late_runner import CONTRACT_ID, HOURLY
from tests.turn.test_team import MONDAY, git, member

SLOTS = 5
HOUR = MONDAY + timedelta(hours=1)


def _contract(n: int) -> str:
    return HOURLY.replace(CONTRACT_ID, CONTRACT_ID[:-2] + f"{n:02d}").replace(
        "name: team-pulse", f"name: team-pulse-{n}"
    )


def _lease(n: int) -> str:
    return f"hz-{CONTRACT_ID[:-2]}{n:02d}"


def _omars(n: int) -> str:
    """An hourly team contract of omar's alone: priya's home has it, no role of hers runs it."""
    return (
        _contract(n)
        .replace(f"name: team-pulse-{n}", f"name: omar-pulse-{n}")
        .replace('owner: "@priya"', 'owner: "@omar"')
        .replace('maintainers: ["@omar"]', "maintainers: []")
    )


def _team(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, others: int = 0) -> tuple[Path, Path, dict[str, str], Path]:
    """A remote with SLOTS hourly team contracts owned by priya (and `others` of omar's alone, ordered
    among hers), her clone with all adopted and their created turns run; git calls from then on are noted
    in the returned log."""
    log = tmp_path / "git.log"
    wrapper = tmp_path / "bin"
    wrapper.mkdir()
    (wrapper / "git").write_text(f'#!/bin/sh\necho "$*" >> "{log}"\nexec {shutil.which("git")} "$@"\n')
    (wrapper / "git").chmod(0o755)
    monkeypatch.setenv("PATH", f"{wrapper}:{__import__('os').environ['PATH']}")
    bare = bare_remote(tmp_path)
    roster = '[team.members]\n"@priya" = ["hz-test@example.invalid"]\n"@omar" = ["omar@example.invalid"]\n'
    contracts = {f"workflows/team-pulse-{n}.prose.md": _contract(n) for n in range(SLOTS)}
    contracts |= {f"workflows/omar-pulse-{n}.prose.md": _omars(n) for n in range(SLOTS, SLOTS + others)}
    push_main(tmp_path, bare, {"hz.toml": f'[state]\nremote = "{bare}"\ntick_interval_s = 300\n{roster}', **contracts})
    adopted = MONDAY - timedelta(minutes=10)
    clone, environ = member(tmp_path, "priya", bare, contract=_contract(0), adopted=adopted)
    with Store.from_environ(environ) as store:
        for n in range(SLOTS, SLOTS + others):  # created before priya's others: the tick meets them first
            create(store, _omars(n), label=f"workflows/omar-pulse-{n}.prose.md", namespace="team",
                   handle="@priya", origin=Origin("adopted"), now=adopted, approve=True)  # fmt: skip
        for n in range(1, SLOTS):
            create(store, _contract(n), label=f"workflows/team-pulse-{n}.prose.md", namespace="team",
                   handle="@priya", origin=Origin("adopted"), now=adopted, approve=True)  # fmt: skip
    tick(root=clone, environ=environ, now=MONDAY)  # the created turns
    log.write_text("")
    return bare, clone, environ, log


def _pushes(log: Path) -> list[str]:
    return [line for line in log.read_text().splitlines() if " push " in f" {line} "]


def test_a_drafting_tick_of_five_slots_takes_every_lease_in_one_push(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bare, clone, environ, log = _team(tmp_path, monkeypatch)
    report = tick(root=clone, environ=environ, now=HOUR)
    assert [(e["action"], e.get("disposition")) for e in report.woken] == [("started", "drafted")] * SLOTS
    pushes = _pushes(log)
    assert len(pushes) == 2, pushes  # the acquisitions, then the receipts and drafts
    calls = [line for line in log.read_text().splitlines() if line.startswith("-")]  # not a message's lines
    assert len(calls) <= 10 * SLOTS, calls  # the goal: at most 10 git processes a turn
    assert pushes[0].count("refs/hz/lease/") == 2 * SLOTS  # each lease: its guard and its update
    for n in range(SLOTS):
        chain = git("--git-dir", str(bare), "log", "--format=%s", f"refs/hz/lease/{_lease(n)}").splitlines()
        assert chain == [f"lease {_lease(n)} token 2 held", f"lease {_lease(n)} token 1 held"]  # no releases


def test_contracts_not_ours_spend_none_of_the_batch(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With a budget of SLOTS wakes and omar's contracts met first, every one of priya's slots is still in
    the one acquisition push (the budget counted omar's, which start nothing, and left hers to a push each)."""
    _bare, clone, environ, log = _team(tmp_path, monkeypatch, others=SLOTS)
    config = tmp_path / "config"
    config.mkdir()
    (config / "config.toml").write_text(f'[user]\nhandle = "@priya"\n[heinzel]\nmax_wakes_per_tick = {SLOTS}\n')
    environ = {**environ, "HZ_CONFIG_HOME": str(config)}
    report = tick(root=clone, environ=environ, now=HOUR)
    started = [e["agent"] for e in report.woken if e["action"] == "started"]
    assert sorted(started) == [f"team-pulse-{n}" for n in range(SLOTS)], report.woken
    pushes = _pushes(log)
    assert len(pushes) == 2, pushes
    assert pushes[0].count("refs/hz/lease/") == 2 * SLOTS


def test_a_lease_taken_since_the_fetch_is_the_takers_and_the_other_slots_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bare, clone, environ, log = _team(tmp_path, monkeypatch)
    from hz.review import sync

    fetched = sync.fetch_view

    def fetch_then_omar_takes_one(remote: TeamRemote) -> object:
        view = fetched(remote)  # the tick saw lease 3 released; omar takes it before the tick pushes
        omar = TeamRemote(tmp_path / "omar", str(bare), {**environ, "HZ_HOME": str(tmp_path / "omar-home")})
        git("init", "-q", str(tmp_path / "omar"))
        settings = StateSettings(lease_ttl_s=600, clock_skew_s=30, tick_interval_s=300, grace_intervals=2)
        won = acquire(omar, _lease(3), slot="2026-10-26T10:00:00Z", identity=whoami({"HZ_HANDLE": "@omar"}),
                      role="owner", now=HOUR, settings=settings)  # fmt: skip
        assert won.won
        return view

    monkeypatch.setattr(sync, "fetch_view", fetch_then_omar_takes_one)
    report = tick(root=clone, environ=environ, now=HOUR)
    said = {e["agent"]: (e["action"], e.get("disposition") or e.get("reason")) for e in report.woken}
    assert said.pop("team-pulse-3")[0] == "skipped"
    assert set(said.values()) == {("started", "drafted")} and len(said) == SLOTS - 1
    pushes = _pushes(log)  # omar's; the tick's acquisitions, refused; once more without lease 3; the finish
    assert len(pushes) == 4, pushes
    assert pushes[1].count("refs/hz/lease/") == 2 * SLOTS and pushes[2].count("refs/hz/lease/") == 2 * (SLOTS - 1)
    assert _lease(3) not in pushes[2] + pushes[3]  # the lost lease took no push of its own
    chain = git("--git-dir", str(bare), "log", "--format=%s", f"refs/hz/lease/{_lease(3)}").splitlines()
    assert chain[0] == f"lease {_lease(3)} token 2 held"  # omar's hold, untouched


def test_a_lease_taken_for_a_turn_that_did_not_run_is_released_in_the_finishing_push(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import fcntl
    import os

    bare, clone, environ, log = _team(tmp_path, monkeypatch)
    with Store.from_environ(environ) as store:
        row = store.index.agent("team-pulse-2", "team")
        assert row is not None
        lock = store.agent_dir(str(row["id"])) / "lock"
    fd = os.open(lock, os.O_RDWR)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)  # a person's session holds team-pulse-2's spine through the tick
        report = tick(root=clone, environ=environ, now=HOUR)
    finally:
        os.close(fd)
    assert "team-pulse-2" in report.busy or any(e["agent"] == "team-pulse-2" for e in report.woken), report
    assert len(_pushes(log)) == 2
    chain = git("--git-dir", str(bare), "log", "--format=%s", f"refs/hz/lease/{_lease(2)}").splitlines()
    assert chain[:2] == [f"lease {_lease(2)} token 2 released", f"lease {_lease(2)} token 2 held"]
    again = tick(root=clone, environ=environ, now=HOUR + timedelta(minutes=5))  # free at once: it runs now
    assert [(e["agent"], e.get("disposition")) for e in again.woken if e["action"] == "started"] == [
        ("team-pulse-2", "drafted")
    ]
