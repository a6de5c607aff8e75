"""Moving closed work off the tip of `hz/state`: what stays live, and the archive steps that move the rest.

Live, and so always on the tip (what a tick, `hz drafts`, an Actions run or the hook read):
- every event of the last `keep` days (one by default: the day's slots, open turns, fresh fates);
- every pending draft (a `draft.placed` with no fate), with whatever followed it, however old; every
  approval with its draft, seconds and publishes until the horizon passes it (its publishes are retried
  for a week); every self-approved draft no second member approved yet, for `SECOND_WAIT`;
- per contract, the newest turn of each kind of occasion (its last slot, the last wake of each input, …:
  what a tick asks "is this done already?" about, however long ago a monthly slot was), the newest draft
  that has a fate, with its receipts and the turn that placed it (what a policy's "first draft after a
  change" and a lesson compare with), and the newest `contract.amended`.

The rest moves as whole groups (a draft with its fate, approvals and publishes; a slot's turn events; one
key otherwise). The horizon is midnight UTC `HORIZON_AGE` ago, never older than a horizon set before:
nothing older than it may be added again. A group moved while younger than the horizon leaves a mark per
event in the day file of its `ts` (hz.gitstate.layout), so its identity cannot land twice either. Each step
is one commit (hz.gitstate.archive_lint says what it may do), so the moved files stay in history where
they were added, and `archive/<yyyy-mm>` indexes what each period lost. Migration of a branch written
before the archive existed is the first step: it has no index, which reads as "nothing archived", so both
layouts are the same layout and every reader and the hook read either.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, time, timedelta
from typing import TYPE_CHECKING, Any

from hz.gitstate.archive_lint import FATES, HELD, MIN_CUT, horizon
from hz.gitstate.event_shapes import EventView, read_plain
from hz.gitstate.layout import (
    ARCHIVE_DIR,
    DAY_NAME,
    MAX_LINE_BYTES,
    IndexLine,
    day_path,
    moved_digest,
    moved_mark,
    parse_index,
    parse_marks,
    period_of,
    period_path,
    render_marks,
)
from hz.gitstate.lint_fence import event_slot
from hz.gitstate.times import format_utc, parse_utc

if TYPE_CHECKING:
    import pygit2

DEFAULT_KEEP = timedelta(days=1)
"""Closed work stays on the tip a day (at least, archive_lint.MIN_CUT): the day a tick's slots are in."""
HORIZON_AGE = timedelta(days=8)
"""A week and a day: an approval's publishes are retried for a week (hz.review.approval_publish.RETRY_FOR),
so they never follow an approval that moved; the hook's floor is a week (archive_lint.MIN_KEEP)."""
CUT_SLACK = timedelta(minutes=15)
"""How much earlier than `--keep` the cut falls: the hook measures a step's day by the earlier of the step's
committer time (whole seconds) and its own clock, which may be behind the member's; an event in between would
fail a step hz built itself (archive_lint.MIN_CUT). It waits a day more instead."""
STEP_MOST = 50_000
"""Events one archive step moves at most: the hook recomputes a step on the push (~0.1 ms an event), so a
migration of a year is a series of steps the hook checks in seconds each, not one it checks for minutes."""
SECOND_WAIT = timedelta(days=35)
"""How long a self-approved draft waits on the tip for a second member's approval (approval.seconded)."""
DRAFT_KINDS = frozenset({"draft.placed", "approval.seconded", *FATES})

Group = tuple[str, str]


@dataclass
class Plan:
    """What one archive step moves off `tip`: event paths with their blob ids, by period, and the marks it
    adds to (and the day files it deletes from) `archive/`."""

    tip: str
    horizon: datetime
    cut: datetime  # every moved event is older than this
    moved: dict[str, str] = field(default_factory=dict)
    periods: dict[str, list[tuple[str, str]]] = field(default_factory=dict)
    marks: dict[str, set[str]] = field(default_factory=dict)  # day -> marks of events moved younger than the horizon
    dropped: list[str] = field(default_factory=list)  # day files behind the horizon, deleted
    live: int = 0  # event files the tip keeps
    more: bool = False  # closed work is left for another step (a step holds at most `STEP_MOST` events)

    def add(self, members: list[tuple[str, str, EventView]]) -> None:
        for path, blob, event in members:
            self.moved[path] = blob
            self.periods.setdefault(period_of(event.ts), []).append((path, blob))
            if parse_utc(event.ts) >= self.horizon:
                self.marks.setdefault(event.ts[:10], set()).add(moved_mark(path))


def group_of(event: EventView) -> Group:
    """The work an event belongs to, which moves as a whole or not at all."""
    if event.kind in DRAFT_KINDS:
        return event.id, event.key
    if event.kind == "publish.done":
        return event.id, str(event.data["draft_key"])
    if (slot := event_slot(event)) is not None:
        return event.id, "slot:" + format_utc(slot)  # both spellings of a slot are one turn
    return event.id, event.key


def plan(
    repo: pygit2.Repository, tip: str, now: datetime, keep: timedelta = DEFAULT_KEEP, most: int = STEP_MOST
) -> Plan:
    """The first archive step made `now` on `tip` (see `plans`)."""
    return plans(repo, tip, now, keep, most)[0]


def plans(
    repo: pygit2.Repository, tip: str, now: datetime, keep: timedelta = DEFAULT_KEEP, most: int = STEP_MOST
) -> list[Plan]:
    """The archive steps made `now` that move every closed group (see the module docstring) of `tip`'s tree,
    the oldest first, each of at most `most` events (whole groups), read once. The first step is built on
    `tip`, each next one on the commit of the step before (its `tip` is set as the steps are built)."""
    tree: Any = repo[tip].tree
    before = horizon(repo, tree)
    limit = datetime.combine((now - HORIZON_AGE).astimezone(UTC).date(), time(), UTC)
    limit = max(limit, before) if before is not None else limit
    made = now.replace(microsecond=0)  # the committer time the step will say
    cut = min(made - keep, made - MIN_CUT) - CUT_SLACK
    groups: dict[Group, list[tuple[str, str, EventView]]] = {}
    total = 0
    for path, blob in _files(repo, tree):
        total += 1
        data = _small(repo, blob)
        read = read_plain(data) if data is not None else None
        if read is not None:  # a file hz cannot read stays where it is: the lint names it
            groups.setdefault(group_of(read), []).append((path, blob, read))
    pinned = _pinned(groups) | _turns(groups) | _unseconded(groups, now - SECOND_WAIT)
    movable = [members for ident, members in groups.items() if ident not in pinned and _closed(members, cut, limit)]
    steps = [Plan(tip, limit, cut, dropped=_behind_days(repo, tree, limit))]
    for members in sorted(movable, key=lambda group: min(e.ts for _, _, e in group)):
        if len(steps[-1].moved) + len(members) > most and steps[-1].moved:
            steps[-1].more = True
            steps.append(Plan("", limit, cut))
        steps[-1].add(members)
    left = total
    for step in steps:
        left -= len(step.moved)
        step.live = left
    return steps


def _closed(members: list[tuple[str, str, EventView]], cut: datetime, limit: datetime) -> bool:
    kinds = {event.kind for _, _, event in members}
    if "draft.placed" in kinds and not kinds & set(FATES):
        return False  # a pending draft waits on the tip however old it is
    until = limit if kinds & HELD else cut  # an approval waits for the horizon: its publishes follow it
    return all(parse_utc(event.ts) < until for _, _, event in members)


def _behind_days(repo: pygit2.Repository, tree: Any, limit: datetime) -> list[str]:
    """The day files of `tree` behind the horizon `limit`: the horizon refuses their events already."""
    if ARCHIVE_DIR not in tree:
        return []
    first = limit.strftime("%Y-%m-%d")
    return [entry.name for entry in repo[tree[ARCHIVE_DIR].id] if DAY_NAME.fullmatch(entry.name) and entry.name < first]  # type: ignore[attr-defined]


def _pinned(groups: dict[Group, list[tuple[str, str, EventView]]]) -> set[Group]:
    """Per contract: the newest draft with a fate, the turn that placed it, the newest contract.amended."""
    newest: dict[str, tuple[str, Group, str]] = {}  # contract -> (ts, group, turn id)
    amended: dict[str, tuple[str, Group]] = {}
    for ident, members in groups.items():
        kinds = {event.kind for _, _, event in members}
        for _, _, event in members:
            if event.kind == "draft.placed" and kinds & set(FATES):
                if ident[0] not in newest or event.ts > newest[ident[0]][0]:
                    newest[ident[0]] = (event.ts, ident, str(event.data["turn"]))
            elif event.kind == "contract.amended" and (ident[0] not in amended or event.ts > amended[ident[0]][0]):
                amended[ident[0]] = (event.ts, ident)
    turns = {(contract, turn) for contract, (_, _, turn) in newest.items()}
    kept = {ident for _, ident, _ in newest.values()} | {ident for _, ident in amended.values()}
    for ident, members in groups.items():
        if any(e.kind == "turn.started" and (e.id, str(e.data["turn"])) in turns for _, _, e in members):
            kept.add(ident)
    return kept


def _turns(groups: dict[Group, list[tuple[str, str, EventView]]]) -> set[Group]:
    """Per contract, the newest turn of each kind of occasion: a tick asks whether its slot (or its wake's
    key) ended already, and for a monthly contract that slot may be weeks old."""
    from hz.gitstate.shapes import occasion

    newest: dict[tuple[str, str], tuple[str, Group]] = {}
    for ident, members in groups.items():
        starts = [e for _, _, e in members if e.kind in ("turn.started", "turn.finished", "turn.skipped")]
        if not starts:
            continue
        form, rest = occasion(starts[0].key)
        kind = f"{form}:{rest.split(':', 1)[0]}" if form in ("input", "stale") else form
        ts = max(e.ts for e in starts)
        if (ident[0], kind) not in newest or ts > newest[(ident[0], kind)][0]:
            newest[(ident[0], kind)] = (ts, ident)
    return {ident for _, ident in newest.values()}


def _unseconded(groups: dict[Group, list[tuple[str, str, EventView]]], since: datetime) -> set[Group]:
    """Drafts approved by their own author's member, with no second approval yet, approved after `since`."""
    found: set[Group] = set()
    for ident, members in groups.items():
        if any(e.kind == "approval.seconded" for _, _, e in members):
            continue
        for _, _, e in members:
            if e.kind == "approval.observed" and e.data.get("self_approved") and parse_utc(e.ts) >= since:
                found.add(ident)
    return found


def build(repo: pygit2.Repository, step: Plan, now: datetime) -> str:
    """The archive step's commit on `step.tip` (no ref moves)."""
    from hz.gitstate.objects import make_commit, prune_tree, read_path

    files: dict[str, bytes] = {}
    stamp = format_utc(step.horizon)
    for period, moved in sorted(step.periods.items()):
        old = read_path(repo, step.tip, period_path(period)) or b""
        line = IndexLine(step.tip, stamp, len(moved), moved_digest(moved))
        files[period_path(period)] = (old if parse_index(old) else b"") + line.render()
    for day, marks in sorted(step.marks.items()):
        known = parse_marks(read_path(repo, step.tip, day_path(day)) or b"") or frozenset()
        files[day_path(day)] = render_marks(known | marks)
    gone = [*step.moved, *(day_path(day) for day in step.dropped)]
    tree = prune_tree(repo, repo[step.tip].tree.id, gone, files)
    count = len(step.moved)
    message = f"hz-state: archive {count} event{'s' if count != 1 else ''}\n"
    return make_commit(repo, tree, [step.tip], message, now)


def index_of(repo: pygit2.Repository, tip: str) -> dict[str, list[IndexLine]]:
    """Each period's index lines as `tip` holds them (empty: nothing archived, the layout before the archive)."""
    from hz.gitstate.objects import small_blob

    tree: Any = repo[tip].tree
    if ARCHIVE_DIR not in tree:
        return {}
    found: dict[str, list[IndexLine]] = {}
    for entry in repo[tree[ARCHIVE_DIR].id]:  # type: ignore[attr-defined]
        if DAY_NAME.fullmatch(entry.name):
            continue  # a day's marks, no index
        lines = parse_index(small_blob(repo, entry.id, 1 << 24) or b"")
        if lines:
            found[entry.name] = lines
    return found


def _files(repo: pygit2.Repository, tree: Any) -> Iterator[tuple[str, str]]:
    """Every file under `events/` of `tree`, path and blob id (the layout's three levels)."""
    if "events" not in tree:
        return
    for agent in repo[tree["events"].id]:  # type: ignore[attr-defined]
        if agent.type_str != "tree":
            continue
        for fan in repo[agent.id]:  # type: ignore[attr-defined]
            if fan.type_str != "tree":
                continue
            for leaf in repo[fan.id]:  # type: ignore[attr-defined]
                yield f"events/{agent.name}/{fan.name}/{leaf.name}", str(leaf.id)


def _small(repo: pygit2.Repository, blob: str) -> bytes | None:
    from hz.gitstate.objects import small_blob

    return small_blob(repo, blob, MAX_LINE_BYTES)
