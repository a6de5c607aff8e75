"""`hz state log --since`: which commits a window reads (hz.gitstate.reader.LATE) and which it only walks.

A tick stamps its commit with the moment it began and its turns' events with that moment plus the time they
ran, by one member's clock; so a window reads the commits made from `LATE` before its start on (and any made
after one of those), and walks the day before only to get past a commit whose clock was behind. The tokens
of the commits walked but not read still void an event of the window when its lease's chain says they may.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

import pygit2

from hz.gitstate.events import Event, path_of
from hz.gitstate.reader import LATE, history
from hz.gitstate.types import format_utc
from tests.gitstate.factory import started
from tests.gitstate.test_year_readers import AGENTS, END, Counting, _repository, _tip


def _on_top(repo: pygit2.Repository, when: datetime, *events: Event) -> str:
    """A commit of `events` on hz/state's tip, stamped `when` (the moment its tick began, by its clock)."""
    base = _tip(repo)
    index = pygit2.Index()
    index.read_tree(repo[base].peel(pygit2.Tree))
    for event in events:
        index.add(pygit2.IndexEntry(path_of(event), repo.create_blob(event.line()), pygit2.enums.FileMode.BLOB))
    signature = pygit2.Signature("hz", "hz", int(when.timestamp()), 0)
    message = f"hz-state: {len(events)} events\n"
    return str(repo.create_commit("refs/heads/hz/state", signature, signature, message, index.write_tree(repo), [base]))


def _turn(agent: str, token: int, ts: datetime) -> Event:
    """A start under `token` (one the chain gave) for a slot of its own, stamped `ts`."""
    return started(agent, format_utc(ts), token, ts=format_utc(ts))


def _shown(repo: pygit2.Repository, since: datetime) -> tuple[Counting, list[tuple[str, int, bool]]]:
    objects = Counting(repo)
    found = [(item.event.ts, item.event.token, item.void) for item in history(objects, _tip(repo), since=since)]
    return objects, found


def test_a_window_reads_the_commits_made_from_late_before_it_and_those_after_a_read_one(tmp_path: Path) -> None:
    repo = _repository(tmp_path / "team.git", 48)  # hourly up to END - 58 minutes
    since = END + timedelta(hours=2)
    # a tick begun more than LATE before the window: its events are not read, whatever they say
    _on_top(repo, since - LATE - timedelta(minutes=30), _turn(AGENTS[0], 48, since + timedelta(minutes=10)))
    # a tick begun before the window, its turn stamped inside it: read and shown
    _on_top(repo, since - LATE + timedelta(minutes=1), _turn(AGENTS[1], 48, since + timedelta(minutes=5)))
    _on_top(repo, since + timedelta(minutes=30), _turn(AGENTS[2], 48, since + timedelta(minutes=30)))
    # a member whose clock was hours behind, on top of the window's commits: read whatever its time
    _on_top(repo, END - timedelta(hours=5), _turn(AGENTS[0], 48, since + timedelta(minutes=45)))
    objects, shown = _shown(repo, since)
    minutes = [format_utc(since + timedelta(minutes=m)) for m in (5, 30, 45)]
    assert shown == [(ts, 48, False) for ts in minutes]
    assert objects.listed == 3  # the day the walk goes back is walked, never compared


def test_a_token_only_the_walked_commits_carry_still_voids_a_stale_event(tmp_path: Path) -> None:
    """An event under a token whose lease's next token was taken long before the window: the commits the walk
    only passed are read for their tokens, and the event is void as it was when they were read anyway."""
    repo = _repository(tmp_path / "team.git", 48)
    for hours in (1, 2, 3):  # the other agents go on; AGENTS[0]'s tokens are all in commits before LATE
        hour = END + timedelta(hours=hours)
        _on_top(repo, hour, *(_turn(agent, 48, hour) for agent in AGENTS[1:]))
    since = END + timedelta(hours=3, minutes=30)
    before = _tip(repo)
    _on_top(repo, since + timedelta(minutes=5), _turn(AGENTS[0], 48, since + timedelta(minutes=5)))
    objects, shown = _shown(repo, since)
    assert shown == [(format_utc(since + timedelta(minutes=5)), 48, False)]
    assert objects.listed == 3  # the newest token: no commit behind can void it, none of them is read
    repo.references["refs/heads/hz/state"].set_target(before)  # the same window, the old holder's event instead
    _on_top(repo, since + timedelta(minutes=10), _turn(AGENTS[0], 3, since + timedelta(minutes=10)))
    objects, shown = _shown(repo, since)
    assert shown[-1] == (format_utc(since + timedelta(minutes=10)), 3, True)  # token 4 was taken 2 days ago
    assert objects.listed > 4  # the commits walked but not read, read once for their tokens
