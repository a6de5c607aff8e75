"""The writer: one commit per flush, atomic with the lease renewal, replays, outbox, hard fencing."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from pathlib import Path

from hz.gitstate.events import path_of
from hz.gitstate.identity import whoami
from hz.gitstate.layout import STATE_REF
from hz.gitstate.lease import acquire
from hz.gitstate.lint import lint_range
from hz.gitstate.reader import history
from hz.gitstate.remote import TeamRemote
from hz.gitstate.settings import StateSettings
from hz.gitstate.writer import StateWriter
from tests.gitstate.factory import finished, git, hz_id, new_clone, placed, started

NOW = datetime(2026, 10, 30, 15, 0, tzinfo=UTC)
SLOT = "2026-10-30T15:00:00Z"
SETTINGS = StateSettings(lease_ttl_s=600, clock_skew_s=30)


def member(tmp_path: Path, name: str, url: str) -> TeamRemote:
    env = {"HZ_HOME": str(tmp_path / f"home-{name}"), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    return TeamRemote(new_clone(tmp_path / name), url, env)


def holder(tmp_path: Path, name: str, url: str, agent: str, now: datetime = NOW) -> tuple[TeamRemote, int]:
    team = member(tmp_path, name, url)
    outcome = acquire(team, agent, slot=SLOT, identity=whoami({"HZ_HANDLE": name}), role="owner", now=now,
                      settings=SETTINGS)  # fmt: skip
    assert outcome.won and outcome.record is not None
    return team, outcome.record.token


def state_log(bare: Path) -> list[str]:
    return git("--git-dir", str(bare), "log", "--format=%s", "hz/state").splitlines()


def test_a_tick_is_one_commit_and_one_push_and_the_turns_end_ends_the_term(
    tmp_path: Path, remote_url: str, bare: Path
) -> None:
    team, token = holder(tmp_path, "ann", remote_url, hz_id(1))
    writer = StateWriter(team, SETTINGS)
    assert writer.queue(started(hz_id(1), SLOT, token))
    assert writer.queue(finished(hz_id(1), SLOT, token))
    assert not writer.queue(finished(hz_id(1), SLOT, token))  # the same identity is queued once
    result = writer.flush(NOW + timedelta(minutes=1))
    assert (len(result.landed), result.pushes, result.pending, result.fenced) == (2, 1, 0, set())
    assert {ref: r.flag for ref, r in result.refs.items()} == {
        "refs/heads/hz/state": "*",
        f"refs/hz/lease/{hz_id(1)}": "=",  # guarded where it was, not moved
    }
    assert state_log(bare) == ["hz-state: 2 events"]
    # the turn's end on hz/state ends the term: no release commit, and the lease reads free at once
    chain = git("--git-dir", str(bare), "log", "--format=%s", f"refs/hz/lease/{hz_id(1)}").splitlines()
    assert chain == [f"lease {hz_id(1)} token 1 held"]
    assert (result.released, writer.flush(NOW).pushes) == ({hz_id(1)}, 0)  # nothing happened: no push
    bob = member(tmp_path, "bob", remote_url)
    taken = acquire(bob, hz_id(1), slot="2026-10-30T16:00:00Z", identity=whoami({"HZ_HANDLE": "bob"}),
                    role="owner", now=NOW + timedelta(minutes=2), settings=SETTINGS)  # fmt: skip
    assert taken.won and taken.record is not None and taken.record.token == 2


def test_a_finish_pushed_within_the_margin_of_expiry_releases_by_a_commit(tmp_path: Path, bare: Path) -> None:
    """Past `expires - clock_skew_s` the guard alone is not enough (see hz.gitstate.writer_leases): the
    release is a commit, which the remote's compare-and-swap checks under its lock."""
    team, token = holder(tmp_path, "ann", str(bare), hz_id(1))
    writer = StateWriter(team, SETTINGS)
    writer.queue(started(hz_id(1), SLOT, token), finished(hz_id(1), SLOT, token))
    result = writer.flush(NOW + timedelta(minutes=1), at=NOW + timedelta(minutes=9, seconds=31))
    assert (len(result.landed), result.released) == (2, {hz_id(1)})
    chain = git("--git-dir", str(bare), "log", "--format=%s", f"refs/hz/lease/{hz_id(1)}").splitlines()
    assert chain == [f"lease {hz_id(1)} token 1 released", f"lease {hz_id(1)} token 1 held"]


def test_a_finish_whose_lease_was_taken_over_is_refused_by_its_guard(tmp_path: Path, bare: Path) -> None:
    """A late writer with an old token: its clock says the term is still its own, but bob took the lease
    over after it expired. The guard finds the lease moved: nothing of ann's lands, her events are fenced."""
    ann, ann_token = holder(tmp_path, "ann", str(bare), hz_id(1))
    writer = StateWriter(ann, SETTINGS)
    writer.queue(started(hz_id(1), SLOT, ann_token), finished(hz_id(1), SLOT, ann_token))
    holder(tmp_path, "bob", str(bare), hz_id(1), now=NOW + timedelta(minutes=11))
    lease_before = git("--git-dir", str(bare), "rev-parse", f"refs/hz/lease/{hz_id(1)}")
    result = writer.flush(NOW + timedelta(minutes=1))
    assert (result.fenced, len(result.dropped), result.landed, result.released) == ({hz_id(1)}, 2, [], set())
    assert result.refs[f"refs/hz/lease/{hz_id(1)}"].summary == "[rejected] (stale info)"
    assert git("--git-dir", str(bare), "for-each-ref", "refs/heads") == ""  # hz/state never came to be
    assert git("--git-dir", str(bare), "rev-parse", f"refs/hz/lease/{hz_id(1)}") == lease_before


def test_a_push_without_the_turns_end_renews_the_lease(tmp_path: Path, bare: Path) -> None:
    team, token = holder(tmp_path, "ann", str(bare), hz_id(1))
    writer = StateWriter(team, SETTINGS)
    writer.queue(started(hz_id(1), SLOT, token))
    assert writer.flush(NOW + timedelta(minutes=1)).released == set()
    record = git("--git-dir", str(bare), "show", f"refs/hz/lease/{hz_id(1)}:lease.json")
    assert '"expires":"2026-10-30T15:11:00Z"' in record and '"state":"held"' in record


def test_an_event_already_on_the_branch_is_not_written_twice(tmp_path: Path, bare: Path) -> None:
    team, token = holder(tmp_path, "ann", str(bare), hz_id(1))
    writer = StateWriter(team, SETTINGS)
    writer.queue(started(hz_id(1), SLOT, token))
    writer.flush(NOW)
    # a crash after the push and before the outbox was cleaned: the same event is queued again
    writer.queue(started(hz_id(1), SLOT, token))
    result = writer.flush(NOW)
    assert (len(result.already), result.landed, result.pushes) == (1, [], 0)
    # the same identity made again (another time stamp): the first one stays, ours is dropped, not fenced
    writer.queue(started(hz_id(1), SLOT, token, ts="2026-10-30T15:00:09Z"))
    result = writer.flush(NOW)
    assert (len(result.dropped), result.fenced, result.pushes, result.pending) == (1, set(), 0, 0)
    assert result.clashed == {}  # our own copy under our token: no second run
    assert state_log(bare) == ["hz-state: 1 event"]


def test_concurrent_writers_replay_onto_each_other(tmp_path: Path, bare: Path) -> None:
    writers = []
    for n in range(3):
        team, token = holder(tmp_path, f"m{n}", str(bare), hz_id(n))
        writers.append((StateWriter(team, StateSettings(push_attempts=50), sleep=lambda s: None), hz_id(n), token))

    def run(writer: StateWriter, agent: str, token: int) -> int:
        landed = 0
        for batch in range(4):
            for i in range(3):
                writer.queue(placed(agent, batch * 3 + i, token))
            landed += len(writer.flush(NOW).landed)
        return landed

    with ThreadPoolExecutor(3) as pool:
        counts = list(pool.map(lambda w: run(*w), writers))
    assert counts == [12, 12, 12]
    team = writers[0][0].team
    tip = team.current(STATE_REF)
    assert tip is not None
    assert lint_range(team.repo, None, tip) == []
    assert len({(e.event.kind, e.event.key) for e in history(team.repo, tip)}) == 36
    assert len(list(history(team.repo, tip))) == 36


def test_a_taken_over_holder_is_fenced_by_the_remote(tmp_path: Path, bare: Path) -> None:
    ann, ann_token = holder(tmp_path, "ann", str(bare), hz_id(1))
    writer = StateWriter(ann, SETTINGS)
    writer.queue(started(hz_id(1), SLOT, ann_token))
    # ann sleeps past expiry; bob takes over and writes
    later = NOW + timedelta(minutes=11)
    bob, bob_token = holder(tmp_path, "bob", str(bare), hz_id(1), now=later)
    bob_writer = StateWriter(bob, SETTINGS)
    bob_writer.queue(started(hz_id(1), SLOT, bob_token))
    assert bob_writer.flush(later).landed
    result = writer.flush(later)
    assert (result.fenced, len(result.dropped), result.landed, result.pending) == ({hz_id(1)}, 1, [], 0)
    tip = bob.current(STATE_REF)
    assert tip is not None
    assert [(e.event.token, e.void) for e in history(bob.repo, tip)] == [(2, False)]


def test_a_fenced_push_changes_nothing_on_the_remote(tmp_path: Path, bare: Path) -> None:
    ann, ann_token = holder(tmp_path, "ann", str(bare), hz_id(1))
    writer = StateWriter(ann, SETTINGS)
    writer.queue(placed(hz_id(1), 1, ann_token))
    later = NOW + timedelta(minutes=11)
    holder(tmp_path, "bob", str(bare), hz_id(1), now=later)
    lease_before = git("--git-dir", str(bare), "rev-parse", f"refs/hz/lease/{hz_id(1)}")
    result = writer.flush(later)
    assert (result.fenced, len(result.dropped), result.pushes) == ({hz_id(1)}, 1, 1)
    assert result.refs[f"refs/hz/lease/{hz_id(1)}"].summary == "[rejected] (stale info)"
    assert result.refs["refs/heads/hz/state"].summary == "[rejected] (atomic push failed)"
    assert git("--git-dir", str(bare), "for-each-ref", "refs/heads") == ""
    assert git("--git-dir", str(bare), "rev-parse", f"refs/hz/lease/{hz_id(1)}") == lease_before
    assert writer.flush(later).pushes == 0  # the dropped event is gone from the outbox


def test_a_lost_lease_memory_is_recovered_from_the_remote_by_token(tmp_path: Path, bare: Path) -> None:
    team, token = holder(tmp_path, "ann", str(bare), hz_id(1))
    for file in (team.local_dir / "leases").iterdir():
        file.unlink()  # $HZ_HOME lost its lease file, the outbox survived
    writer = StateWriter(team, SETTINGS)
    writer.queue(placed(hz_id(1), 1, token), placed(hz_id(1), 2, token + 1))
    result = writer.flush(NOW)
    assert ([e.key for e in result.landed], [e.key for e in result.dropped], result.fenced) == (
        [placed(hz_id(1), 1, token).key],
        [placed(hz_id(1), 2, token + 1).key],
        {hz_id(1)},
    )


def test_a_renewal_that_landed_before_a_crash_is_still_ours(tmp_path: Path, bare: Path) -> None:
    team, token = holder(tmp_path, "ann", str(bare), hz_id(1))
    memory = team.local_dir / "leases" / f"{hz_id(1)}.json"
    before = memory.read_bytes()
    writer = StateWriter(team, SETTINGS)
    writer.queue(placed(hz_id(1), 1, token))
    assert writer.flush(NOW).landed
    memory.write_bytes(before)  # the crash lost the write-down of the renewed tip
    writer.queue(placed(hz_id(1), 2, token))
    result = writer.flush(NOW + timedelta(minutes=1))
    assert ([e.key for e in result.landed], result.fenced, result.pushes) == (
        [placed(hz_id(1), 2, token).key],
        set(),
        2,
    )


MOVER = """#!/bin/sh
# a remote where hz/state always moves while a push is in flight: another writer wins every race
cat >/dev/null
tip=$(git rev-parse -q --verify refs/heads/hz/state) || exit 0
unset GIT_QUARANTINE_PATH GIT_OBJECT_DIRECTORY GIT_ALTERNATE_OBJECT_DIRECTORIES
export GIT_AUTHOR_NAME=hz GIT_AUTHOR_EMAIL=hz GIT_COMMITTER_NAME=hz GIT_COMMITTER_EMAIL=hz
new=$(git commit-tree "$tip^{tree}" -p "$tip" -m "hz-state: 0 events")
git update-ref refs/heads/hz/state "$new" "$tip"
"""


def test_after_the_retry_bound_events_wait_for_the_next_tick(tmp_path: Path, bare: Path) -> None:
    team, token = holder(tmp_path, "ann", str(bare), hz_id(1))
    writer = StateWriter(team, StateSettings(push_attempts=3), sleep=lambda s: None)
    writer.queue(placed(hz_id(1), 0, token))
    assert writer.flush(NOW).landed  # hz/state exists; from now on it moves under every push
    hook = bare / "hooks" / "pre-receive"
    hook.write_text(MOVER)
    hook.chmod(0o755)
    writer.queue(placed(hz_id(1), 1, token), placed(hz_id(1), 2, token))
    result = writer.flush(NOW)
    assert (result.landed, result.fenced, result.pushes, result.pending) == ([], set(), 3, 2)
    assert result.refs["refs/heads/hz/state"].flag == "!"
    hook.unlink()
    later = writer.flush(NOW)
    assert (len(later.landed), later.pending, later.pushes) == (2, 0, 1)


def test_remotes_by_name_and_file_url(tmp_path: Path, bare: Path) -> None:
    named = new_clone(tmp_path / "named")
    git("remote", "add", "team", str(bare), cwd=named)
    env = {"HZ_HOME": str(tmp_path / "home-n"), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    by_name = TeamRemote(named, "team", env)
    outcome = acquire(by_name, hz_id(1), slot=SLOT, identity=whoami({"HZ_HANDLE": "ann"}), role="owner", now=NOW,
                      settings=SETTINGS)  # fmt: skip
    assert outcome.won and outcome.record is not None
    by_url = member(tmp_path, "url", f"file://{bare}")
    held = acquire(by_url, hz_id(1), slot=SLOT, identity=whoami({"HZ_HANDLE": "bob"}), role="owner", now=NOW,
                   settings=SETTINGS)  # fmt: skip
    assert (held.status, held.record) == ("held", outcome.record)
    assert by_name.sync_prefix == "refs/hz/sync/team/"


def test_what_hz_writes_passes_git_fsck(tmp_path: Path, bare: Path) -> None:
    team, token = holder(tmp_path, "ann", str(bare), hz_id(1))
    writer = StateWriter(team, SETTINGS)
    writer.queue(started(hz_id(1), SLOT, token), placed(hz_id(1), 1, token))
    writer.flush(NOW)
    writer.queue(finished(hz_id(1), SLOT, token))
    writer.flush(NOW)
    git("--git-dir", str(bare), "fsck", "--strict", "--no-progress")
    roots = git("--git-dir", str(bare), "rev-list", "--max-parents=0", "hz/state").split()
    assert len(roots) == 1  # an orphan branch: one root, no history shared with anything else
    authors = set(git("--git-dir", str(bare), "log", "--format=%an <%ae>", "hz/state", "--all").splitlines())
    assert authors == {"hz <hz>"}
    files = git("--git-dir", str(bare), "ls-tree", "-r", "--name-only", "hz/state").split()
    assert files == sorted(path_of(e) for e in (started(hz_id(1), SLOT, 1), finished(hz_id(1), SLOT, 1),
                                                 placed(hz_id(1), 1, 1)))  # fmt: skip


def test_claims_ride_in_the_ticks_one_push(tmp_path: Path, bare: Path) -> None:
    from hz.gitstate.lease import Claim

    ann, token = holder(tmp_path, "ann", str(bare), hz_id(1))
    holder(tmp_path, "bob", str(bare), hz_id(3))  # bob holds hz_id(3)
    writer = StateWriter(ann, SETTINGS)
    writer.queue(placed(hz_id(1), 1, token))
    me = whoami({"HZ_HANDLE": "ann"}).holder  # the holder `holder()` acquired as
    claims = [
        Claim(hz_id(1), "2026-10-30T16:00:00Z", me, "owner"),  # the next slot of a lease with events
        Claim(hz_id(2), SLOT, me, "owner"),  # free
        Claim(hz_id(3), SLOT, me, "owner"),  # held by bob
        Claim(hz_id(4), SLOT, me, "delegate", due=NOW),  # a delegate before the grace period
    ]
    result = writer.flush(NOW, claims=claims)
    assert (result.pushes, len(result.landed), result.fenced) == (1, 1, set())
    assert {lid: (r.token, r.slot) for lid, r in result.won.items()} == {
        hz_id(1): (2, "2026-10-30T16:00:00Z"),
        hz_id(2): (1, SLOT),
    }
    assert {lid: o.status for lid, o in result.lost.items()} == {hz_id(3): "held", hz_id(4): "early"}
    assert result.lost[hz_id(3)].record is not None and result.lost[hz_id(3)].record.holder.startswith("@bob/m-")
    assert set(result.refs) == {"refs/heads/hz/state", f"refs/hz/lease/{hz_id(1)}", f"refs/hz/lease/{hz_id(2)}"}
    assert writer.flush(NOW, claims=[Claim(hz_id(3), SLOT, me, "owner")]).pushes == 0  # held: no push


def test_two_writers_claiming_one_lease_in_their_pushes(tmp_path: Path, bare: Path) -> None:
    from hz.gitstate.lease import Claim

    writers = []
    for n, name in ((1, "ann"), (2, "bob")):
        team, token = holder(tmp_path, name, str(bare), hz_id(n))
        writer = StateWriter(team, StateSettings(push_attempts=20), sleep=lambda s: None)
        writer.queue(placed(hz_id(n), 1, token))
        writers.append((writer, Claim(hz_id(9), SLOT, f"@{name}", "owner")))
    with ThreadPoolExecutor(2) as pool:
        results = list(pool.map(lambda wc: wc[0].flush(NOW, claims=[wc[1]]), writers))
    assert sorted(len(r.won) for r in results) == [0, 1]
    assert sorted(len(r.lost) for r in results) == [0, 1]
    assert [len(r.landed) for r in results] == [1, 1]
    winner = next(r.won[hz_id(9)] for r in results if r.won)
    loser = next(r.lost[hz_id(9)] for r in results if r.lost)
    assert loser.record is not None and (loser.status, loser.record.holder) == ("held", winner.holder)


def git_commands(trace: Path, verb: str) -> int:
    """How many `git <verb>` processes hz ran, from GIT_TRACE (the server side of a path remote aside)."""
    lines = trace.read_text().splitlines() if trace.exists() else []
    return sum(f"trace: built-in: git {verb} " in line for line in lines)


def test_a_writer_builds_on_its_last_push_without_a_fetch_and_looks_when_someone_else_pushed(
    tmp_path: Path, remote_url: str, bare: Path
) -> None:
    ann, token = holder(tmp_path, "ann", remote_url, hz_id(1))
    bob, bob_token = holder(tmp_path, "bob", remote_url, hz_id(2))
    trace = tmp_path / "trace-ann"
    ann = TeamRemote(ann.root, remote_url, {**ann.git.env, "GIT_TRACE": str(trace)})
    pauses: list[float] = []
    writer = StateWriter(ann, SETTINGS, sleep=pauses.append)
    writer.queue(started(hz_id(1), SLOT, token))
    assert writer.flush(NOW).pushes == 1
    assert (git_commands(trace, "fetch"), git_commands(trace, "push")) == (1, 1)  # nothing known yet: one look
    writer.queue(placed(hz_id(1), 1, token))
    assert writer.flush(NOW).pushes == 1
    assert (git_commands(trace, "fetch"), git_commands(trace, "push")) == (1, 2)  # built on its own push
    other = StateWriter(bob, SETTINGS)
    other.queue(started(hz_id(2), SLOT, bob_token))
    assert len(other.flush(NOW).landed) == 1
    writer.queue(finished(hz_id(1), SLOT, token))
    result = writer.flush(NOW)
    # the guess was old: git refused it before sending anything, then one look and the push, no pause
    assert (len(result.landed), result.pushes, pauses) == (1, 2, [])
    assert (git_commands(trace, "fetch"), git_commands(trace, "push")) == (2, 4)
    assert state_log(bare) == ["hz-state: 1 event"] * 4
    tip = ann.current(STATE_REF)
    assert tip is not None and lint_range(ann.repo, None, tip) == []
