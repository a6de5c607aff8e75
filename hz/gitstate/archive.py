"""Moving closed work off the tip of `hz/state`: what stays live, and the archive step that moves the rest.

Live, and so always on the tip (what a tick, `hz drafts`, an Actions run or the hook read):
- every event of the last `keep` days (recent slots, open turns, fresh fates and publishes);
- every pending draft (a `draft.placed` with no fate), with whatever followed it, however old, and every
  self-approved draft no second member approved yet, for `SECOND_WAIT`;
- per contract, the newest turn of each kind of occasion (its last slot, the last wake of each input, …:
  what a tick asks "is this done already?" about, however long ago a monthly slot was), the newest draft
  that has a fate, with its receipts and the turn that placed it (what a policy's "first draft after a
  change" and a lesson compare with), and the newest `contract.amended`.

The rest moves as whole groups (a draft with its fate, approvals and publishes; a slot's turn events; one
key otherwise), all of whose events are older than the horizon: midnight UTC `keep` days ago, never older
than a horizon set before. The step is one commit (hz.gitstate.archive_lint says what it may do), so the
moved files stay in history where they were added, and `archive/<yyyy-mm>` indexes what each period lost.
Migration of a branch written before the archive existed is the first step: it has no index, which reads
as "nothing archived", so both layouts are the same layout and every reader and the hook read either.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, time, timedelta
from typing import TYPE_CHECKING, Any

from hz.gitstate.archive_lint import FATES, horizon
from hz.gitstate.event_shapes import EventView, read_plain
from hz.gitstate.layout import (
    ARCHIVE_DIR,
    MAX_LINE_BYTES,
    IndexLine,
    moved_digest,
    parse_index,
    period_of,
    period_path,
)
from hz.gitstate.lint_fence import event_slot
from hz.gitstate.times import format_utc, parse_utc

if TYPE_CHECKING:
    import pygit2

DEFAULT_KEEP = timedelta(days=8)
"""A week and a day: an approval's publishes are retried for a week (hz.review.approval_publish.RETRY_FOR),
so they never follow an approval that moved; the hook's floor is a week (archive_lint.MIN_KEEP)."""
STEP_MOST = 50_000
"""Events one archive step moves at most: the hook recomputes a step on the push (~0.1 ms an event), so a
migration of a year is a series of steps the hook checks in seconds each, not one it checks for minutes."""
SECOND_WAIT = timedelta(days=35)
"""How long a self-approved draft waits on the tip for a second member's approval (approval.seconded)."""
DRAFT_KINDS = frozenset({"draft.placed", "approval.seconded", *FATES})

Group = tuple[str, str]


@dataclass
class Plan:
    """What one archive step moves off `tip`: event paths with their blob ids, by period."""

    tip: str
    horizon: datetime
    moved: dict[str, str] = field(default_factory=dict)
    periods: dict[str, list[tuple[str, str]]] = field(default_factory=dict)
    live: int = 0  # event files the tip keeps
    more: bool = False  # closed work is left for another step (a step holds at most `STEP_MOST` events)


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
    """Which events of `tip`'s tree an archive step made `now` moves (see the module docstring): the oldest
    closed groups, whole, until the step holds `most` events (`Plan.more` says that more would move)."""
    tree: Any = repo[tip].tree
    cut = datetime.combine((now - keep).astimezone(UTC).date(), time(), UTC)
    before = horizon(repo, tree)
    limit = max(cut, before) if before is not None else cut
    groups: dict[Group, list[tuple[str, str, EventView]]] = {}
    total = 0
    for path, blob in _files(repo, tree):
        total += 1
        data = _small(repo, blob)
        read = read_plain(data) if data is not None else None
        if read is not None:  # a file hz cannot read stays where it is: the lint names it
            groups.setdefault(group_of(read), []).append((path, blob, read))
    pinned = _pinned(groups) | _turns(groups) | _unseconded(groups, now - SECOND_WAIT)
    found = Plan(tip, limit)
    movable = [members for ident, members in groups.items() if ident not in pinned and _closed(members, limit)]
    for members in sorted(movable, key=lambda group: min(e.ts for _, _, e in group)):
        if len(found.moved) + len(members) > most and found.moved:
            found.more = True
            break
        for path, blob, event in members:
            found.moved[path] = blob
            found.periods.setdefault(period_of(event.ts), []).append((path, blob))
    found.live = total - len(found.moved)
    return found


def _closed(members: list[tuple[str, str, EventView]], limit: datetime) -> bool:
    kinds = {event.kind for _, _, event in members}
    if "draft.placed" in kinds and not kinds & set(FATES):
        return False  # a pending draft waits on the tip however old it is
    return all(parse_utc(event.ts) < limit for _, _, event in members)


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
    tree = prune_tree(repo, repo[step.tip].tree.id, step.moved, files)
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
