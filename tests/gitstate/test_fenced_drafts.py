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

from hz.gitstate.identity import whoami
from hz.gitstate.layout import STATE_REF, lease_ref
from hz.gitstate.lease import acquire
from hz.gitstate.remote import TeamRemote
from hz.gitstate.settings import StateSettings
from hz.gitstate.writer import Draft, StateWriter
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
