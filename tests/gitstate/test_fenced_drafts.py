"""A draft branch travels only with its own lease term (issue 10, finding 3), at the writer's level.

A holder whose lease was taken over used to have its receipts dropped as fenced while its draft branch,
retried on its own, still reached the remote. Now a draft ref is tied to the lease and token of the
turn that placed it: it goes only in a push that renews that lease under that token, and when the lease
is fenced it is withheld with the receipts and said in `FlushResult.withheld`.
"""

from __future__ import annotations

import os
from datetime import UTC, datetime, timedelta
from pathlib import Path

from hz.gitstate.flush_result import Draft
from hz.gitstate.identity import whoami
from hz.gitstate.layout import STATE_REF, lease_ref
from hz.gitstate.lease import acquire
from hz.gitstate.remote import TeamRemote
from hz.gitstate.settings import StateSettings
from hz.gitstate.writer import StateWriter
from tests.gitstate.factory import git, hz_id, new_clone, placed

AGENT = hz_id(7)
SLOT = "2026-10-30T15:00:00Z"
DUE = datetime(2026, 10, 30, 15, 0, tzinfo=UTC)
BRANCH = "refs/heads/hz/draft/pulse/2026-10-30T1500Z"
SETTINGS = StateSettings(lease_ttl_s=60, clock_skew_s=0, grace_intervals=0)


def member(tmp_path: Path, bare: Path, name: str) -> TeamRemote:
    return TeamRemote(new_clone(tmp_path / name), str(bare), {**os.environ, "HZ_HOME": str(tmp_path / f"home-{name}")})


def take(team: TeamRemote, name: str, role: str, now: datetime) -> int:
    outcome = acquire(team, AGENT, slot=SLOT, identity=whoami({"HZ_HANDLE": f"@{name}"}), role=role,  # type: ignore[arg-type]
                      now=now, settings=SETTINGS, due=DUE)  # fmt: skip
    assert outcome.won and outcome.record is not None
    return outcome.record.token


def draft_commit(team: TeamRemote, text: str) -> str:
    """A commit on the member's local draft branch, as the turn engine places one."""
    clone = team.root
    (clone / "pulse.md").write_text(text)
    git("add", "pulse.md", cwd=clone)
    git("-c", "user.name=hz", "-c", "user.email=hz@example.invalid", "commit", "-q", "-m", "draft", cwd=clone)
    git("update-ref", BRANCH, "HEAD", cwd=clone)
    return git("rev-parse", "HEAD", cwd=clone).strip()


def remote_refs(bare: Path) -> dict[str, str]:
    listed = git("ls-remote", str(bare)).splitlines()
    return {ref: commit for commit, ref in (line.split("\t") for line in listed)}


def test_a_flush_whose_lease_was_taken_over_carries_neither_receipts_nor_draft_refs(tmp_path: Path, bare: Path) -> None:
    ann = member(tmp_path, bare, "ann")
    assert take(ann, "ann", "owner", DUE) == 1
    commit = draft_commit(ann, "ann's pulse\n")
    writer = StateWriter(ann, SETTINGS)
    writer.queue(placed(AGENT, 1, 1))

    bob = member(tmp_path, bare, "bob")  # ann's minute is long over: the delegate takes the slot
    assert take(bob, "bob", "delegate", DUE + timedelta(minutes=10)) == 2
    before = remote_refs(bare)

    result = writer.flush(DUE + timedelta(seconds=30), renew=[AGENT], publish={BRANCH: Draft(commit, AGENT, 1)})
    assert (result.fenced, result.withheld) == ({AGENT}, {BRANCH: AGENT})
    assert (result.landed, result.published, result.unpublished) == ([], {}, {})
    assert [e.token for e in result.dropped] == [1]
    assert result.pushes == 1  # the renewal was refused; nothing went again on its own
    assert remote_refs(bare) == before  # no branch, no receipt, the lease still bob's
    assert BRANCH not in before and STATE_REF not in before
    assert len(writer.outbox) == 0

    again = writer.flush(DUE + timedelta(minutes=1), publish={BRANCH: Draft(commit, AGENT, 1)})
    assert (again.fenced, again.withheld, again.pushes) == ({AGENT}, {BRANCH: AGENT}, 0)  # known fenced: no push
    assert remote_refs(bare) == before


def test_a_draft_goes_only_in_the_push_that_renews_its_lease_under_its_token(tmp_path: Path, bare: Path) -> None:
    ann = member(tmp_path, bare, "ann")
    assert take(ann, "ann", "owner", DUE) == 1
    old = draft_commit(ann, "the first term's pulse\n")
    writer = StateWriter(ann, SETTINGS)

    landed = writer.flush(DUE + timedelta(seconds=30), publish={BRANCH: Draft(old, AGENT, 1)})
    assert (landed.published, landed.withheld, landed.pushes) == ({BRANCH: old}, {}, 1)
    chain = git("--git-dir", str(bare), "rev-list", lease_ref(AGENT)).split()
    assert len(chain) == 2  # taken, then renewed in the very push that placed the branch
    assert remote_refs(bare)[BRANCH] == old

    newer = draft_commit(ann, "a later pulse\n")  # tied to a token ann never held: withheld, lease untouched
    stray = writer.flush(DUE + timedelta(seconds=40), renew=[AGENT], publish={BRANCH: Draft(newer, AGENT, 5)})
    assert (stray.withheld, stray.published, stray.fenced) == ({BRANCH: AGENT}, {}, set())
    assert remote_refs(bare)[BRANCH] == old
    assert len(git("--git-dir", str(bare), "rev-list", lease_ref(AGENT)).split()) == 3  # its own term renewed


MOVE_ONCE = """#!/bin/sh
# Another member's push lands between this push's ref advertisement and its ref update: move hz/state
# to the commit waiting in refs/side, once. receive-pack then fails to lock hz/state, and with --atomic
# the remote reports every ref of the push as "(atomic transaction failed)".
unset GIT_QUARANTINE_PATH GIT_OBJECT_DIRECTORY GIT_ALTERNATE_OBJECT_DIRECTORIES
if git rev-parse -q --verify refs/side >/dev/null; then
  git update-ref refs/heads/hz/state refs/side && git update-ref -d refs/side
fi
exit 0
"""


def test_a_push_that_lost_a_race_on_the_server_keeps_its_draft_for_the_retry(tmp_path: Path, bare: Path) -> None:
    ann = member(tmp_path, bare, "ann")
    assert take(ann, "ann", "owner", DUE) == 1
    ann_writer = StateWriter(ann, SETTINGS)
    ann_writer.queue(placed(AGENT, 1, 1))
    assert ann_writer.flush(DUE + timedelta(seconds=5), renew=[AGENT]).landed
    before = git("rev-parse", STATE_REF, cwd=bare).strip()
    bob = member(tmp_path, bare, "bob")  # bob's receipts land on top of ann's; the test then holds them back
    other = hz_id(8)
    won = acquire(bob, other, slot=SLOT, identity=whoami({"HZ_HANDLE": "@bob"}), role="owner",
                  now=DUE, settings=SETTINGS, due=DUE)  # fmt: skip
    assert won.won
    bob_writer = StateWriter(bob, SETTINGS)
    bob_writer.queue(placed(other, 1, 1))
    assert bob_writer.flush(DUE + timedelta(seconds=6), renew=[other]).landed
    git("update-ref", "refs/side", STATE_REF, cwd=bare)
    git("update-ref", STATE_REF, before, cwd=bare)
    hook = bare / "hooks" / "pre-receive"
    hook.write_text(MOVE_ONCE)
    hook.chmod(0o755)

    ann_writer.queue(placed(AGENT, 2, 1))
    commit = draft_commit(ann, "ann's pulse\n")
    result = ann_writer.flush(DUE + timedelta(seconds=20), renew=[AGENT], publish={BRANCH: Draft(commit, AGENT, 1)})

    assert result.pushes == 2  # refused once by the server's lock, then rebuilt on the moved hz/state
    assert (result.unpublished, result.withheld, result.fenced) == ({}, {}, set())
    assert remote_refs(bare)[BRANCH] == commit
