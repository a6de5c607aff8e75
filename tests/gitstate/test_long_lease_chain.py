"""A lease chain of 10,000 commits (issue 20, point 12): the hook and the readers read a bounded part of it.

A holder that keeps its lease keeps its token, so the chain of one busy contract grows by a commit per
renewal under token 1. The chain is written straight into the hooked remote (months of renewals), then
events are pushed through the hook and read back in a clone.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pygit2
import pytest

from hz.gitstate import objects
from hz.gitstate.events import path_of
from hz.gitstate.lease_record import LeaseRecord
from hz.gitstate.lint_fence import MAX_RECORDS, Grants
from hz.gitstate.types import format_utc
from tests.gitstate import plumbing
from tests.gitstate.factory import git, started
from tests.gitstate.test_attack_state import (
    AGENT,
    Team,
    findings,
    team,  # noqa: F401  (the fixture, fetched by name below)
)

LENGTH = 10_000
NEWEST = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)


def chain(bare: Path) -> str:
    """LENGTH lease commits under token 1, one slot every five minutes, the newest at NEWEST; the tip."""
    repo = objects.open_repo(bare)
    parents: list[Any] = []
    for i in range(LENGTH):
        slot = NEWEST - timedelta(minutes=5 * (LENGTH - 1 - i))
        record = LeaseRecord(lease=AGENT, holder="@ann", role="owner", token=1, slot=format_utc(slot),
                             acquired=format_utc(slot), expires=format_utc(slot + timedelta(minutes=10)))  # fmt: skip
        tree = objects.write_tree(repo, None, {"lease.json": record.line()})
        parents = [objects.make_commit(repo, tree, parents, f"lease {AGENT} token 1 held\n", slot)]
    objects.set_ref(repo, f"refs/hz/lease/{AGENT}", parents[0])
    return str(parents[0])


@pytest.mark.slow
def test_events_under_a_ten_thousand_commit_chain_are_checked_within_its_horizon(
    request: pytest.FixtureRequest, hz: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    setup: Team = request.getfixturevalue("team")
    tip = chain(setup.remote)
    grants = Grants(pygit2.Repository(str(setup.remote)), tip, current=True)
    assert (len(grants.slots(1)), grants.cut) == (MAX_RECORDS, True)  # read: the horizon, not the chain

    fresh = started(AGENT, format_utc(NEWEST), 1)
    files = {**setup.files, path_of(fresh): fresh.line()}
    new = plumbing.commit(setup.clone, plumbing.tree(setup.clone, plumbing.nested(files)), (setup.base,))  # type: ignore[arg-type]
    done = plumbing.push(setup.clone, setup.remote, f"{new}:refs/heads/hz/state")
    assert done.returncode == 0, done.stderr

    old_slot = format_utc(NEWEST - timedelta(minutes=5 * (LENGTH - 1)))  # the chain's first slot, past the horizon
    old = started(AGENT, old_slot, 1)
    both = plumbing.nested({**files, path_of(old): old.line()})
    late = plumbing.commit(setup.clone, plumbing.tree(setup.clone, both), (new,))  # type: ignore[arg-type]
    refused = plumbing.push(setup.clone, setup.remote, f"{late}:refs/heads/hz/state")
    assert refused.returncode == 1
    assert findings(plumbing.remote_lines(refused.stderr)) == [
        ("HZS017", f"token 1 of lease {AGENT} was not given for slot {old_slot.removesuffix('Z')}Z")
    ]

    git("-C", str(setup.clone), "fetch", "-q", str(setup.remote), "+refs/hz/lease/*:refs/hz/lease/*",
        "+refs/heads/hz/state:refs/heads/hz/state")  # fmt: skip
    monkeypatch.chdir(setup.clone)
    log = hz("state", "log", "--no-fetch", "--json", "--remote", str(setup.remote))
    assert log.exit_code == 0, log.err
    assert hz("state", "lint").exit_code == 0
