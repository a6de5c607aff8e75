"""`hz state lint --since`: only the commits after a tip linted before, judged as the full lint judges them."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pygit2
import pytest

from hz.gitstate import objects
from hz.gitstate.events import Event, path_of
from tests.gitstate.factory import git, hz_id, placed

SLOT = "2026-10-30T15:00:00Z"
AGENT, OLD = hz_id(5), hz_id(7)
NOW = datetime(2026, 10, 30, tzinfo=UTC)
ZEROS = "0" * 40


@pytest.fixture
def team(repo: Path, bare: Path, monkeypatch: pytest.MonkeyPatch, hz: Any) -> Path:
    """A clone whose hz/state holds 20 commits of 10 events each, and AGENT's lease chain (token 1 given)."""
    (repo / "hz.toml").write_text(f'[state]\nremote = "{bare}"\nclock_skew_s = 0\n')
    monkeypatch.setenv("HZ_HANDLE", "@ann")
    assert hz("lease", "acquire", AGENT, "--slot", SLOT).exit_code == 0
    git("fetch", "-q", str(bare), "+refs/hz/lease/*:refs/hz/lease/*", cwd=repo)  # as the workflow does
    pygit = pygit2.Repository(str(repo))
    tip = None
    for batch in range(20):
        tip = _commit(pygit, tip, [placed(OLD, batch * 10 + n, 1) for n in range(10)])
    assert tip is not None
    objects.set_ref(pygit, "refs/heads/hz/state", tip)
    return repo


def _commit(repo: pygit2.Repository, parent: str | None, events: list[Event], lines: list[bytes] | None = None) -> str:
    base = repo[parent].peel(pygit2.Tree).id if parent is not None else None
    files = {path_of(e): line for e, line in zip(events, lines or [e.line() for e in events], strict=True)}
    tree = objects.write_tree(repo, base, files)
    message = f"hz-state: {len(events)} event{'s' if len(events) != 1 else ''}\n"
    return objects.make_commit(repo, tree, [parent] if parent else [], message, NOW)


def _push(team: Path, events: list[Event], lines: list[bytes] | None = None) -> tuple[str, str]:
    """One new commit on hz/state: (the tip before it, the new tip)."""
    repo = pygit2.Repository(str(team))
    before = str(repo.references["refs/heads/hz/state"].target)
    after = _commit(repo, before, events, lines)
    objects.set_ref(repo, "refs/heads/hz/state", after)
    return before, after


def test_only_the_new_commit_is_read(team: Path, hz: Any) -> None:
    before, _ = _push(team, [placed(AGENT, 1, 1)])
    result = hz("state", "lint", "--since", before)
    assert (result.exit_code, result.out, result.err) == (
        0,
        "hz/state: clean\n",
        f"hz state lint: 1 commit, 1 event since {before[:12]}\n",
    )
    whole = hz("state", "lint", "--since", ZEROS)  # a push that created the branch: all of it
    assert (whole.exit_code, whole.out, whole.err) == (
        0,
        "hz/state: clean\n",
        "hz state lint: no earlier tip; linting all of hz/state\nhz state lint: 21 commits, 201 events\n",
    )


def test_a_bad_new_commit_is_refused_with_the_lease_chains_in_view(team: Path, hz: Any) -> None:
    good, bad = placed(AGENT, 1, 1), placed(AGENT, 2, 2)  # token 2: the chain gave only token 1
    texty = placed(AGENT, 3, 1)
    line = texty.line().replace(b'"hash":', b'"summary":"all good","hash":')
    before, after = _push(team, [good, bad, texty], [good.line(), bad.line(), line])
    result = hz("state", "lint", "--since", before, "--json")
    assert result.exit_code == 1
    assert result.err == f"hz state lint: 1 commit, 3 events since {before[:12]}\n"
    found = [(d["path"], d["code"]) for d in json.loads(result.out)]
    assert sorted(found) == sorted([(path_of(bad), "HZS017"), (path_of(texty), "HZS008")])
    assert hz("state", "lint", "--since", after).err == f"hz state lint: 0 commits, 0 events since {after[:12]}\n"


def test_a_tip_this_clone_cannot_vouch_for_means_the_whole_branch(team: Path, hz: Any) -> None:
    repo = pygit2.Repository(str(team))
    old_tip = str(repo.references["refs/heads/hz/state"].target)
    sibling = _commit(repo, str(repo[old_tip].parents[0].id), [placed(AGENT, 9, 1)])  # history rewritten
    unknown = "1234567" * 5 + "89abc"
    cases = [
        (unknown, f"{unknown} is not a commit in this clone"),
        ("--upload-pack=touch pwned", "--upload-pack=touch pwned is not a commit in this clone"),
        (sibling, f"{sibling} is not an ancestor of the tip"),
    ]
    for rev, why in cases:
        result = hz("state", "lint", "--since", rev)
        assert (result.exit_code, result.err) == (
            0,
            f"hz state lint: {why}; linting all of hz/state\nhz state lint: 20 commits, 200 events\n",
        )


def test_range_and_since_do_not_mix(team: Path, hz: Any) -> None:
    result = hz("state", "lint", "--since", ZEROS, "--range", "..hz/state")
    assert (result.exit_code, result.err) == (
        1,
        "error: give --range or --since, not both\n  hint: --since X lints X..hz/state\n",
    )
