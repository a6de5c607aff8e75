"""Damaged lease refs, as a server without the hook (or a ref written before it) can hold them.

Each is pushed with git plumbing to a bare remote that has no hook. `hz lease list` shows the lease as
damaged and exits 1 with the way out, `hz lease acquire` exits 1 naming the damage, and the tick
reports the agent's error and goes on: none of them exits 3.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from hz.gitstate.types import format_utc
from tests.gitstate.factory import hz_id, new_clone
from tests.gitstate.lease_plumbing import (
    LEASE,
    REF,
    commit,
    lease_commit,
    lease_tree,
    line,
    push,
    record,
    tag,
    tree,
)

HINT = (
    "  hint: members cannot repair it (the pre-receive hook refuses deleting a lease): an admin of the server "
    f"deletes the ref there, e.g. `git update-ref -d {REF}` in the bare repository, and the next acquire "
    "starts the lease again\n"
)
NOT_A_RECORD = "lease.json is not a lease record"

# each builds the damaged object in a clone and says why hz calls it damaged ("{c}": its short id)
DAMAGES: dict[str, tuple[Callable[[Path], str], str]] = {
    "a tag object": (lambda c: tag(c, lease_commit(c, record())), "{c} is a tag, not a commit"),
    "a tree object": (lambda c: lease_tree(c, line(record())), "{c} is a tree, not a commit"),
    "no lease.json": (
        lambda c: commit(c, tree(c, []), [], b"lease\n"),
        "a lease commit's tree holds lease.json (a plain file) and nothing else",
    ),
    "a non-canonical record": (
        lambda c: lease_commit(c, record(), data=line(record()).replace(b'":', b'": ')),
        "lease.json is not in canonical form (hz writes RFC 8785 JSON and a newline)",
    ),
    "an address as holder": (
        lambda c: lease_commit(c, record(holder="priya@example.com")),
        f"{NOT_A_RECORD} (holder: not of its field's shape)",
    ),
    "token 2**53-1": (
        lambda c: lease_commit(c, record(token=2**53 - 1)),
        f"{NOT_A_RECORD} (token: Input should be less than or equal to 2147483647)",
    ),
    "until year 9999": (
        lambda c: lease_commit(c, record(expires="9999-12-31T23:59:59Z")),
        "expires 9999-12-31T23:59:59Z is outside 2000-2099",
    ),
}


@pytest.fixture
def team(repo: Path, bare: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (repo / "hz.toml").write_text(f'[state]\nremote = "{bare}"\nclock_skew_s = 0\n')
    monkeypatch.setenv("HZ_HANDLE", "@ann")
    return repo


def plant(tmp_path: Path, bare: Path, build: Callable[[Path], str]) -> str:
    """Push the damaged object straight to the hookless remote; its id."""
    clone = new_clone(tmp_path / "attacker")
    oid = build(clone)
    assert push(clone, bare, f"{oid}:{REF}").returncode == 0
    return oid


@pytest.mark.parametrize("damage", DAMAGES.values(), ids=list(DAMAGES))
def test_list_shows_a_damaged_lease_and_exits_1(
    tmp_path: Path, team: Path, bare: Path, hz: Any, damage: tuple[Callable[[Path], str], str]
) -> None:
    build, why = damage
    oid = plant(tmp_path, bare, build)
    reason = why.format(c=oid[:12])
    listed = hz("lease", "list")
    assert (listed.exit_code, listed.out) == (1, f"{LEASE}  damaged: {reason}\n")
    assert listed.err == f"error: 1 damaged lease ref on {bare}: {LEASE}\n{HINT}"
    as_json = hz("lease", "list", "--json")
    assert as_json.exit_code == 1
    assert json.loads(as_json.out) == [{"lease": LEASE, "tip": oid, "damaged": reason}]


@pytest.mark.parametrize("damage", DAMAGES.values(), ids=list(DAMAGES))
def test_acquire_of_a_damaged_lease_exits_1(
    tmp_path: Path, team: Path, bare: Path, hz: Any, damage: tuple[Callable[[Path], str], str]
) -> None:
    build, why = damage
    oid = plant(tmp_path, bare, build)
    result = hz("lease", "acquire", LEASE, "--slot", "2026-10-30T15:00:00Z")
    assert (result.exit_code, result.out) == (1, "")
    assert result.err == f"error: lease ref {REF} is damaged: {why.format(c=oid[:12])}\n{HINT}"


def test_a_healthy_lease_lists_beside_a_damaged_one(tmp_path: Path, team: Path, bare: Path, hz: Any) -> None:
    assert hz("lease", "acquire", hz_id(1), "--slot", "2026-10-30T15:00:00Z").exit_code == 0
    plant(tmp_path, bare, DAMAGES["no lease.json"][0])
    listed = hz("lease", "list")
    first, second = listed.out.splitlines()
    assert (listed.exit_code, first.split()[:2]) == (1, [hz_id(1), "@ann/" + machine()])
    assert second == f"{LEASE}  damaged: a lease commit's tree holds lease.json (a plain file) and nothing else"
    rows = json.loads(hz("lease", "list", "--json").out)
    assert [(r["lease"], r["damaged"] is None) for r in rows] == [(hz_id(1), True), (LEASE, False)]


def test_a_token_at_the_bound_cannot_be_taken_over(tmp_path: Path, team: Path, bare: Path, hz: Any) -> None:
    """A proper record whose token leaves no room for one more: listed, but no one can take it over."""
    past = datetime.now(UTC) - timedelta(hours=2)
    plant(tmp_path, bare, lambda c: lease_commit(c, record(past, token=2**31 - 1)))
    assert hz("lease", "list").exit_code == 0
    result = hz("lease", "acquire", LEASE, "--slot", format_utc(past))
    assert (result.exit_code, result.out) == (1, "")
    assert result.err == f"error: lease ref {REF} is damaged: token 2147483647 leaves no room\n{HINT}"


def machine() -> str:
    import os

    return (Path(os.environ["HZ_HOME"]) / "machine-id").read_text().strip()


def test_the_tick_reports_the_damaged_lease_and_runs_nothing(tmp_path: Path) -> None:
    from hz.tick.daemon import tick
    from tests.gitstate.factory import git
    from tests.turn.test_team import CONTRACT_ID, MONDAY, member

    bare = tmp_path / "team.git"
    git("init", "-q", "--bare", str(bare))
    seed = new_clone(tmp_path / "seed")
    (seed / "hz.toml").write_text(f'[state]\nremote = "{bare}"\n')
    git("add", "hz.toml", cwd=seed)
    git("commit", "-q", "-m", "team repo", cwd=seed)
    git("push", "-q", str(bare), "HEAD:main", cwd=seed)
    lease = f"hz-{CONTRACT_ID}"
    planted = tag(seed, lease_commit(seed, record(lease=lease)))
    assert push(seed, bare, f"{planted}:refs/hz/lease/{lease}").returncode == 0
    priya, environ = member(tmp_path, "priya", bare)
    report = tick(root=priya, environ=environ, now=MONDAY)
    error = f"lease ref refs/hz/lease/{lease} is damaged: {planted[:12]} is a tag, not a commit"
    assert [(e["action"], e.get("error")) for e in report.woken] == [("error", error)]
    assert report.pushed is False
    assert (
        git("--git-dir", str(bare), "for-each-ref", "--format=%(refname)")
        == f"refs/heads/main\nrefs/hz/lease/{lease}\n"
    )


def test_a_hold_longer_than_the_hooks_ceiling_is_refused_before_pushing(team: Path, hz: Any, bare: Path) -> None:
    (team / "hz.toml").write_text(f'[state]\nremote = "{bare}"\nlease_ttl_s = 90000\n')
    result = hz("lease", "acquire", LEASE, "--slot", "2026-10-30T15:00:00Z")
    assert (result.exit_code, result.out) == (1, "")
    assert result.err == (
        "error: a lease may be held 86400 s at most, not 90000 s\n"
        "  hint: lower [state] lease_ttl_s in hz.toml (or --ttl); a turn renews its lease as it goes\n"
    )
    assert hz("lease", "list").out == f"no leases on {bare}\n"
