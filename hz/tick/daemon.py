"""The tick: decide without a model which agents are due, wake them, and run each wake as one turn.

`tick(...)` is a function of (the index, the spines, the sources, now): it asks the index what is due
(schedule slots, waits whose time came, turns a crash left open, drafts awaiting a decision, inputs to
recheck) and, on an idle machine, returns after those few indexed queries without importing anything
heavy. Only when something is due does it load contracts, sources and runners (`hz.tick.ticking`);
receipts still waiting in the outbox (a push that failed) count as something to do, and go out.
Before asking, it adopts the team contracts on main this home has no agent for yet (`hz.tick.team_adoption`),
which on an unchanged repository costs a few stats.
`run_daemon(...)` loops ticks until SIGTERM or SIGINT, finishing the tick in progress first.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from hz.tick.asked import marked
from hz.tick.discover_day import discovery_due
from hz.tick.report import Pending, TickReport
from hz.tick.team_adoption import adopt_new_team_contracts

# A `created` turn skipped (its slot ran elsewhere on the team) starts no turn, so `last_turn` stays empty:
# its settled key says the agent is no longer fresh, else every later tick would load it for nothing.
FRESH = (
    "SELECT id FROM agents WHERE state = 'asleep' AND last_turn IS NULL"
    " AND NOT EXISTS (SELECT 1 FROM keys WHERE keys.agent = agents.id AND keys.key = agents.id || '@created')"
)
# The tick's own partial index over the derived index, so finding agents that never had a turn costs
# nothing when there are none; recreated whenever the index was rebuilt (it is derived, like the rest).
FRESH_INDEX = "CREATE INDEX IF NOT EXISTS tick_fresh ON agents (id) WHERE state = 'asleep' AND last_turn IS NULL"


WAITING_ON = "SELECT agent, turn FROM waits WHERE on_kind IS NOT NULL"


def pending(
    index: Any,
    now: datetime,
    root: Path | None,
    store_root: Path | None = None,
    environ: Mapping[str, str] | None = None,
) -> Pending:
    """A handful of indexed queries: what is due, waiting, open, undecided or watched.

    A turn that waits only for a time is found by `waits_due`; one that waits on a condition is looked
    at every tick. A placed draft counts only once its place changed (its tag line or branch). Messages
    that wait in an inbox are found by listing one folder of markers (`hz.tick.asked`). Whether today's
    discovery pass is due costs a stat of the playbook and a read of a small file (`hz.tick.discover_day`).
    Agents another repository adopted are left out (`ours_only`).
    """
    running = [r for r in index.running_turns() if r["status"] == "running"]
    work = Pending(
        due=index.due(now),
        waits=index.waits_due(now),
        running=running + [dict(r) for r in index.db.execute(WAITING_ON)],
        # a file draft's tag line is read without git, so an unmoved one drops out before `ours_only`
        # (which may ask git for this repository's identity); a branch's check is git's, asked after it
        drafts=[r for r in index.drafts(status="pending") if _on_branch(r) or draft_moved(r, root)],
        watched=index.watched(),
        fresh=_fresh(index),
        asked=[] if store_root is None else marked(store_root),
        discover=discovery_due(root, store_root, now),
    )
    work = ours_only(index, work, root, environ)
    return work._replace(drafts=[r for r in work.drafts if not _on_branch(r) or draft_moved(r, root)])


def _on_branch(row: Mapping[str, Any]) -> bool:
    return str(row.get("place") or "").startswith("hz/draft/")


# the columns that say which repository an adopted agent is (hz.heinzel.repository.belongs)
_PLACED = "SELECT id, origin, source, repo_root, repo_remote, repo_path FROM agents WHERE id IN ({})"
_BY_AGENT = ("waits", "running", "drafts", "watched")  # rows naming their agent as `agent`; due and fresh: `id`


def ours_only(index: Any, work: Pending, root: Path | None, environ: Mapping[str, str] | None = None) -> Pending:
    """`work` without the rows of agents another repository adopted: a tick there would load them only
    to drop them. Nothing is asked when nothing is listed (an idle tick stays as it was); otherwise one
    query of the listed agents and, only when one of them is bound to a repository, the identity of
    this one (one git call, kept for the rest of the tick by `hz.heinzel.repository.here_of`). An old
    agent not bound yet stays: the tick binds it where it belongs (`hz.heinzel.rebind`)."""
    lists = {name: getattr(work, name) for name in ("due", "fresh", *_BY_AGENT)}
    ids = {str(r["agent"] if name in _BY_AGENT else r["id"]) for name, rows in lists.items() for r in rows}
    if not ids:
        return work
    listed = list(ids)
    found = [dict(r) for r in index.db.execute(_PLACED.format(",".join("?" * len(listed))), listed)]
    from hz.heinzel.repository import adopted, belongs, bound, here_of

    placed = [r for r in found if adopted(r) and bound(r)]
    if not placed:
        return work
    here = here_of(root, environ, fresh=True)
    away = {str(r["id"]) for r in placed if belongs(r, here) is False}
    if not away:
        return work
    kept = {
        name: [r for r in rows if str(r["agent"] if name in _BY_AGENT else r["id"]) not in away]
        for name, rows in lists.items()
    }
    return work._replace(
        due=kept["due"],
        fresh=kept["fresh"],
        waits=kept["waits"],
        running=kept["running"],
        drafts=kept["drafts"],
        watched=kept["watched"],
    )


def _fresh(index: Any) -> list[dict[str, Any]]:
    import sqlite3

    query = FRESH.replace("FROM agents", "FROM agents INDEXED BY tick_fresh")
    try:
        index.db.execute(FRESH_INDEX)
    except sqlite3.OperationalError:  # a reader that cannot write still gets the answer, by a scan
        query = FRESH
    return [dict(r) for r in index.db.execute(query)]


def draft_moved(row: Mapping[str, Any], root: Path | None) -> bool:
    """Whether a pending draft may have been approved or rejected, checked without loading anything."""
    place, key = str(row.get("place") or ""), str(row["key"])
    if root is None or not place:
        return False
    if place.startswith("hz/draft/"):
        from hz.review.branches import branch_moved

        return branch_moved(root, place, key)
    return key not in _first_line(root, place)


def _first_line(root: Path, place: str) -> str:
    """The tag line of a file draft, or "" when the place holds no regular file (the draft then counts
    as moved and the tick looks closer, by the path rule). Opened without blocking and without following
    a last link, and read to a bound: a FIFO or a link to /dev/zero planted there never holds the tick.
    Only whether the key is in this line comes out of it. Plain `os` here: an idle tick imports little."""
    import stat

    path = root / place
    try:
        if not stat.S_ISREG(os.lstat(path).st_mode):  # looked at before opening: opening a device can act
            return ""
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return ""
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return ""
        head = os.read(fd, _TAG_LINE_BYTES)
    except OSError:
        return ""
    finally:
        os.close(fd)
    return head.split(b"\n", 1)[0].decode("utf-8", errors="replace")


_TAG_LINE_BYTES = 4096  # hz's tag line is about 100 bytes


def outbox_waiting(root: Path | None, home: Path) -> bool:
    """Whether receipts wait to reach a team remote: then the tick pushes them even with nothing due.

    A listing of the outbox folders under `$HZ_HOME/gitstate/`, nothing read or imported: an idle tick
    pays only that. Which remote an outbox belongs to is named in `hz.toml`, read only when one waits
    (so a stuck outbox of another repository costs this one's ticks a read of its `hz.toml`). Team
    state is a repository's: outside one there is nothing to push.
    """
    from hz.gitstate.outbox import waiting_under

    return root is not None and waiting_under(home / "gitstate")


def tick(
    *,
    root: Path | None,
    environ: Mapping[str, str] = os.environ,
    now: datetime | None = None,
    runner: Any = None,
    tools: tuple[Any, ...] = (),
) -> TickReport:
    """One deterministic tick at `now` (default: the clock); `runner` and `tools` override the defaults.

    Its remote requests (sources, the forge, publishes) share one budget of time (`hz.http.budget`)."""
    from hz.contract.compile_cache import kept_in
    from hz.contract.compiled import shared
    from hz.http.budget import tick_budget

    # each contract text compiled once a tick; with HZ_COMPILE_CACHE (an Actions run) once per hz code
    with tick_budget(environ), shared(), kept_in(environ):
        return _tick(root=root, environ=environ, now=now, runner=runner, tools=tools)


def _tick(
    *, root: Path | None, environ: Mapping[str, str], now: datetime | None, runner: Any, tools: tuple[Any, ...]
) -> TickReport:
    from hz.session.store import Store

    moment = now or datetime.now(UTC)
    with Store.from_environ(environ) as store:
        # with [state], the tick's one fetch of the team remote (main, drafts, hz/state, leases) comes first
        fetched, unreached = _fetch_team(root, environ)
        busy, unreached = _busy(unreached)
        errors = [{"agent": "hz/state", "action": "error", "error": error} for error in unreached]
        errors += _shared_settings(fetched)
        # team contracts on main this home has no agent for yet (an Actions run's empty home included)
        main = fetched[1].main if fetched else None  # the remote's main this fetch saw: its team contracts
        adopting = [] if root is None else adopt_new_team_contracts(store, root, environ, moment, main)
        errors += [{"agent": "adoption", "action": "error", "error": error} for error in adopting]
        errors += _settle_drafts(fetched, environ, moment)
        work = pending(store.index, moment, root, store.root, environ)
        work = work._replace(drafts=work.drafts + _decided_on_state(store.index, fetched, work.drafts))
        if work.empty() and not outbox_waiting(root, store.root.parent) and not _branch_work(fetched):
            return TickReport(moment, woken=errors, busy=busy)
        from hz.tick.ticking import run_tick

        # a failed fetch was said once: the team's slots wait for a tick that reaches the remote
        team = False if unreached else fetched
        report = run_tick(store, work, root=root, environ=environ, now=moment, runner=runner, tools=tools, fetched=team)
        report.woken[:0] = errors
        report.busy[:0] = busy
        return report


def _shared_settings(fetched: Any) -> list[dict[str, Any]]:
    """One warning when this work tree's `[state]`, `[forge]` or `[team.members]` are not main's (main's
    count: hz.gitstate.main_toml)."""
    if not fetched or fetched[1] is None:
        return []
    from hz.gitstate.main_toml import differs_warning

    said = differs_warning(fetched[0], fetched[1].main)
    return [] if said is None else [{"agent": "hz.toml", "action": "warning", "warning": said}]


def _busy(unreached: list[str]) -> tuple[list[str], list[str]]:
    """A fetch another process of this clone kept busy is said as busy (exit 0), not as an error."""
    if not unreached:
        return [], unreached
    from hz.gitstate.transport import BUSY

    return (["hz/state"] if BUSY in unreached else []), [e for e in unreached if e != BUSY]


def _settle_drafts(fetched: Any, environ: Mapping[str, str], now: datetime) -> list[dict[str, Any]]:
    """What became of the team's pending drafts, recorded on hz/state by whoever sees it first, before any
    agent works and whether or not one is due (approval is bookkeeping, not a wake: hz.review.approval_sweep)."""
    if not fetched:
        return []
    from hz.review.approval_stamp import unchanged

    remote, view = fetched
    if view is None or unchanged(remote.local_dir, view, environ):  # as at the last look, nothing open: stay light
        return []
    from hz.review.approval_sweep import settle

    return settle(remote, view, environ=environ, now=now)


def _branch_work(fetched: Any) -> bool:
    """Whether the tick's push has draft branches to delete (their drafts were decided) or pull requests
    to ask for again (a forge that failed): then an otherwise idle tick pushes and asks too."""
    if not fetched:
        return False
    from hz.review.draft_push import pending_work

    return pending_work(*fetched)


def _decided_on_state(index: Any, fetched: Any, found: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """This home's pending team drafts whose fate another member (or this tick) recorded on hz/state: their
    agents take it over, though the draft's branch here moved nowhere."""
    if not fetched:
        return []
    remote, _ = fetched
    seen = {row["key"] for row in found}
    rows = [r for r in index.drafts(status="pending") if str(r.get("place") or "").startswith("hz/draft/")]
    if not rows:
        return []
    from hz.gitstate.layout import STATE_REF
    from hz.gitstate.objects import resolve
    from hz.review.approval_state import StateBook, decided

    book = StateBook(remote.repo, resolve(remote.repo, remote.tracking(STATE_REF)))
    return [dict(row) for row in decided(book, [r for r in rows if r["key"] not in seen])]


def _fetch_team(root: Path | None, environ: Mapping[str, str]) -> tuple[Any, list[str]]:
    """The tick's one fetch of the team remote where `hz.toml` keeps team state (hz.tick.team.for_tick).
    Only a stat where there is no `hz.toml`: an idle personal repository imports nothing for it."""
    if root is None or not os.path.exists(root / "hz.toml"):
        return None, []
    from hz.tick.team import for_tick

    return for_tick(root, environ)


def run_daemon(
    *,
    root: Path | None,
    interval_s: float,
    environ: Mapping[str, str] = os.environ,
    on_tick: Callable[[TickReport], None] | None = None,
    max_ticks: int | None = None,
) -> int:
    """Tick every `interval_s` seconds until SIGTERM/SIGINT; the tick in progress always completes."""
    import signal
    import threading

    stop = threading.Event()

    def request_stop(signum: int, frame: object) -> None:
        stop.set()

    previous = {sig: signal.signal(sig, request_stop) for sig in (signal.SIGTERM, signal.SIGINT)}
    ticks = 0
    try:
        while not stop.is_set():
            report = tick(root=root, environ=environ)
            ticks += 1
            if on_tick is not None:
                on_tick(report)
            if max_ticks is not None and ticks >= max_ticks:
                break
            stop.wait(interval_s)
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    return ticks
