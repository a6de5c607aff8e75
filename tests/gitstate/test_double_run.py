"""A double run cannot hide: a second turn.started for a started slot is reported by the writer and refused by the hook.

Ann takes the slot (token 1) and records its start; her lease expires; Bob takes the same slot over
(token 2) and runs it again. Receipts are keyed to the minute, leases to the second: both spellings of
the slot are one instant, so neither the same path nor the other spelling lets Bob's start in.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pygit2
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hz.gitstate import objects
from hz.gitstate.events import Event, path_of
from hz.gitstate.layout import STATE_REF
from hz.gitstate.lint import lint_range
from hz.gitstate.remote import TeamRemote
from hz.gitstate.writer import StateWriter
from tests.gitstate.factory import finished, git, hz_id, placed, started
from tests.gitstate.plumbing import push, remote_lines
from tests.gitstate.test_writer import NOW, SETTINGS, holder

AGENT = hz_id(1)
MINUTE = "2026-10-30T15:00Z"  # how receipts spell the slot
SECOND = "2026-10-30T15:00:00Z"  # how leases spell it
STAMP = "2026-10-30T15:00:05Z"
LATER = NOW + timedelta(seconds=SETTINGS.lease_ttl_s + SETTINGS.clock_skew_s + 60)  # Ann's lease is free


@pytest.fixture
def guarded(bare: Path, hz: Any) -> Path:
    assert hz("state", "install-hook", str(bare)).exit_code == 0
    return bare


def two_runs(tmp_path: Path, remote: Path, *, first_lands: bool = True) -> TeamRemote:
    """Ann's run under token 1 (its turn.started on hz/state when `first_lands`); returns Bob's clone,
    which took the same slot over under token 2 once Ann's lease expired."""
    ann, token = holder(tmp_path, "ann", str(remote), AGENT)
    if first_lands:
        writer = StateWriter(ann, SETTINGS)
        writer.queue(started(AGENT, MINUTE, token, ts=STAMP), placed(AGENT, 1, token))
        assert len(writer.flush(NOW).landed) == 2
    bob, token = holder(tmp_path, "bob", str(remote), AGENT, now=LATER)
    assert token == 2
    return bob


def why(spelled: str) -> str:
    return f"slot {spelled} of {AGENT} was started already under token 1; token 2 runs it a second time"


@pytest.mark.parametrize("spelled", [MINUTE, SECOND])
def test_the_writer_reports_the_second_start_and_writes_the_rest(tmp_path: Path, guarded: Path, spelled: str) -> None:
    bob = two_runs(tmp_path, guarded)
    writer = StateWriter(bob, SETTINGS)
    second = started(AGENT, spelled, 2, ts=STAMP)
    draft = placed(AGENT, 1, 2)
    writer.queue(second, draft, finished(AGENT, SECOND, 2))
    result = writer.flush(LATER)
    assert result.clashed == {
        path_of(second): why(spelled),
        path_of(draft): f"draft.placed {draft.key} was written under token 1; token 2's copy is not",
    }
    assert sorted(e.kind for e in result.dropped) == ["draft.placed", "turn.started"]
    assert [e.kind for e in result.landed] == ["turn.finished"]
    assert (result.pending, result.fenced, result.pushes) == (0, set(), 1)
    assert len(writer.outbox) == 0  # reported once, not retried on every tick


def state_tip(clone: TeamRemote) -> str:
    tip = clone.fetch_tip(STATE_REF)
    assert tip is not None
    return tip


def adding(clone: TeamRemote, parent: str | None, *events: Event) -> str:
    """A commit as hz builds it, adding `events` on `parent` (the writer would not: plumbing)."""
    repo: pygit2.Repository = clone.repo
    base = repo[parent].peel(pygit2.Tree).id if parent else None
    tree = objects.write_tree(repo, base, {path_of(e): e.line() for e in events})
    message = f"hz-state: {len(events)} event{'s' if len(events) > 1 else ''}\n"
    return objects.make_commit(repo, tree, [parent] if parent else [], message, LATER)


def refusal(clone: TeamRemote, guarded: Path, commit: str) -> list[str]:
    proc = push(clone.root, guarded, f"{commit}:{STATE_REF}")
    assert proc.returncode == 1
    return remote_lines(proc.stderr)


@pytest.mark.parametrize("spelled", [MINUTE, SECOND])
def test_the_hook_refuses_a_second_start_on_the_branch(tmp_path: Path, guarded: Path, spelled: str) -> None:
    bob = two_runs(tmp_path, guarded)
    tip = state_tip(bob)
    second = started(AGENT, spelled, 2, ts=STAMP)
    commit = adding(bob, tip, second)
    assert refusal(bob, guarded, commit) == [
        "hz: the hz/state lint refuses this push:",
        f"{path_of(second)}:1:1  HZS021  {commit[:12]}",
        f"  {why(spelled)}",
        "  hint: a slot runs once: the runner that came second takes nothing (see `hz lease log ID` for who held it)",
    ]
    assert git("--git-dir", str(guarded), "rev-parse", STATE_REF).strip() == tip


def test_the_hook_refuses_a_second_start_earlier_in_the_same_push(tmp_path: Path, guarded: Path) -> None:
    bob = two_runs(tmp_path, guarded, first_lands=False)
    first, second = started(AGENT, MINUTE, 1, ts=STAMP), started(AGENT, SECOND, 2, ts=STAMP)
    one = adding(bob, None, first)
    two = adding(bob, one, second)
    heading = "hz: the hz/state lint refuses this push:"
    assert refusal(bob, guarded, two)[:3] == [heading, f"{path_of(second)}:1:1  HZS021  {two[:12]}", f"  {why(SECOND)}"]
    both = adding(bob, None, second, first)  # in one commit: the higher token is the second run
    assert refusal(bob, guarded, both)[:3] == [
        heading,
        f"{path_of(second)}:1:1  HZS021  {both[:12]}",
        f"  {why(SECOND)}",
    ]
    assert git("--git-dir", str(guarded), "for-each-ref", STATE_REF) == ""


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> pygit2.Repository:
    return pygit2.init_repository(str(tmp_path_factory.mktemp("store")), bare=True)


def on_branch(repo: pygit2.Repository, parent: str | None, event: Event) -> str:
    base = repo[parent].peel(pygit2.Tree).id if parent else None
    tree = objects.write_tree(repo, base, {path_of(event): event.line()})
    return objects.make_commit(repo, tree, [parent] if parent else [], "hz-state: 1 event\n", NOW)


def spelled(moment: datetime, to_the_minute: bool) -> str:
    return f"{moment:%Y-%m-%dT%H:%MZ}" if to_the_minute else f"{moment:%Y-%m-%dT%H:%M:%SZ}"


moments = st.datetimes(datetime(2000, 1, 1), datetime(2099, 12, 31)).map(lambda d: d.replace(microsecond=0))


@settings(max_examples=60, deadline=None)
@given(moments, st.booleans(), st.booleans(), st.integers(1, 10**6), st.integers(1, 10**6), st.booleans())
def test_a_second_start_of_one_instant_is_refused_in_any_spelling(
    store: pygit2.Repository, moment: datetime, minute_a: bool, minute_b: bool, a: int, b: int, same: bool
) -> None:
    """Two starts of one slot under two tokens: always HZS021, once, at the second; other slots pass."""
    if a == b:
        b += 1
    first_at = moment.replace(second=0) if minute_a or minute_b else moment
    second_at = first_at if same else first_at + timedelta(minutes=1)
    first = started(AGENT, spelled(first_at, minute_a), a, ts=STAMP)
    second = started(AGENT, spelled(second_at, minute_b), b, ts=STAMP)
    one = on_branch(store, None, first)
    two = on_branch(store, one, second)
    found = [(d.path, d.code) for d in lint_range(store, one, two)]
    assert found == ([(path_of(second), "HZS021")] if same else [])
