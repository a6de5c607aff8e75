"""The readers of a long history cost what their window holds (issue 22): counted in objects read, not time.

Two histories of hourly turns end alike: a few days and three weeks of them. `hz state log --since` reads the
same commits and objects on both (its window), and a lint of the last push reads the same objects whatever
lies behind it. The readers are handed a real pygit2 repository through a reader that counts what it reads.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pygit2

from hz.gitstate.events import Event, path_of
from hz.gitstate.lease_record import LeaseRecord
from hz.gitstate.lint import LintContext, lint_range
from hz.gitstate.lint_fence import LeaseBook
from hz.gitstate.lint_since import lint_counted
from hz.gitstate.odb import PygitObjects
from hz.gitstate.reader import history
from hz.gitstate.types import format_utc
from tests.gitstate.factory import finished, hz_id, started

AGENTS = [hz_id(n) for n in (3, 4, 5)]
END = datetime(2026, 11, 20, tzinfo=UTC)  # the hour after the last turn
HOLDER = "@ann/m-0000000a"


class Counting(PygitObjects):
    """A real repository's objects, counting each one read and each commit whose added files were listed."""

    def __init__(self, repo: pygit2.Repository) -> None:
        super().__init__(repo)
        self.reads = 0
        self.listed = 0

    def read(self, oid: str) -> tuple[str, bytes]:
        self.reads += 1
        return super().read(oid)

    def header(self, oid: str) -> tuple[str, int]:
        self.reads += 1
        return super().header(oid)

    def added(self, pairs: list[tuple[str, str | None]]) -> dict[str, list[tuple[str, str]]]:
        self.listed += len(pairs)
        return super().added(pairs)


def _slot(hour: datetime) -> str:
    return format_utc(hour)


def _stream(hours: int) -> Iterator[bytes]:
    """`git fast-import` input: hz/state with one commit per hour (each agent's turn started and finished),
    and each agent's lease chain with one acquisition per hour (token = the hour's number)."""
    start = END - timedelta(hours=hours)
    for index in range(hours):
        hour = start + timedelta(hours=index)
        events: list[Event] = []
        for agent in AGENTS:
            events += [started(agent, _slot(hour), index + 1, turn=index), finished(agent, _slot(hour), index + 1)]
        yield _commit("refs/heads/hz/state", hour + timedelta(minutes=2), f"hz-state: {len(events)} events",
                      [(path_of(e), e.line()) for e in events])  # fmt: skip
    for agent in AGENTS:
        for index in range(hours):
            hour = start + timedelta(hours=index)
            until = format_utc(hour + timedelta(minutes=10))
            record = LeaseRecord(lease=agent, holder=HOLDER, role="owner", token=index + 1, slot=format_utc(hour),
                                 acquired=format_utc(hour), expires=until)  # fmt: skip
            yield _commit(f"refs/hz/lease/{agent}", hour, f"lease {agent} token {index + 1} held",
                          [("lease.json", record.line())], replace=True)  # fmt: skip


def _commit(ref: str, when: datetime, message: str, files: list[tuple[str, bytes]], *, replace: bool = False) -> bytes:
    stamp = int(when.timestamp())
    text = message.encode() + b"\n"
    parts = [f"commit {ref}\nauthor hz <hz> {stamp} +0000\ncommitter hz <hz> {stamp} +0000\n".encode(),
             f"data {len(text)}\n".encode(), text, b"deleteall\n" if replace else b""]  # fmt: skip
    for path, data in files:
        parts.append(f"M 100644 inline {path}\ndata {len(data)}\n".encode() + data + b"\n")
    return b"".join(parts) + b"\n"


def _repository(path: Path, hours: int) -> pygit2.Repository:
    subprocess.run(["git", "init", "-q", "--bare", str(path)], check=True)
    subprocess.run(["git", "--git-dir", str(path), "fast-import", "--quiet"], input=b"".join(_stream(hours)),
                   check=True)  # fmt: skip
    return pygit2.Repository(str(path))


def _tip(repo: pygit2.Repository) -> str:
    return str(repo.references["refs/heads/hz/state"].target)


def _log(repo: pygit2.Repository, since: datetime) -> tuple[Counting, list[tuple[str, bool]]]:
    objects = Counting(repo)
    shown = [(item.path, item.void) for item in history(objects, _tip(repo), since=since)]
    return objects, shown


def test_a_log_since_reads_its_window_whatever_the_history_behind_it(tmp_path: Path) -> None:
    short, long = _repository(tmp_path / "short.git", 72), _repository(tmp_path / "long.git", 21 * 24)
    since = END - timedelta(hours=6)
    few, shown_few = _log(short, since)
    many, shown_many = _log(long, since)
    assert shown_few == shown_many and len(shown_few) == 6 * len(AGENTS) * 2
    assert not any(void for _, void in shown_many)
    # the window's 6 hours and the 2 before it (reader.LATE: its events may be stamped that much after their
    # commit), both; the day the walk goes back (a member's clock may be off) is walked, not compared
    assert (few.listed, many.listed) == (8, 8)
    # the walk's 30 commits and the one before them, each added file's header and bytes of the 8 commits, and
    # the lease records (commit, tree, record) from each chain's tip back to the window's tokens: nothing of
    # the history behind
    assert many.reads == few.reads <= 31 + 8 * 6 * 2 + 3 * 8 * len(AGENTS)


def test_a_slack_token_is_read_from_its_chain_only_when_it_would_void_an_event(tmp_path: Path) -> None:
    """A stale event in the window is still void, judged by a token the slack carried (read only then)."""
    repo = _repository(tmp_path / "team.git", 48)
    since = END - timedelta(minutes=30)  # the window holds the stale event alone
    base = _tip(repo)
    stale = started(AGENTS[0], _slot(END), 3, turn=999)  # token 3, long replaced: written by an old holder
    index = pygit2.Index()
    index.read_tree(repo[base].peel(pygit2.Tree))
    index.add(pygit2.IndexEntry(path_of(stale), repo.create_blob(stale.line()), pygit2.enums.FileMode.BLOB))
    signature = pygit2.Signature("hz", "hz", int((END + timedelta(minutes=5)).timestamp()), 0)
    top = repo.create_commit("refs/heads/hz/state", signature, signature, "hz-state: 1 event\n",
                             index.write_tree(repo), [base])  # fmt: skip
    shown = [(item.event.token, item.void) for item in history(repo, str(top), since=since)]
    assert shown[-1] == (3, True) and not any(void for _, void in shown[:-1])


def test_a_lint_of_the_last_push_reads_what_that_push_added(tmp_path: Path) -> None:
    """The hook's check of a push (lint_range) and `hz state lint --since` (lint_counted) read the same."""
    # the commit and its parent, the root and events/ folders and each agent's folder on both sides, the leaf
    # folder of each added file on both sides, the leaf of each start's other spelling of its slot (the
    # double-run check), the added files: bounded by the push (a short history may have fewer leaf folders
    # on the parent's side). The lint of old read every leaf folder of each agent the push touched.
    events = 2 * len(AGENTS)
    bound = 2 + 2 * (2 + len(AGENTS) + events) + len(AGENTS) + events
    for name, hours in (("short.git", 48), ("long.git", 21 * 24)):
        repo = _repository(tmp_path / name, hours)
        tip = _tip(repo)
        before = str(repo[tip].parents[0].id)
        hooked = Counting(repo)
        assert lint_range(hooked, before, tip, LintContext(LeaseBook.for_push(repo, {}), None, END)) == []
        assert hooked.reads <= bound and (hours < 100 or hooked.reads == bound)
        objects = Counting(repo)  # the same, and the commit and its parent again to count what it added
        run = lint_counted(objects, before, tip, LintContext.local(repo))
        assert (run.found, run.commits, run.events, objects.reads) == ([], 1, events, hooked.reads + 2)


def test_a_clone_cut_short_reads_from_its_boundary(tmp_path: Path) -> None:
    """A clone that took hz/state at a depth (an Actions run) logs what it holds, window or whole: the commit
    at the boundary shows the files of its tree, as a first commit does."""
    _repository(tmp_path / "team.git", 30)
    shallow = tmp_path / "shallow.git"
    subprocess.run(["git", "clone", "-q", "--bare", "--depth", "3", "--branch", "hz/state",
                    f"file://{tmp_path / 'team.git'}", str(shallow)], check=True)  # fmt: skip
    repo = pygit2.Repository(str(shallow))
    whole = list(history(repo, _tip(repo)))
    assert len(whole) == 30 * 2 * len(AGENTS)  # the boundary's tree holds every event before it
    window = list(history(repo, _tip(repo), since=END - timedelta(hours=2)))
    assert [item.path for item in window] == [item.path for item in whole[-2 * 2 * len(AGENTS) :]]
