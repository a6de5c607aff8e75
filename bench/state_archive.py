"""The tip of `hz/state` at a large history, before and after the archive step (`bench/state.py --archive`).

A team of `contracts` hourly contracts is synthesized with plumbing, one commit per day for `days` days up to
now: every slot a turn.started and a turn.finished, every sixth slot a draft placed and decided (approved,
every fourth rejected), and the last day's drafts still pending. Then the same repository is read as it was
(the layout before the archive: every event on the tip) and after one archive step (`hz.gitstate.archive`,
8 days kept), and printed side by side:

- the tip: event files on it, tree objects and bytes (uncompressed) reachable from its tree, and the bytes
  of a pack of exactly the tip's objects (what a fetch of the tip without history brings);
- a tick's read of the tip: the event files listed and the pending drafts found (hz.review.approval_state,
  what `hz drafts` and the approval watch read), median of 5;
- `hz state log --since 1d`: commits walked and events given, and its time;
- the archive steps themselves: the events each moves and the time the lint (the hook's check) takes on it.
Figures only.
"""

from __future__ import annotations

import statistics
import subprocess
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pygit2

from hz.gitstate import objects
from hz.gitstate.archive import build, plan
from hz.gitstate.events import ApprovalObserved, DraftPlaced, DraftRejected, Event, TurnEnded, TurnStarted, path_of
from hz.gitstate.lint import LintContext, check_commit
from hz.gitstate.reader import history, window_commits
from hz.gitstate.times import format_utc
from hz.review.approval_state import StateBook, undecided

FP = "sha256:" + "c" * 64


def agent(n: int) -> str:
    return f"hz-01JB{n:022d}"


def turn_id(n: int) -> str:
    return f"t-01JC{n:022d}"


def day_of_events(contract: int, day: datetime, pending: bool, counter: list[int]) -> list[Event]:
    """One contract's day: 24 hourly turns, a draft every 6 hours decided 2 hours later (unless pending)."""
    ident = agent(contract)
    found: list[Event] = []
    for hour in range(24):
        slot = day + timedelta(hours=hour)
        key, ts = f"{ident}@{format_utc(slot)}", format_utc(slot + timedelta(seconds=5))
        counter[0] += 1
        turn = turn_id(counter[0])
        start = TurnStarted(turn=turn, cause="schedule", keys=[key], contract_version=1, contract_fp=FP, token=1,
                            role="owner")  # fmt: skip
        end = TurnEnded(turn=turn, cause="schedule", keys=[key], disposition="drafted", cost_usd=0.01, tokens=900)
        found.append(Event.make("turn.started", id=ident, key=key, ts=ts, lease=ident, token=1, data=start))
        found.append(Event.make("turn.finished", id=ident, key=key, ts=ts, lease=ident, token=1, data=end))
        if hour % 6:
            continue
        asset = f"state:reports/{slot:%Y-%m-%d-%H}.md"
        dkey = f"{ident}@v1@{format_utc(slot).replace(':00Z', 'Z')}@{asset}"
        placed = Event.make("draft.placed", id=ident, key=dkey, ts=ts, lease=ident, token=1,
                            data=DraftPlaced(turn=turn, key=dkey, asset=asset, hash=FP))  # fmt: skip
        found.append(placed)
        if pending:
            continue
        later = format_utc(slot + timedelta(hours=2))
        if counter[0] % 4:
            fate = ApprovalObserved(key=dkey, asset=asset, approver="@rita", share_changed=0.5, output_fp=FP)
            found.append(Event.make("approval.observed", id=ident, key=dkey, ts=later, lease=ident, token=1, data=fate))
        else:
            found.append(Event.make("draft.rejected", id=ident, key=dkey, ts=later, lease=ident, token=1,
                                    data=DraftRejected(key=dkey, asset=asset, by="@rita")))  # fmt: skip
    return found


def synthesize(path: Path, contracts: int, days: int, now: datetime) -> tuple[pygit2.Repository, str, int]:
    """A bare repository whose hz/state holds `days` days of the team, one commit a day; (repo, tip, events)."""
    repo = pygit2.init_repository(str(path), bare=True)
    start = datetime.combine((now - timedelta(days=days)).date(), datetime.min.time(), UTC)
    tip: str | None = None
    counter = [0]
    total = 0
    for d in range(days):
        day = start + timedelta(days=d)
        events = [e for c in range(contracts) for e in day_of_events(c, day, d == days - 1, counter)]
        total += len(events)
        base = repo[tip].tree.id if tip else None  # type: ignore[attr-defined]
        tree = objects.write_tree(repo, base, {path_of(e): e.line() for e in events})
        when = day + timedelta(hours=23)
        tip = objects.make_commit(repo, tree, [tip] if tip else [], f"hz-state: {len(events)} events\n", when)
    assert tip is not None
    repo.references.create("refs/heads/hz/state", tip, force=True)
    return repo, tip, total


def tip_size(repo: pygit2.Repository, tip: str) -> tuple[int, int, int]:
    """(tree objects, bytes of trees and blobs uncompressed, bytes of a pack of exactly the tip's objects)."""
    trees = size = 0
    stack: list[Any] = [repo[tip].tree]  # type: ignore[attr-defined]
    while stack:
        tree = stack.pop()
        trees += 1
        size += len(tree.read_raw())
        for entry in tree:
            if entry.type_str == "tree":
                stack.append(repo[entry.id])
            else:
                size += repo.odb.read_header(entry.id)[1]
    listed = subprocess.run(["git", "--git-dir", repo.path, "rev-list", "--objects", "--no-walk", tip],
                            capture_output=True, check=True).stdout  # fmt: skip
    packed = subprocess.run(["git", "--git-dir", repo.path, "pack-objects", "--stdout", "-q"], input=listed,
                            capture_output=True, check=True).stdout  # fmt: skip
    return trees, size, len(packed)


def median_ms(run: Callable[[], object], times: int = 5) -> float:
    spans = []
    for _ in range(times):
        began = time.perf_counter()
        run()
        spans.append((time.perf_counter() - began) * 1000)
    return statistics.median(spans)


def tick_read(repo: pygit2.Repository, tip: str) -> tuple[int, int]:
    book = StateBook(repo, tip)
    waiting, _ = undecided(book, lambda placed: "report")
    return len(book.files), len(waiting)


def log_since(repo: pygit2.Repository, tip: str, since: datetime) -> tuple[int, int]:
    return len(window_commits(repo, tip, since)), len(list(history(repo, tip, since=since)))


def run(root: Path, contracts: int, days: int, keep: timedelta) -> None:
    now = datetime.now(UTC)
    began = time.perf_counter()
    repo, old, total = synthesize(root / "team.git", contracts, days, now)
    print(f"synthesized {total:,} events of {contracts} hourly contracts over {days} days "
          f"in {time.perf_counter() - began:.1f} s")  # fmt: skip
    began = time.perf_counter()
    new, steps, live = old, [], 0
    while True:  # a migration is a series of steps of at most archive.STEP_MOST events
        step = plan(repo, new, now, keep)
        if not step.moved:
            break
        new, live = build(repo, step, now), step.live
        checked = time.perf_counter()
        found = check_commit(repo, repo[new], LintContext(now=now))
        steps.append((len(step.moved), time.perf_counter() - checked, len(found)))
        if not step.more:
            break
    spent = time.perf_counter() - began
    print(f"archive: {len(steps)} step(s) moved {sum(n for n, _, _ in steps):,} events, {live:,} stay live, in "
          f"{spent:.1f} s; the lint (the hook's check) of each step: "
          + ", ".join(f"{n:,} events in {t:.1f} s ({f} findings)" for n, t, f in steps))  # fmt: skip
    since = now - timedelta(days=1)
    print(f"{'':36}{'before: every event on the tip':>34}{'after the archive step':>34}")
    rows: list[tuple[str, Callable[[str], str]]] = [
        ("event files on the tip", lambda tip: f"{tick_read(repo, tip)[0]:,}"),
        ("tip: trees / bytes / packed bytes", lambda tip: "{:,} / {:,} / {:,}".format(*tip_size(repo, tip))),
        ("tick read of the tip (ms)", lambda tip: f"{median_ms(lambda: tick_read(repo, tip)):.1f}"),
        ("pending drafts found", lambda tip: f"{tick_read(repo, tip)[1]:,}"),
        ("log --since 1d: commits / events", lambda tip: "{:,} / {:,}".format(*log_since(repo, tip, since))),
        ("log --since 1d (ms)", lambda tip: f"{median_ms(lambda: log_since(repo, tip, since), 3):.1f}"),
    ]
    for label, figure in rows:
        print(f"{label:36}{figure(old):>34}{figure(new):>34}")
