"""The archive: a real old `hz/state`, written by today's writer through the hook, migrated by one command.

Before and after `hz state compact` the same readers agree: the whole log lists the same events, the pending
drafts are the same, the lint of the whole branch finds nothing; the tip holds only live work and the
index of each period; the hook refuses what would bring an archived event back or fake an archive step.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pygit2
import pytest

from hz.gitstate import objects
from hz.gitstate.archive import index_of
from hz.gitstate.archive_lint import horizon
from hz.gitstate.events import ApprovalObserved, DraftPlaced, DraftRejected, Event, path_of
from hz.gitstate.flush_result import FlushResult
from hz.gitstate.identity import whoami
from hz.gitstate.layout import STATE_REF, moved_digest, moved_mark, render_marks
from hz.gitstate.lease import acquire
from hz.gitstate.lint import LintContext, check_commit, lint_range
from hz.gitstate.reader import window_commits
from hz.gitstate.remote import TeamRemote
from hz.gitstate.settings import StateSettings
from hz.gitstate.times import format_utc
from hz.gitstate.writer import StateWriter
from hz.review.approval_state import StateBook, decided, undecided
from tests.gitstate.factory import finished, git, hz_id, new_clone, sha, started, turn_id
from tests.gitstate.plumbing import remote_lines

AGENT = hz_id(7)
TODAY = datetime.now(UTC).replace(minute=0, second=0, microsecond=0)
OLD = TODAY - timedelta(days=60)  # a slot well behind the default 8 days
NEW = TODAY - timedelta(hours=3)
SETTINGS = StateSettings(lease_ttl_s=3600, clock_skew_s=0)


def utc(moment: datetime) -> str:
    return format_utc(moment)


def draft(n: int, token: int, at: datetime, slot: datetime) -> Event:
    asset = f"state:reports/r{n}.md"
    key = f"{AGENT}@v1@{utc(slot).replace(':00Z', 'Z')}@{asset}"
    data = DraftPlaced(turn=turn_id(1), key=key, asset=asset, hash=sha(str(n)))
    return Event.make("draft.placed", id=AGENT, key=key, ts=utc(at), lease=AGENT, token=token, data=data)


def approved(placed: Event, at: datetime) -> Event:
    data = ApprovalObserved(key=placed.key, asset=placed.data["asset"], approver="@rita", share_changed=0.5,
                            output_fp=sha("o"))  # fmt: skip
    return Event.make("approval.observed", id=AGENT, key=placed.key, ts=utc(at), lease=AGENT, token=placed.token,
                      data=data)  # fmt: skip


def rejected(placed: Event, at: datetime) -> Event:
    data = DraftRejected(key=placed.key, asset=placed.data["asset"], by="@rita")
    return Event.make("draft.rejected", id=AGENT, key=placed.key, ts=utc(at), lease=AGENT, token=placed.token,
                      data=data)  # fmt: skip


def turn(team: TeamRemote, slot: datetime, extra: Callable[[int], list[Event]]) -> list[Event]:
    """One turn of `slot` as the writer lands it: a lease of its own, then the turn's events in one push."""
    outcome = acquire(team, AGENT, slot=utc(slot), identity=whoami({"HZ_HANDLE": "ann"}), role="owner",
                      now=slot, settings=SETTINGS)  # fmt: skip
    assert outcome.won and outcome.record is not None
    token = outcome.record.token
    events = [started(AGENT, utc(slot), token), *extra(token), finished(AGENT, utc(slot), token)]
    writer = StateWriter(team, SETTINGS)
    writer.queue(*events)
    result = writer.flush(slot + timedelta(minutes=5))
    assert (len(result.landed), result.refused) == (len(events), {})
    return list(result.landed)


@dataclass
class Old:
    team: TeamRemote
    bare: Path
    clone: Path
    landed: list[Event]


@pytest.fixture
def old(tmp_path: Path, bare: Path, hz: Any) -> Old:
    """hz/state as today's code writes it, through the hook: an old turn with 8 drafts (5 approved, 2 rejected,
    1 still pending), and a turn of three hours ago with a draft."""
    assert hz("state", "install-hook", str(bare)).exit_code == 0
    clone = new_clone(tmp_path / "ann")
    env = {**os.environ, "HZ_HOME": str(tmp_path / "home"), "HOME": str(tmp_path)}
    team = TeamRemote(clone, str(bare), env)

    def old_drafts(token: int) -> list[Event]:
        drafts = [draft(n, token, OLD + timedelta(minutes=n), OLD) for n in range(8)]
        fates = [approved(d, OLD + timedelta(days=1)) for d in drafts[:5]]
        fates += [rejected(d, OLD + timedelta(days=1)) for d in drafts[5:7]]
        return drafts + fates

    landed = turn(team, OLD, old_drafts)
    landed += turn(team, NEW, lambda token: [draft(50, token, NEW + timedelta(minutes=1), NEW)])
    return Old(team, bare, clone, landed)


def log(hz: Any, clone: Path, bare: Path, *more: str) -> list[str]:
    os.chdir(clone)
    result = hz("state", "log", "--remote", str(bare), *more)
    assert result.exit_code == 0, result.err
    return [str(line) for line in result.out.splitlines()]


def events_on_tip(repo: pygit2.Repository, tip: str) -> set[str]:
    return set(StateBook(repo, tip).files)


def test_one_command_migrates_an_old_branch_and_every_reader_agrees(old: Old, hz: Any) -> None:
    repo = pygit2.Repository(str(old.bare))
    before_tip = str(repo.revparse_single("hz/state").id)
    before_log = log(hz, old.clone, old.bare)
    assert len(before_log) == len(old.landed) == 20
    pending_before = [p.key for p, _, _ in undecided(StateBook(repo, before_tip), lambda e: "out")[0]]

    os.chdir(old.clone)
    done = hz("state", "compact", "--remote", str(old.bare))
    period = utc(OLD)[:7]
    cut = (TODAY - timedelta(days=8)).strftime("%Y-%m-%d")
    assert (done.exit_code, done.err) == (0, "")
    # moved: 5 approved drafts and 1 rejected one with their fates; kept: the pending draft, the newest draft
    # with a fate (the contract's last fate, a rejection) and the turn that placed it, and the new turn
    assert done.out == f"archived 12 events closed more than 1 day ago ({period} 12); 8 stay live\n"

    tip = str(repo.revparse_single("hz/state").id)
    assert repo[tip].parents[0].id == repo[before_tip].id
    said = git("--git-dir", str(old.bare), "log", "-1", "--format=%s", "hz/state")
    assert said == "hz-state: archive 12 events\n"
    live = events_on_tip(repo, tip)
    assert len(live) == 8 and live < events_on_tip(repo, before_tip)
    moved = sorted((p, str(repo[before_tip].tree[p].id)) for p in events_on_tip(repo, before_tip) - live)
    (line,) = index_of(repo, tip)[period]
    assert (line.parent, line.count, line.digest) == (before_tip, 12, moved_digest(moved))
    assert horizon(repo, repo[tip].tree) == datetime.fromisoformat(cut).replace(tzinfo=UTC)

    # the readers: the whole log is the same (old events are read where they were added), drafts the same
    assert log(hz, old.clone, old.bare) == before_log
    assert [p.key for p, _, _ in undecided(StateBook(repo, tip), lambda e: "out")[0]] == pending_before
    assert len(pending_before) == 2  # the old one nobody decided, and the new one
    assert lint_range(repo, None, tip, LintContext(now=datetime.now(UTC), history=True)) == []
    recent = log(hz, old.clone, old.bare, "--since", "1d")
    assert recent == before_log[-3:] and len(window_commits(repo, tip, TODAY - timedelta(days=1))) == 2

    again = hz("state", "compact", "--remote", str(old.bare))
    assert again.out == "hz/state: nothing closed more than 1 day ago; 8 live events on the tip\n"


def test_the_hook_and_the_writer_never_bring_an_archived_event_back(old: Old, hz: Any) -> None:
    os.chdir(old.clone)
    assert hz("state", "compact", "--remote", str(old.bare)).exit_code == 0
    repo = pygit2.Repository(str(old.clone))
    # the hook on the new layout takes today's work as before
    assert len(turn(old.team, TODAY, lambda token: [draft(60, token, TODAY, TODAY)])) == 3
    tip = old.team.fetch_tip(STATE_REF)
    assert tip is not None
    gone = next(e for e in old.landed if e.kind == "draft.rejected" and e.key.endswith("r5.md"))  # r6 is the last fate
    assert objects.read_path(repo, tip, path_of(gone)) is None
    # a crash left it in an outbox: the writer sees it is behind the horizon and drops it without a push
    writer = StateWriter(old.team, SETTINGS)
    writer.queue(gone)
    result = writer.flush(TODAY + timedelta(minutes=9))
    assert (result.pushes, result.dropped, result.pending) == (0, [gone], 0)
    # pushed by hand, the hook refuses it
    tree = objects.write_tree(repo, repo[tip].tree.id, {path_of(gone): gone.line()})  # type: ignore[attr-defined]
    again = objects.make_commit(repo, tree, [tip], "hz-state: 1 event\n", TODAY)
    pushed = git_push(old.clone, old.bare, f"{again}:refs/heads/hz/state")
    cut = utc(TODAY - timedelta(days=8)).split("T")[0] + "T00:00:00Z"
    assert pushed == (1, [
        "hz: the hz/state lint refuses this push:",
        f"{path_of(gone)}:1:1  HZS027  {again[:12]}",
        f"  ts {gone.ts} is older than the archive horizon {cut}",
        "  hint: events older than the archive horizon were archived or are too late to record; see `hz state log`",
    ])  # fmt: skip


def git_push(clone: Path, bare: Path, *refspecs: str) -> tuple[int, list[str]]:
    import subprocess

    done = subprocess.run(["git", "-C", str(clone), "push", "--porcelain", str(bare), *refspecs],
                          capture_output=True, text=True, check=False)  # fmt: skip
    return done.returncode, remote_lines(done.stderr)


def step(repo: pygit2.Repository, parent: str, remove: list[str], files: dict[str, bytes], count: int) -> Any:
    tree = objects.prune_tree(repo, repo[parent].tree.id, remove, files)  # type: ignore[attr-defined]
    message = f"hz-state: archive {count} event{'s' if count != 1 else ''}\n"
    return repo[objects.make_commit(repo, tree, [parent], message, TODAY)]


def findings(repo: pygit2.Repository, commit: Any) -> list[tuple[str, str, str]]:
    return [(d.code, d.path, d.message) for d in check_commit(repo, commit, LintContext(now=TODAY))]


def test_an_archive_step_is_checked_against_what_it_moved(old: Old) -> None:
    repo = pygit2.Repository(str(old.bare))
    tip = str(repo.revparse_single("hz/state").id)
    by_kind: dict[str, list[Event]] = {}
    for event in old.landed:
        by_kind.setdefault(event.kind, []).append(event)
    fate = by_kind["draft.rejected"][0]
    placed = next(e for e in by_kind["draft.placed"] if e.key == fate.key)
    pair = sorted([path_of(placed), path_of(fate)])
    moved = [(p, str(repo[tip].tree[p].id)) for p in pair]
    period = placed.ts[:7]
    cut = utc(TODAY - timedelta(days=8)).split("T")[0] + "T00:00:00Z"

    def line(count: int = 2, digest: str = moved_digest(moved), at: str = cut, parent: str = tip) -> bytes:
        return f"{parent} {at} {count} {digest}\n".encode()

    good = step(repo, tip, pair, {f"archive/{period}": line()}, 2)
    assert findings(repo, good) == []
    lying = step(repo, tip, pair, {f"archive/{period}": line(count=3)}, 2)
    assert findings(repo, lying) == [
        ("HZS026", f"archive/{period}", f"the line does not match the 2 event(s) of {period} moved")
    ]
    unindexed = step(repo, tip, pair, {}, 2)
    why = f"events of {period} moved with no line in its index"
    assert findings(repo, unindexed) == [("HZS026", f"archive/{period}", why)]
    fated = {f.key for f in old.landed if f.kind in ("approval.observed", "draft.rejected")}
    pending = next(e for e in by_kind["draft.placed"] if e.key not in fated)
    alone = [(path_of(pending), str(repo[tip].tree[path_of(pending)].id))]
    kept = step(repo, tip, [path_of(pending)], {f"archive/{period}": line(1, moved_digest(alone))}, 1)
    why = "a pending draft (no fate moved with it) stays on the tip"
    assert findings(repo, kept) == [("HZS026", path_of(pending), why)]
    soon = utc(TODAY - timedelta(days=2)).split("T")[0] + "T00:00:00Z"
    early = step(repo, tip, pair, {f"archive/{period}": line(at=soon)}, 2)
    assert findings(repo, early) == [("HZS026", "<commit>", f"the horizon {soon} is less than 7 days old")]
    # an ordinary commit may not touch the index; an archive step may not add an event
    sneaky = repo[objects.make_commit(repo, objects.write_tree(repo, repo[tip].tree.id, {f"archive/{period}": line()}),  # type: ignore[attr-defined]
                                      [tip], "hz-state: 1 event\n", TODAY)]  # fmt: skip
    assert [f[0] for f in findings(repo, sneaky)] == ["HZS001"]


def test_a_recent_event_moved_off_the_tip_is_marked_and_never_lands_again(old: Old, hz: Any) -> None:
    """Closed work of three days ago moves (the tip keeps a day), leaving a mark: the writer takes the event as
    recorded, the hook refuses it back, and a member's reader knows its draft had a fate."""
    recent = TODAY - timedelta(days=3)

    def two_rejected(token: int) -> list[Event]:
        drafts = [draft(n, token, recent + timedelta(minutes=n), recent) for n in (70, 71)]
        return drafts + [rejected(d, recent + timedelta(minutes=5)) for d in drafts]

    landed = turn(old.team, recent, two_rejected)
    gone = next(e for e in landed if e.kind == "draft.rejected" and e.key.endswith("r70.md"))
    placed = next(e for e in landed if e.kind == "draft.placed" and e.key == gone.key)
    os.chdir(old.clone)
    done = hz("state", "compact", "--remote", str(old.bare))
    assert done.exit_code == 0, done.err
    # the old drafts as before, r6 (no longer the newest fate) and r70 with their rejections; r71 stays
    assert done.out.startswith("archived 16 events closed more than 1 day ago (")
    repo = pygit2.Repository(str(old.clone))
    tip = old.team.fetch_tip(STATE_REF)
    assert tip is not None and objects.read_path(repo, tip, path_of(gone)) is None
    day = objects.read_path(repo, tip, f"archive/{recent.strftime('%Y-%m-%d')}")
    assert day == render_marks([moved_mark(path_of(gone)), moved_mark(path_of(placed))])
    assert lint_range(repo, None, tip, LintContext(now=datetime.now(UTC), history=True)) == []

    # its term is over, so a flush drops it as fenced first; a writer still holding it takes it as recorded
    writer = StateWriter(old.team, SETTINGS)
    result = FlushResult()
    assert writer._not_archived(tip, [gone, landed[0]], result) == [landed[0]]
    assert (result.already, result.dropped) == ([gone], [])
    tree = objects.write_tree(repo, repo[tip].tree.id, {path_of(gone): gone.line()})  # type: ignore[attr-defined]
    again = objects.make_commit(repo, tree, [tip], "hz-state: 1 event\n", TODAY)
    pushed = git_push(old.clone, old.bare, f"{again}:refs/heads/hz/state")
    assert pushed[0] == 1 and pushed[1][1:3] == [
        f"{path_of(gone)}:1:1  HZS027  {again[:12]}",
        "  this event was recorded already and archived (its mark is in archive/)",
    ]

    book = StateBook(repo, tip)
    assert book.moved(path_of(placed)) and not book.moved(path_of(landed[0]))
    mine = {"key": placed.key.replace(AGENT, "hz-local", 1)}  # a member's own key of the same occasion
    assert decided(book, [mine]) == [mine]
