"""The marks of `archive/<yyyy-mm-dd>`, attacked: by a member with push rights who writes archive steps by hand,
and by a team in ordinary trouble (clocks apart, a member offline, two members compacting at once).

The first half builds steps with plumbing on a branch of its own (as tests/gitstate/test_archive_plan.py); the
second pushes through a real bare remote with the hook (as tests/gitstate/test_archive.py).
"""

from __future__ import annotations

import os
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pygit2
import pytest
from hypothesis import given
from hypothesis import strategies as st

from hz.gitstate import archive, objects
from hz.gitstate.archive import build, plan
from hz.gitstate.archive_lint import moved_marks
from hz.gitstate.events import DraftPlaced, DraftRejected, Event, path_of
from hz.gitstate.identity import whoami
from hz.gitstate.layout import STATE_REF, moved_digest, moved_mark, parse_marks, render_marks
from hz.gitstate.lease import acquire
from hz.gitstate.lint import LintContext, check_commit, lint_range
from hz.gitstate.times import format_utc
from hz.gitstate.writer import StateWriter
from tests.gitstate.factory import finished, git, hz_id, new_clone, started
from tests.gitstate.plumbing import append_unguarded
from tests.gitstate.test_archive import AGENT as AGENT_OLD
from tests.gitstate.test_archive import SETTINGS, TODAY, Old, draft, git_push, log, rejected
from tests.gitstate.test_archive import old as old
from tests.gitstate.test_archive import turn as landed_turn
from tests.gitstate.test_archive_plan import drafted, turn

NOW = datetime(2026, 11, 30, 12, tzinfo=UTC)
AGENT = hz_id(2)
DAYS_AGO = NOW - timedelta(days=3)
HORIZON = "2026-11-22T00:00:00Z"
DAY = f"archive/{DAYS_AGO:%Y-%m-%d}"


def branch(tmp_path: Path, groups: list[list[Event]], made: datetime = NOW - timedelta(minutes=30)) -> tuple[Any, str]:
    repo = pygit2.init_repository(str(tmp_path / "state.git"), bare=True)
    files = {path_of(e): e.line() for group in groups for e in group}
    tree = objects.write_tree(repo, None, files)
    return repo, objects.make_commit(repo, tree, [], f"hz-state: {len(files)} events\n", made)


def forged(
    repo: Any, tip: str, remove: list[Event], files: dict[str, bytes | None], *, count: int | None = None,
    made: datetime = NOW, at: str = HORIZON,
) -> str:  # fmt: skip
    """An archive step written by hand: `remove` moved with a true index line, `files` written (None: deleted)."""
    moved = sorted((path_of(e), str(repo[tip].tree[path_of(e)].id)) for e in remove)
    index: dict[str, bytes | None] = {}
    if moved:
        old = objects.read_path(repo, tip, "archive/2026-11") or b""
        index = {"archive/2026-11": old + f"{tip} {at} {len(moved)} {moved_digest(moved)}\n".encode()}
    wanted = {**index, **files}
    gone = [path for path, _ in moved] + [path for path, data in wanted.items() if data is None]
    written = {path: data for path, data in wanted.items() if data is not None}
    tree = objects.prune_tree(repo, repo[tip].tree.id, gone, written)
    said = len(moved) if count is None else count
    return objects.make_commit(repo, tree, [tip], f"hz-state: archive {said} event{'s' if said != 1 else ''}\n", made)


def says(repo: Any, commit: str, now: datetime = NOW) -> list[tuple[str, str]]:
    return [(d.code, d.message) for d in check_commit(repo, repo[commit], LintContext(now=now))]


def marks_of(*events: Event) -> bytes:
    return render_marks(moved_mark(path_of(e)) for e in events)


@pytest.fixture
def day_old(tmp_path: Path) -> tuple[Any, str, dict[str, list[Event]]]:
    """A branch with closed work of three days ago (two rejected drafts, a slot), an approved draft, a pending
    one and today's slot."""
    groups = {
        "rejected": drafted(AGENT, DAYS_AGO, 1, "rejected"),
        "rejected too": drafted(AGENT, DAYS_AGO + timedelta(minutes=5), 2, "rejected"),
        "last rejected": drafted(AGENT, DAYS_AGO + timedelta(hours=2), 3, "rejected"),
        "approved": drafted(AGENT, DAYS_AGO, 4, "approved"),
        "pending": drafted(AGENT, DAYS_AGO, 5, "none"),
        "slot": turn(AGENT, f"{AGENT}@{format_utc(DAYS_AGO)}", DAYS_AGO, 6),
        "today": turn(AGENT, f"{AGENT}@{format_utc(NOW - timedelta(hours=2))}", NOW - timedelta(hours=2), 7),
    }
    repo, tip = branch(tmp_path, list(groups.values()))
    return repo, tip, groups


def test_a_day_file_gains_exactly_the_marks_of_what_its_step_moved(day_old: Any) -> None:
    repo, tip, groups = day_old
    moved = groups["rejected"]
    good = forged(repo, tip, moved, {DAY: marks_of(*moved)})
    assert says(repo, good) == []
    wrong = ("HZS026", f"the day file does not gain exactly the marks of {DAY[8:]}'s moved events")
    other = groups["rejected too"]
    # a mark of an event it did not move (a future block on that event), or a mark and nothing moved
    assert says(repo, forged(repo, tip, moved, {DAY: marks_of(*moved, other[0])})) == [wrong]
    counted = says(repo, forged(repo, tip, moved, {DAY: marks_of(*moved, other[0])}, count=3))  # and counts it
    assert counted == [("HZS026", "the message says 3 events, the step moves 2")]  # refused at its count
    lone = forged(repo, tip, [], {DAY: marks_of(*other)}, count=1)
    assert says(repo, lone) == [("HZS026", "the message says 1 events, the step moves 0")]
    # the marks in another day's file (the right one left alone, or both)
    elsewhere = f"archive/{DAYS_AGO - timedelta(days=1):%Y-%m-%d}"
    both = says(repo, forged(repo, tip, moved, {elsewhere: marks_of(*moved)}))
    assert sorted(both) == sorted([wrong, (wrong[0], wrong[1].replace(DAY[8:], elsewhere[8:]))])
    # junk, unsorted, duplicated, with no final newline, upper-case hex, a longer mark
    marks = sorted(moved_mark(path_of(e)) for e in moved)
    for data in (
        marks_of(*moved) + b"junk\n",
        f"{marks[1]}\n{marks[0]}\n".encode(),
        f"{marks[0]}\n{marks[0]}\n{marks[1]}\n".encode(),
        marks_of(*moved)[:-1],
        marks_of(*moved).upper(),
        f"{marks[0]}0\n{marks[1]}\n".encode(),
    ):
        assert says(repo, forged(repo, tip, moved, {DAY: data})) == [wrong], data


def test_a_day_file_goes_only_with_an_archive_step_that_moved_the_horizon_past_it(day_old: Any) -> None:
    repo, tip, groups = day_old
    moved = groups["rejected"]
    first = forged(repo, tip, moved, {DAY: marks_of(*moved)})
    gone = ("HZS026", f"a day file is deleted only once the horizon passed it ({HORIZON[:10]})")
    # the next step moves one more event and deletes the day file the horizon has not passed
    more = groups["rejected too"]
    assert says(repo, forged(repo, first, more, {DAY: None})) == [gone]
    # a step of zero events that only prunes: said 0 it is no archive step, said 1 it lies
    assert "HZS003" in [c for c, _ in says(repo, forged(repo, first, [], {DAY: None}, count=0))]
    assert says(repo, forged(repo, first, [], {DAY: None}, count=1)) == [
        ("HZS026", "the message says 1 events, the step moves 0")
    ]
    # an ordinary commit deletes it, rewrites it, or adds another day file
    plain = objects.prune_tree(repo, repo[first].tree.id, [DAY], {})
    commit = objects.make_commit(repo, plain, [first], "hz-state: 1 event\n", NOW)
    assert [c for c, _ in says(repo, commit)] == ["HZS003"]
    for name in (DAY, f"archive/{NOW:%Y-%m-%d}"):
        tree = objects.write_tree(repo, repo[first].tree.id, {name: marks_of(*more)})
        commit = objects.make_commit(repo, tree, [first], "hz-state: 1 event\n", NOW)
        assert says(repo, commit), name
    # eight days later the horizon passes it: then (and only then) a step deletes it
    later = NOW + timedelta(days=8)
    step = plan(repo, first, later)
    assert step.dropped == [DAY[8:]]
    assert says(repo, build(repo, step, later), later) == []


def test_a_huge_day_file_is_refused_unread(day_old: Any) -> None:
    repo, tip, groups = day_old
    moved = groups["rejected"]
    huge = b"".join(f"{n:016x}\n".encode() for n in range(2_000_001))  # one more than a day file may hold
    assert says(repo, forged(repo, tip, moved, {DAY: huge})) == [
        ("HZS026", f"the day file does not gain exactly the marks of {DAY[8:]}'s moved events")
    ]


def test_the_cut_is_a_day_by_the_hooks_clock_with_the_step_made_by_a_clock_ahead(day_old: Any) -> None:
    """hz's own step never fails the hook's one-day rule: not for an event exactly a day (to the second)
    older than a step made half a second later, nor with the member's clock a few minutes ahead of the
    server's. A step that lies with its committer time is judged by the earlier of it and the server's clock."""
    repo, tip, _ = day_old
    now = NOW + timedelta(milliseconds=500)
    edge = turn(AGENT, f"{AGENT}@{format_utc(NOW - timedelta(days=1))}", NOW - timedelta(days=1), 8)
    soon = NOW - timedelta(days=1) + timedelta(minutes=2)
    ahead = turn(AGENT, f"{AGENT}@{format_utc(soon)}", soon, 9)
    newest = turn(AGENT, f"{AGENT}@{format_utc(NOW - timedelta(hours=1))}", NOW - timedelta(hours=1), 10)
    tree = objects.write_tree(repo, repo[tip].tree.id, {path_of(e): e.line() for e in edge + ahead + newest})
    tip = objects.make_commit(repo, tree, [tip], "hz-state: 6 events\n", NOW - timedelta(minutes=10))
    assert says(repo, build(repo, plan(repo, tip, now), now), now) == []
    # the member's clock is 5 minutes ahead of the hook's
    assert says(repo, build(repo, plan(repo, tip, now + timedelta(minutes=5)), now + timedelta(minutes=5)), now) == []
    # forged: the slot of a day less a minute ago, its committer time a day in the future or now
    young = turn(AGENT, f"{AGENT}@{format_utc(NOW - timedelta(hours=23))}", NOW - timedelta(hours=23), 11)
    tree = objects.write_tree(repo, repo[tip].tree.id, {path_of(e): e.line() for e in young})
    tip = objects.make_commit(repo, tree, [tip], "hz-state: 2 events\n", NOW - timedelta(minutes=5))
    day = {f"archive/{young[0].ts[:10]}": marks_of(*young)}
    early = ("HZS026", f"ts {young[0].ts} is less than 1 day older than the step")
    for made in (NOW + timedelta(days=1), NOW, NOW - timedelta(days=3)):
        assert says(repo, forged(repo, tip, young, day, made=made)).count(early) == 2, made


def test_an_approval_or_a_pending_draft_stays_whatever_a_step_pretends(day_old: Any) -> None:
    repo, tip, groups = day_old
    approved = groups["approved"]
    assert says(repo, forged(repo, tip, approved, {DAY: marks_of(approved[0])})) == [
        ("HZS026", "a approval.observed stays on the tip until the horizon passes it")
    ]
    # a pending draft moved with another draft's fate, or alone with a mark
    pending, fate = groups["pending"][0], groups["rejected too"][1]
    assert says(repo, forged(repo, tip, [pending, fate], {DAY: marks_of(pending, fate)})) == [
        ("HZS026", "a pending draft (no fate moved with it) stays on the tip"),
        ("HZS026", "a fate moves with its draft.placed, which stays on the tip"),
    ]
    # the draft moved without its approval, which is left on the tip (its fate without its draft)
    placed = approved[0]
    assert says(repo, forged(repo, tip, [placed], {DAY: marks_of(placed)})) == [
        ("HZS026", "a pending draft (no fate moved with it) stays on the tip")
    ]


def test_a_moved_event_never_comes_back_with_the_same_or_other_bytes(day_old: Any) -> None:
    repo, tip, groups = day_old
    moved = groups["rejected"]
    step = forged(repo, tip, moved, {DAY: marks_of(*moved)})
    fate = moved[1]
    data = DraftRejected(**{**fate.data, "by": "@bob"})
    other = Event.make(fate.kind, id=fate.id, key=fate.key, ts=format_utc(NOW - timedelta(hours=1)),
                       lease=fate.lease, token=fate.token, data=data)  # fmt: skip
    assert path_of(other) == path_of(fate) and other.line() != fate.line()
    for event in (fate, other):
        tree = objects.write_tree(repo, repo[step].tree.id, {path_of(event): event.line()})
        again = objects.make_commit(repo, tree, [step], "hz-state: 1 event\n", NOW)
        assert says(repo, again) == [
            ("HZS027", "this event was recorded already and archived (its mark is in archive/)")
        ]


# ---- through a real remote with the hook ----


def own_turn(team: Any, slot: datetime, n: int) -> tuple[Any, list[Event]]:
    """A turn of `slot` (turn id n, so it is no turn a pinned draft names) with its lease: the writer and
    its started and finished events, not yet pushed."""
    outcome = acquire(team, AGENT_OLD, slot=format_utc(slot), identity=whoami({"HZ_HANDLE": "ann"}), role="owner",
                      now=slot, settings=SETTINGS)  # fmt: skip
    assert outcome.won and outcome.record is not None
    token = outcome.record.token
    slot_s = format_utc(slot)
    return StateWriter(team, SETTINGS), [
        started(AGENT_OLD, slot_s, token, turn=n),
        finished(AGENT_OLD, slot_s, token, turn=n),
    ]


def compact(hz: Any, old: Old) -> list[str]:
    os.chdir(old.clone)
    done = hz("state", "compact", "--remote", str(old.bare))
    assert (done.exit_code, done.err) == (0, ""), done.err
    return [str(line) for line in done.out.splitlines()]


def whole_lint(old: Old) -> list[Any]:
    repo = pygit2.Repository(str(old.bare))
    tip = str(repo.revparse_single("hz/state").id)
    return lint_range(repo, None, tip, LintContext(now=datetime.now(UTC), history=True))


def test_an_outbox_three_days_offline_replays_what_moved_and_lands_what_never_did(old: Old, hz: Any) -> None:
    """A member's turn of three days ago: its turn.started landed (the reply was lost, so it is still queued),
    its turn.finished never left. Meanwhile the slot's turn.started moved off the tip with a mark. Her flush
    pushes only the turn.finished; the log holds each event once."""
    slot = TODAY - timedelta(days=3)
    writer, (start, finish) = own_turn(old.team, slot, 3)
    writer.queue(start)
    first = writer.flush(slot + timedelta(minutes=1))
    assert first.landed == [start]
    before = log(hz, old.clone, old.bare)
    compact(hz, old)
    repo = pygit2.Repository(str(old.clone))
    tip = old.team.fetch_tip(STATE_REF)
    assert tip is not None and objects.read_path(repo, tip, path_of(start)) is None
    assert objects.read_path(repo, tip, f"archive/{slot:%Y-%m-%d}") is not None

    writer.queue(start, finish)  # the lost reply: both queued again
    result = writer.flush(TODAY)
    assert (result.already, result.landed, result.dropped, result.refused) == ([start], [finish], [], {})
    after = log(hz, old.clone, old.bare)
    assert len(after) == len(before) + 1 and sum(path_of(start)[-20:] in line for line in after) <= 1
    assert whole_lint(old) == []


def test_two_members_compacting_at_once_one_wins_the_other_plans_again(
    old: Old, hz: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from hz.gitstate import archive as archive_module

    bob = new_clone(tmp_path / "bob")
    real = archive_module.plans
    calls: list[int] = []

    def racing(*args: Any, **kwargs: Any) -> list[Any]:
        steps = real(*args, **kwargs)  # planned on the tip bob fetched
        if not calls:
            calls.append(1)
            time.sleep(1.1)  # his step is made a second later: another commit than hers
            os.chdir(bob)
            assert hz("state", "compact", "--remote", str(old.bare)).exit_code == 0  # bob's lands first
            os.chdir(old.clone)
        return steps

    monkeypatch.setattr(archive_module, "plans", racing)
    os.chdir(old.clone)
    done = hz("state", "compact", "--remote", str(old.bare))
    # her step lost the race (compare-and-swap); planned again on his tip, nothing was left
    assert (done.exit_code, done.out) == (0, "hz/state: nothing closed more than 1 day ago; 8 live events on the tip\n")
    repo = pygit2.Repository(str(old.bare))
    said = git("--git-dir", str(old.bare), "log", "--format=%s", "hz/state").splitlines()
    assert [s for s in said if s.startswith("hz-state: archive")] == ["hz-state: archive 12 events"]
    assert whole_lint(old) == []
    assert old.team.fetch_tip(STATE_REF) == str(repo.revparse_single("hz/state").id)  # hers follows his tip


def test_a_migration_in_small_steps_lints_clean_and_logs_every_event_once(
    old: Old, hz: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from functools import partial

    recent = TODAY - timedelta(days=3)

    def two_rejected(token: int) -> list[Event]:
        drafts = [draft(n, token, recent + timedelta(minutes=n), recent) for n in (70, 71, 72)]
        return drafts + [rejected(d, recent + timedelta(minutes=5)) for d in drafts]

    landed_turn(old.team, recent, two_rejected)
    before = log(hz, old.clone, old.bare)
    monkeypatch.setattr(archive, "plans", partial(archive.plans, most=3))
    lines = compact(hz, old)
    assert len(lines) > 4 and all(line.startswith("archived ") for line in lines)
    assert whole_lint(old) == []
    after = log(hz, old.clone, old.bare)
    assert after == before and len(set(after)) == len(after)
    git("-C", str(old.clone), "fetch", "-q", str(old.bare), "+hz/state:refs/heads/hz/state")
    os.chdir(old.clone)
    linted = hz("state", "lint")
    assert (linted.exit_code, linted.out) == (0, "hz/state: clean\n"), linted.out + linted.err
    # the last days' log shows events only, never a file of archive/
    # (the turn of three days ago was committed after the one of three hours ago: a window of 4 days holds both)
    assert sorted(log(hz, old.clone, old.bare, "--since", "4d")) == sorted(before[-11:])
    assert not any("archive/" in line for line in log(hz, old.clone, old.bare, "--since", "4d", "--json"))


def test_the_hooks_cost_with_a_week_of_marks(old: Old, hz: Any, capsys: pytest.CaptureFixture[str]) -> None:
    """~35,000 marks in the day files (a week of a team's moved work): the hook run again on a landed push of
    one turn (two events), with and without the marks in its parent's tree. Printed, not asserted."""
    from bench.hook import hook_run

    repo = pygit2.Repository(str(old.bare))
    compact(hz, old)

    def push_one(n: int) -> str:
        writer, events = own_turn(old.team, TODAY - timedelta(hours=2) + timedelta(minutes=10 * n), 10 + n)
        writer.queue(*events)
        result = writer.flush(TODAY)
        assert sorted(map(path_of, result.landed)) == sorted(map(path_of, events)), result
        tip = repo.revparse_single("hz/state")
        return f"{tip.parents[0].id} {tip.id} {STATE_REF}\n"

    def judged(line: str) -> tuple[float, float]:
        runs = [hook_run(old.bare, line) for _ in range(3)]
        return min(wall for wall, _ in runs), min(cpu for _, cpu in runs)

    bare = judged(push_one(1))
    days = {f"archive/{TODAY - timedelta(days=d):%Y-%m-%d}": render_marks(f"{d:02x}{n:014x}" for n in range(5000))
            for d in range(1, 8)}  # fmt: skip
    append_unguarded(old.bare, days)  # as archive steps would have left them
    assert len(moved_marks(repo, repo.revparse_single("hz/state").tree)) == 35_000
    marked = judged(push_one(2))
    with capsys.disabled():
        print(f"\nthe hook on one turn's push: {bare[0] * 1000:.0f} ms wall, {bare[1] * 1000:.0f} ms CPU with no "
              f"marks; {marked[0] * 1000:.0f} ms wall, {marked[1] * 1000:.0f} ms CPU with 35,000 marks "
              f"(load {os.getloadavg()[0]:.2f})")  # fmt: skip


def _marks_line_by_line(data: bytes) -> frozenset[str] | None:
    """The day file's format read the slow way, one line at a time (what parse_marks must agree with)."""
    if not data.endswith(b"\n") or len(data) > 17 * 2_000_000:
        return None
    lines = data[:-1].split(b"\n")
    if any(len(line) != 16 or any(c not in b"0123456789abcdef" for c in line) for line in lines):
        return None
    return frozenset(line.decode() for line in lines) if lines == sorted(set(lines)) else None


RECORDS = st.sampled_from(["0123456789abcdef\n", "0123456789abcdee\n", "ffffffffffffffff\n", "0123456789ABCDEF\n",
                           "0123456789abcde\n\n", "\n", "0123456789abcdef", "00000000000000000\n"])  # fmt: skip


@given(st.lists(RECORDS, max_size=6), st.binary(max_size=3))
def test_a_day_file_is_read_as_line_by_line(records: list[str], tail: bytes) -> None:
    for data in ("".join(records).encode(), "".join(records).encode() + tail):
        assert parse_marks(data) == _marks_line_by_line(data), data


def test_an_archived_draft_sent_again_with_a_fresh_ts_stays_archived(old: Old, hz: Any) -> None:
    """A decided draft of two months ago left the tip; its `draft.placed` pushed again under its path with
    today's `ts` passed the horizon and read as pending again (its fate is in the archive). Its key's slot is
    behind the horizon: refused like a turn of that slot."""
    compact(hz, old)
    repo = pygit2.Repository(str(old.clone))
    tip = old.team.fetch_tip(STATE_REF)
    assert tip is not None
    gone = next(e for e in old.landed if e.kind == "draft.placed" and objects.read_path(repo, tip, path_of(e)) is None)
    again = Event.make(gone.kind, id=gone.id, key=gone.key, ts=format_utc(TODAY - timedelta(hours=1)),
                       lease=gone.lease, token=gone.token, data=DraftPlaced(**gone.data))  # fmt: skip
    tree = objects.write_tree(repo, repo[tip].tree.id, {path_of(again): again.line()})
    commit = objects.make_commit(repo, tree, [tip], "hz-state: 1 event\n", TODAY)
    code, lines = git_push(old.clone, old.bare, f"{commit}:refs/heads/hz/state")
    slot = gone.key.split("@")[2]
    assert (code, lines[1:3]) == (1, [
        f"{path_of(again)}:1:1  HZS027  {commit[:12]}",
        f"  the draft's slot {slot} is older than the archive horizon {horizon_text()}",
    ])  # fmt: skip


def horizon_text() -> str:
    return format_utc(TODAY - timedelta(days=8)).split("T")[0] + "T00:00:00Z"
