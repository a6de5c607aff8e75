"""What an archive step leaves on the tip (hz.gitstate.archive.plan), on a branch written with plumbing.

One commit holds a team's past: a monthly contract whose only slot is weeks old, an hourly one with a wake
of an input, self-approved drafts with and without a second, decided drafts. The plan keeps exactly what a
tick can still ask about, and the step it builds passes the lint.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pygit2
from hypothesis import given
from hypothesis import strategies as st

from hz.gitstate import objects
from hz.gitstate.archive import Plan, build, plan
from hz.gitstate.events import (
    ApprovalObserved,
    ApprovalSeconded,
    DraftPlaced,
    DraftRejected,
    Event,
    TurnEnded,
    TurnStarted,
    path_of,
)
from hz.gitstate.layout import IndexLine, Marks, moved_digest, moved_mark, parse_index, parse_marks, render_marks
from hz.gitstate.lint import LintContext, check_commit
from hz.gitstate.times import format_utc
from tests.gitstate.factory import hz_id, sha, turn_id

NOW = datetime(2026, 11, 30, 12, tzinfo=UTC)
MONTHLY, HOURLY = hz_id(1), hz_id(2)


def turn(agent: str, key: str, at: datetime, n: int) -> list[Event]:
    started = TurnStarted(turn=turn_id(n), cause="schedule", keys=[key], contract_version=1, contract_fp=sha("c"),
                          token=1, role="owner")  # fmt: skip
    ended = TurnEnded(turn=turn_id(n), cause="schedule", keys=[key], disposition="skipped", reason="nothing-moved")
    ts = format_utc(at)
    return [
        Event.make("turn.started", id=agent, key=key, ts=ts, lease=agent, token=1, data=started),
        Event.make("turn.skipped", id=agent, key=key, ts=ts, lease=agent, token=1, data=ended),
    ]


def drafted(agent: str, at: datetime, n: int, fate: str, *, seconded: bool = False) -> list[Event]:
    asset = f"state:r/{n}.md"
    key = f"{agent}@v1@{format_utc(at).replace(':00Z', 'Z')}@{asset}"
    ts = format_utc(at)
    found = [Event.make("draft.placed", id=agent, key=key, ts=ts, lease=agent, token=1,
                        data=DraftPlaced(turn=turn_id(n), key=key, asset=asset, hash=sha(str(n))))]  # fmt: skip
    if fate == "rejected":
        found.append(Event.make("draft.rejected", id=agent, key=key, ts=ts, lease=agent, token=1,
                                data=DraftRejected(key=key, asset=asset, by="@rita")))  # fmt: skip
    elif fate in ("approved", "self"):
        data = ApprovalObserved(key=key, asset=asset, approver="@rita", share_changed=0.5, output_fp=sha("o"),
                                self_approved=fate == "self")  # fmt: skip
        found.append(Event.make("approval.observed", id=agent, key=key, ts=ts, lease=agent, token=1, data=data))
    if seconded:
        found.append(Event.make("approval.seconded", id=agent, key=key, ts=ts, lease=agent, token=1,
                                data=ApprovalSeconded(key=key, asset=asset, approver="@bob")))  # fmt: skip
    return found


def one_commit(tmp_path: Path, events: dict[str, list[Event]], at: datetime) -> tuple[pygit2.Repository, str]:
    """A bare repository whose `hz/state` is one commit holding every event of `events`."""
    repo = pygit2.init_repository(str(tmp_path / "state.git"), bare=True)
    files = {path_of(e): e.line() for group in events.values() for e in group}
    tree = objects.write_tree(repo, None, files)
    return repo, objects.make_commit(repo, tree, [], f"hz-state: {len(files)} events\n", at)


def moved_groups(events: dict[str, list[Event]], step: Plan) -> set[str]:
    return {name for name, group in events.items() if all(path_of(e) in step.moved for e in group)}


def test_the_tip_keeps_what_a_tick_can_still_ask_about(tmp_path: Path) -> None:
    month = NOW - timedelta(days=29)
    old = NOW - timedelta(days=20)
    events = {
        "monthly slot": turn(MONTHLY, f"{MONTHLY}@{format_utc(month)}", month, 1),
        "older slot": turn(HOURLY, f"{HOURLY}@{format_utc(old)}", old, 2),
        "old slot": turn(HOURLY, f"{HOURLY}@{format_utc(old + timedelta(hours=1))}", old, 3),
        "input wake": turn(HOURLY, f"{HOURLY}@prs:{sha('p')}", old, 4),
        "rejected": drafted(HOURLY, old, 5, "rejected"),
        "self-approved": drafted(HOURLY, old, 6, "self"),
        "seconded": drafted(HOURLY, old, 7, "self", seconded=True),
        "approved last": drafted(HOURLY, old + timedelta(hours=2), 8, "approved"),
        "pending": drafted(HOURLY, old - timedelta(days=5), 9, "none"),
        "recent": turn(HOURLY, f"{HOURLY}@{format_utc(NOW - timedelta(days=2))}", NOW - timedelta(days=2), 10),
    }
    repo, tip = one_commit(tmp_path, events, NOW - timedelta(days=1))
    files = {path_of(e) for group in events.values() for e in group}
    step = plan(repo, tip, NOW)
    moved = moved_groups(events, step)
    kept = {name for name, group in events.items() if not any(path_of(e) in step.moved for e in group)}
    assert moved == {"older slot", "old slot", "rejected", "seconded"}
    assert kept == set(events) - moved  # groups move whole
    assert (step.horizon, step.live) == (datetime(2026, 11, 22, tzinfo=UTC), len(files) - 9)
    assert not step.more
    commit = build(repo, step, NOW)
    assert check_commit(repo, repo[commit], LintContext(now=NOW)) == []
    # a step holds at most `most` events, whole groups, the oldest first: a migration is a series of steps
    first = plan(repo, tip, NOW, most=3)
    assert (len(first.moved), first.more) == (2, True)
    assert check_commit(repo, repo[build(repo, first, NOW)], LintContext(now=NOW)) == []


LINE = IndexLine("a" * 40, "2026-11-22T00:00:00Z", 12, sha("x"))


@given(st.binary(max_size=300))
def test_any_bytes_read_as_an_index_or_as_none(data: bytes) -> None:
    found = parse_index(data)
    assert found is None or b"".join(line.render() for line in found) == data


@given(st.lists(st.builds(IndexLine, st.sampled_from(["a" * 40, "b" * 64]),
                          st.sampled_from(["2026-11-22T00:00:00Z", "2099-01-01T00:00:00Z"]),
                          st.integers(1, 10**9 - 1), st.just(sha("x"))), min_size=1, max_size=5))  # fmt: skip
def test_an_index_reads_back_as_written(lines: list[IndexLine]) -> None:
    assert parse_index(b"".join(line.render() for line in lines)) == lines


def test_closed_work_moves_after_a_day_with_its_marks_and_approvals_wait_for_the_horizon(tmp_path: Path) -> None:
    days_ago = NOW - timedelta(days=3)
    events = {
        "old slot": turn(HOURLY, f"{HOURLY}@{format_utc(days_ago)}", days_ago, 1),
        "rejected": drafted(HOURLY, days_ago, 2, "rejected"),
        "approved": drafted(HOURLY, days_ago, 3, "approved"),
        "rejected last": drafted(HOURLY, days_ago + timedelta(hours=1), 4, "rejected"),
        "this morning": turn(HOURLY, f"{HOURLY}@{format_utc(NOW - timedelta(hours=5))}", NOW - timedelta(hours=5), 5),
        "newest": turn(HOURLY, f"{HOURLY}@{format_utc(NOW - timedelta(hours=1))}", NOW - timedelta(hours=1), 6),
    }
    repo, tip = one_commit(tmp_path, events, NOW - timedelta(minutes=30))
    step = plan(repo, tip, NOW)
    moved = moved_groups(events, step)
    assert moved == {"old slot", "rejected"}
    day = days_ago.strftime("%Y-%m-%d")
    assert step.marks == {day: {moved_mark(path_of(e)) for name in moved for e in events[name]}}
    commit = build(repo, step, NOW)
    assert check_commit(repo, repo[commit], LintContext(now=NOW)) == []
    assert objects.read_path(repo, commit, f"archive/{day}") == render_marks(step.marks[day])

    def lie(remove: list[Event], marks: dict[str, bytes]) -> list[str]:
        moved_files = sorted((path_of(e), str(repo[tip].tree[path_of(e)].id)) for e in remove)
        line = f"{tip} 2026-11-22T00:00:00Z {len(remove)} {moved_digest(moved_files)}\n".encode()
        gone = [path for path, _ in moved_files]
        tree = objects.prune_tree(repo, repo[tip].tree.id, gone, {"archive/2026-11": line, **marks})  # type: ignore[attr-defined]
        made = objects.make_commit(repo, tree, [tip], f"hz-state: archive {len(remove)} events\n", NOW)
        return [d.message for d in check_commit(repo, repo[made], LintContext(now=NOW))]

    why = f"the day file does not gain exactly the marks of {day}'s moved events"
    placed = {f"archive/{day}": render_marks([moved_mark(path_of(events["approved"][0]))])}
    assert lie(events["approved"], placed) == ["a approval.observed stays on the tip until the horizon passes it"]
    fresh = events["this morning"]
    today = {f"archive/{NOW:%Y-%m-%d}": render_marks(moved_mark(path_of(e)) for e in fresh)}
    assert lie(fresh, today) == [f"ts {fresh[0].ts} is less than 1 day older than the step"] * 2 + [
        f"the day file does not gain exactly the marks of {NOW:%Y-%m-%d}'s moved events"
    ]
    half = {f"archive/{day}": render_marks([moved_mark(path_of(events["rejected"][0]))])}
    assert lie(events["rejected"], half) == [why]
    assert lie(events["rejected"], {}) == [why]

    # a week later the horizon passed that day: the next step deletes its file, and may delete nothing newer
    later = NOW + timedelta(days=8)
    again = plan(repo, commit, later)
    assert again.dropped == [day] and again.horizon == datetime(2026, 11, 30, tzinfo=UTC)
    second = build(repo, again, later)
    assert check_commit(repo, repo[second], LintContext(now=later)) == []
    assert objects.read_path(repo, second, f"archive/{day}") is None


@given(st.binary(max_size=200))
def test_any_bytes_read_as_a_day_file_or_as_none(data: bytes) -> None:
    found = parse_marks(data)
    assert found is None or render_marks(found) == data


@given(st.sets(st.text("0123456789abcdef", min_size=16, max_size=16), min_size=1, max_size=20))
def test_a_day_file_reads_back_as_written(marks: set[str]) -> None:
    assert parse_marks(render_marks(marks)) == marks
    assert parse_marks(render_marks(marks) + render_marks(marks)) is None  # twice over: unsorted, not unique


@given(st.sets(st.text("0123456789abcdef", min_size=16, max_size=16), max_size=20),
       st.text("0123456789abcdef", min_size=16, max_size=16))  # fmt: skip
def test_a_mark_is_found_in_the_bytes_exactly_when_the_day_file_holds_it(marks: set[str], asked: str) -> None:
    days = [render_marks(marks), render_marks({m[8:] + m[:8] for m in marks})]  # two files; a shifted copy
    found = Marks(days)
    held = (parse_marks(days[0]) or frozenset()) | (parse_marks(days[1]) or frozenset())
    assert (asked in found) == (asked in held)
    assert all(mark in found for mark in marks) and len(found) == 2 * len(marks)
    straddling = marks and "".join(sorted(marks))[8:24]  # the end of one record and the start of the next
    assert not straddling or (straddling in found) == (straddling in held)
