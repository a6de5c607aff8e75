"""The archive of `hz/state` as the lint and the hook see it: the horizon, and what an archive step may do.

An archive step (hz.gitstate.archive writes it) is a commit that says `hz-state: archive N events`, deletes
N event files of its parent and appends one line to `archive/<period>` for every period those events
fall in (hz.gitstate.layout). Everything it claims can be recomputed from the step and its parent alone:

- it deletes event files and appends to index files, nothing else (no event is added or changed);
- each appended line names the parent, one horizon shared by the step's lines, and the count and digest
  of exactly the moved files of that period; every period it moves events of has its line;
- the horizon never moves back and stays at least `MIN_KEEP` behind the step's time (its committer time, or
  the clock's when that is earlier: the server's, in the hook);
- every moved event is at least `MIN_CUT` older than the step's time; one not older than the horizon is no
  approval, second or publish (they stay until the horizon passes them: publishes follow an approval for a
  week), and its mark is added to the day file of its
  `ts` (`archive/<yyyy-mm-dd>`): a day file gains exactly the marks of its day's moved events, and only a
  day file behind the horizon is deleted;
- a draft moves with its fate: a pending `draft.placed` (no fate) stays on the tip, and a fate never
  moves away from a draft that stays (which would read as pending again).

So `hz state lint` over the whole branch proves each period's index against history, and the tip's index
alone tells a reader or the hook the horizon: an event older than it, or one whose mark a day file holds, is
never added again (HZS027), which keeps the tip's promise that an identity lands once although its file may
have moved out of the tip.
Nothing here imports the event models (the hook's path).
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from hz.diagnostic import Diagnostic
from hz.gitstate.event_shapes import EventView, read_plain
from hz.gitstate.layout import (
    ARCHIVE_DIR,
    DAY_MARKS_MOST,
    INDEX_LINE_MAX,
    MARK_HEX,
    MAX_LINE_BYTES,
    PERIOD_NAME,
    Marks,
    day_of_path,
    event_path,
    is_event_path,
    moved_digest,
    moved_mark,
    parse_index,
    parse_marks,
    period_of,
    period_of_path,
    render_marks,
)
from hz.gitstate.times import parse_utc

if TYPE_CHECKING:
    from hz.gitstate.odb import Commit, Objects, Repo

ARCHIVE_MESSAGE = re.compile(rb"hz-state: archive (?:1 event|(?:[2-9]|[1-9][0-9]{1,8}) events)\n")
MIN_KEEP = timedelta(days=7)
"""How far behind the clock a horizon must stay: an event younger than it can still arrive (an outbox that
waited), so its identity stays on the tip, as a file or as a mark, whatever a member asks."""
MIN_CUT = timedelta(days=1)
"""How old an event must be before a step may move it: the tick's day of slots, fates and spend stays whole."""
FATES = ("approval.observed", "draft.rejected", "draft.superseded")
HELD = frozenset({"approval.observed", "approval.seconded", "publish.done"})
"""Kinds that stay until the horizon passes them: an approval's publishes and seconds follow it for a week."""
_MARKS: dict[str, Marks] = {}  # archive/ folder id -> its marks (the last few read)
_COMMITTED = re.compile(rb"\ncommitter [^\n]* ([0-9]{1,12}) \+0000\n")
STEP_HINT = "only `hz state compact` archives: it moves closed work older than its horizon and indexes it"
BEHIND_HINT = "events older than the archive horizon were archived or are too late to record; see `hz state log`"
_INDEX_LIMIT = INDEX_LINE_MAX * 100_000
_DAY_LIMIT = (MARK_HEX + 1) * DAY_MARKS_MOST


def is_archive_step(commit: Commit) -> bool:
    return ARCHIVE_MESSAGE.fullmatch(commit.message) is not None


def horizon(repo: Repo, tree: Any | None) -> datetime | None:
    """The newest horizon an archive step set, as `tree` (its id, or a pygit2 tree) holds the index (None:
    nothing was archived)."""
    from hz.gitstate.odb import objects_of

    objects = objects_of(repo)
    tree_id = tree if tree is None or isinstance(tree, str) else str(tree.id)
    entry = objects.at(tree_id, ARCHIVE_DIR) if tree_id is not None else None
    folder = objects.tree(entry.oid) if entry is not None and entry.kind == "tree" else None
    if folder is None:
        return None
    newest: str | None = None
    indexes = [e.oid for e in folder if PERIOD_NAME.fullmatch(e.text) and _fits(objects, e.oid, _INDEX_LIMIT)]
    for data in objects.read_many(indexes):
        lines = parse_index(data[1]) if data[0] == "blob" else None
        if lines and (newest is None or lines[-1].horizon > newest):
            newest = lines[-1].horizon
    return parse_utc(newest) if newest is not None else None


def moved_marks(repo: Repo, tree: Any | None) -> Marks:
    """The marks of every event a step moved while it was younger than the horizon (`tree` as in `horizon`).

    Kept per `archive/` folder id, which names its content: a lint of many commits between two archive steps
    (a day's, or a push's) reads the day files once, not once per commit."""
    from hz.gitstate.layout import DAY_NAME
    from hz.gitstate.odb import objects_of

    objects = objects_of(repo)
    tree_id = tree if tree is None or isinstance(tree, str) else str(tree.id)
    entry = objects.at(tree_id, ARCHIVE_DIR) if tree_id is not None else None
    if entry is None or entry.kind != "tree":
        return Marks()
    if (known := _MARKS.get(entry.oid)) is not None:
        return known
    folder = objects.tree(entry.oid)
    days = [e.oid for e in folder or () if DAY_NAME.fullmatch(e.text) and _fits(objects, e.oid, _DAY_LIMIT)]
    found = Marks(data for kind, data in objects.read_many(days) if kind == "blob")
    if len(_MARKS) >= 4:
        _MARKS.pop(next(iter(_MARKS)))
    _MARKS[entry.oid] = found
    return found


def archived(path: str, marks: Marks) -> str | None:
    """Why the event at `path` may not land again: its mark says a step moved it (None: it may)."""
    if marks and moved_mark(path) in marks:
        return "this event was recorded already and archived (its mark is in archive/)"
    return None


def _fits(objects: Objects, oid: str, limit: int) -> bool:
    """Is `oid` a blob of at most `limit` bytes? (Its header says, so a huge one is never loaded.)"""
    kind, size = objects.header(oid)
    return kind == "blob" and size <= limit


def _small(objects: Objects, oid: str, limit: int) -> bytes | None:
    return objects.read(oid)[1] if _fits(objects, oid, limit) else None


def behind(event: EventView, limit: datetime | None) -> str | None:
    """Why an added event may not land behind the horizon `limit` (None: it may)."""
    from hz.gitstate.lint_fence import event_slot

    if limit is None:
        return None
    if parse_utc(event.ts) < limit:
        return f"ts {event.ts} is older than the archive horizon {_utc(limit)}"
    slot = event_slot(event)
    if event.kind == "turn.started" and slot is not None and slot < limit:
        return f"slot {event.key.split('@', 1)[1]} is older than the archive horizon {_utc(limit)}"
    drafted = _draft_slot(event) if event.kind == "draft.placed" else None
    if drafted is not None and drafted[1] < limit:
        return f"the draft's slot {drafted[0]} is older than the archive horizon {_utc(limit)}"
    return None


def _draft_slot(event: EventView) -> tuple[str, datetime] | None:
    """The slot a draft's key names (`<id>@v<n>@<slot>@<asset>`): a schedule slot, which no turn starts once
    the horizon passed it, or the minute its wake started. A `draft.placed` of a slot that old was placed
    before the horizon, so its file was archived; sent again with a fresh `ts` it would pass the horizon and
    read as pending, its fate being in the archive."""
    from hz.gitstate.shapes import occasion, slot_time

    form, rest = occasion(event.key)
    text = rest.split("@", 2)[1] if form == "draft" else None
    moment = slot_time(text) if text is not None else None
    return (text, moment) if text is not None and moment is not None else None


def check_step(objects: Objects, commit: Commit, now: datetime | None) -> list[Diagnostic]:
    """Every way an archive step is not what hz writes (see the module docstring)."""
    where = commit.oid[:12]
    parent = objects.commit(commit.parents[0]) if commit.parents else None
    if parent is None:
        return [_diag("<commit>", where, "an archive step with nothing before it")]
    moved: dict[str, str] = {}  # path -> blob id
    indexes: dict[str, tuple[bytes, bytes]] = {}  # period -> (old, new)
    days: dict[str, tuple[bytes, bytes | None]] = {}  # day -> (old, new; None: deleted)
    found: list[Diagnostic] = []
    for change in objects.diff(parent.tree, commit.tree):
        period, day = period_of_path(change.path), day_of_path(change.path)
        if change.status == "D" and is_event_path(change.path) and change.old is not None:
            moved[change.path] = change.old
        elif change.status in ("A", "M") and period is not None and change.new is not None:
            indexes[period] = (_data(objects, change.old, _INDEX_LIMIT), _data(objects, change.new, _INDEX_LIMIT))
        elif day is not None:
            new = _data(objects, change.new, _DAY_LIMIT) if change.status != "D" else None
            days[day] = (_data(objects, change.old, _DAY_LIMIT), new)
        else:
            found.append(_diag(change.path, where, "an archive step only deletes event files and appends to archive/"))
    if found:
        return found
    said = int(commit.message.split()[2])
    if said != len(moved):
        found.append(_diag("<commit>", where, f"the message says {said} events, the step moves {len(moved)}"))
    events, periods = _read_moved(objects, moved, where, found)
    limit = _lines(indexes, periods, parent.oid, where, found)
    if limit is None:
        return found
    when = _step_time(commit, now)
    found += _horizon_findings(objects, parent.tree, limit, when, where)
    found += _moved_findings(objects, events, moved, commit.tree, limit, where)
    found += _recent_findings(events, days, limit, when - MIN_CUT if when is not None else None, where)
    return found


def _step_time(commit: Commit, now: datetime | None) -> datetime | None:
    """When the step was made, for its horizon and its cut: its committer time, or the clock's when that is
    earlier (a step that says it comes from the future is judged by the hook's clock; one that says it is
    older, by what it says, so a lint of the whole branch long after still judges it by its own day)."""
    from datetime import UTC

    match = _COMMITTED.search(commit.raw.partition(b"\n\n")[0] + b"\n")
    made = datetime.fromtimestamp(int(match[1]), UTC) if match is not None else None
    moments = [moment for moment in (made, now) if moment is not None]
    return min(moments) if moments else None


def _recent_findings(
    events: dict[str, EventView],
    days: dict[str, tuple[bytes, bytes | None]],
    limit: datetime,
    cutoff: datetime | None,
    where: str,
) -> list[Diagnostic]:
    """Events moved before the horizon passed them: old enough, not held, and marked in their day's file."""
    found: list[Diagnostic] = []
    marks: dict[str, set[str]] = {}
    for path, event in sorted(events.items()):
        if cutoff is not None and parse_utc(event.ts) >= cutoff:
            found.append(_diag(path, where, f"ts {event.ts} is less than {MIN_CUT.days} day older than the step"))
        elif parse_utc(event.ts) >= limit and event.kind in HELD:
            found.append(_diag(path, where, f"a {event.kind} stays on the tip until the horizon passes it"))
        elif parse_utc(event.ts) >= limit:
            marks.setdefault(event.ts[:10], set()).add(moved_mark(path))
    first = limit.strftime("%Y-%m-%d")
    for day in sorted(set(days) | set(marks)):
        old, new = days.get(day, (b"", b""))
        path = f"{ARCHIVE_DIR}/{day}"
        if new is None:
            if day >= first:
                found.append(_diag(path, where, f"a day file is deleted only once the horizon passed it ({first})"))
            continue
        before = parse_marks(old) if old else frozenset()
        if before is None or not new or new != render_marks(before | marks.get(day, set())) or day < first:
            found.append(_diag(path, where, f"the day file does not gain exactly the marks of {day}'s moved events"))
    return found


def _read_moved(
    objects: Objects, moved: dict[str, str], where: str, found: list[Diagnostic]
) -> tuple[dict[str, EventView], dict[str, list[tuple[str, str]]]]:
    events: dict[str, EventView] = {}
    periods: dict[str, list[tuple[str, str]]] = {}
    for path, blob in sorted(moved.items()):
        data = _small(objects, blob, MAX_LINE_BYTES)
        event = read_plain(data) if data is not None else None
        if event is None:
            found.append(_diag(path, where, "an archived file is no event hz can read"))
            continue
        events[path] = event
        periods.setdefault(period_of(event.ts), []).append((path, blob))
    return events, periods


def _lines(
    indexes: dict[str, tuple[bytes, bytes]],
    periods: dict[str, list[tuple[str, str]]],
    parent: str,
    where: str,
    found: list[Diagnostic],
) -> datetime | None:
    """The step's horizon when its index lines are exactly right (None otherwise, with findings added)."""
    horizons: set[str] = set()
    for period, (old, new) in sorted(indexes.items()):
        path = f"{ARCHIVE_DIR}/{period}"
        added = parse_index(new[len(old) :]) if new.startswith(old) else None
        if (old and parse_index(old) is None) or added is None or len(added) != 1:
            found.append(_diag(path, where, "an archive step appends exactly one line hz writes to a period's index"))
            continue
        line = added[0]
        files = periods.get(period, [])
        if line.parent != parent:
            found.append(_diag(path, where, f"the line names {line.parent[:12]}, not the step's parent"))
        elif (line.count, line.digest) != (len(files), moved_digest(files)):
            found.append(_diag(path, where, f"the line does not match the {len(files)} event(s) of {period} moved"))
        horizons.add(line.horizon)
    for period in sorted(set(periods) - set(indexes)):
        found.append(_diag(f"{ARCHIVE_DIR}/{period}", where, f"events of {period} moved with no line in its index"))
    if len(horizons) > 1:
        found.append(_diag("<commit>", where, "the lines of one archive step name different horizons"))
    return parse_utc(horizons.pop()) if not found and horizons else None


def _horizon_findings(
    objects: Objects, parent_tree: str, limit: datetime, now: datetime | None, where: str
) -> list[Diagnostic]:
    before = horizon(objects, parent_tree)
    if before is not None and limit < before:
        return [_diag("<commit>", where, f"the horizon {_utc(limit)} is older than {_utc(before)}, set before")]
    if now is not None and limit > now - MIN_KEEP:
        return [_diag("<commit>", where, f"the horizon {_utc(limit)} is less than {MIN_KEEP.days} days old")]
    return []


def _moved_findings(
    objects: Objects, events: dict[str, EventView], moved: dict[str, str], tree: str, limit: datetime, where: str
) -> list[Diagnostic]:
    found: list[Diagnostic] = []
    for path, event in events.items():
        if event.kind == "draft.placed" and not any(event_path(event.id, k, event.key) in moved for k in FATES):
            found.append(_diag(path, where, "a pending draft (no fate moved with it) stays on the tip"))
        elif event.kind in FATES and objects.at(tree, event_path(event.id, "draft.placed", event.key)) is not None:
            found.append(_diag(path, where, "a fate moves with its draft.placed, which stays on the tip"))
    return found


def _data(objects: Objects, oid: str | None, limit: int) -> bytes:
    return (_small(objects, oid, limit) or b"") if oid is not None else b""


def _utc(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def _diag(path: str, where: str, message: str) -> Diagnostic:
    return Diagnostic(path, 1, 1, "HZS026", "error", where, message, STEP_HINT)


def behind_diag(path: str, where: str, message: str) -> Diagnostic:
    return Diagnostic(path, 1, 1, "HZS027", "error", where, message, BEHIND_HINT)
