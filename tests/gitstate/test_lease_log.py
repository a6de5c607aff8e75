"""Who ran what: `hz lease log ID` shows a lease's chain, and `hz state log` the holder and role per event.

Through the real CLI against a bare remote named in hz.toml; what the remote holds is read back with
git itself, so the expected output does not come from the code under test.
"""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from hz.gitstate.remote import TeamRemote
from hz.gitstate.settings import StateSettings
from hz.gitstate.writer import StateWriter
from tests.gitstate.factory import finished, git, hz_id, new_clone, started
from tests.gitstate.lease_plumbing import LEASE, REF, lease_commit, push, record

AGENT = hz_id(5)
SLOT = "2026-10-30T15:00:00Z"
HINT = (
    "  hint: members cannot repair it (the pre-receive hook refuses deleting a lease): an admin of the server "
    "deletes the ref there, e.g. `git update-ref -d {ref}` in the bare repository, and the next acquire "
    "starts the lease again\n"
)


@pytest.fixture
def team(repo: Path, bare: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (repo / "hz.toml").write_text(f'[state]\nremote = "{bare}"\nclock_skew_s = 0\n')
    monkeypatch.setenv("HZ_HANDLE", "@ann")
    return repo


def machine() -> str:
    return (Path(os.environ["HZ_HOME"]) / "machine-id").read_text().strip()


def on_remote(bare: Path, ref: str) -> list[tuple[str, dict[str, Any]]]:
    """The chain as git shows it: (commit, record) newest first."""
    commits = git("--git-dir", str(bare), "rev-list", "--first-parent", ref).split()
    return [(c, json.loads(git("--git-dir", str(bare), "show", f"{c}:lease.json"))) for c in commits]


def row(commit: str, r: dict[str, Any], finished: str | None = None) -> str:
    state = f"finished {finished}" if finished else r["state"]
    return (
        f"{commit[:12]}  token {r['token']:<5} {r['holder']:<22} {r['role']:<8} slot {r['slot']}  "
        f"acquired {r['acquired']}  expires {r['expires']}  {state}"
    )


def write(team: Path, bare: Path, *events: Any) -> None:
    writer = StateWriter(TeamRemote(team, str(bare)), StateSettings())
    writer.queue(*events)
    assert len(writer.flush(datetime.now(UTC)).landed) == len(events)


def test_a_slot_taken_twice_shows_in_both_logs(
    team: Path, bare: Path, hz: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert hz("lease", "acquire", AGENT, "--slot", SLOT, "--ttl", "600").exit_code == 0
    write(team, bare, started(AGENT, SLOT, 1))
    assert hz("lease", "release", AGENT).exit_code == 0
    monkeypatch.setenv("HZ_HANDLE", "@bob")
    assert hz("lease", "acquire", AGENT, "--slot", SLOT, "--ttl", "600").exit_code == 0
    write(team, bare, finished(AGENT, SLOT, 2))

    chain = on_remote(bare, f"refs/hz/lease/{AGENT}")
    ann, bob = f"@ann/{machine()}", f"@bob/{machine()}"
    assert [(r["token"], r["holder"], r["state"]) for _, r in chain] == [
        (2, bob, "held"),  # the push that carried Bob's turn.finished ended his term with no commit
        (1, ann, "released"),
        (1, ann, "held"),  # the renewal that rode with Ann's receipts
        (1, ann, "held"),
    ]
    ends = [SLOT, None, None, None]  # Bob's term shows the time of the turn.finished that ended it
    shown = hz("lease", "log", AGENT)
    expected = "".join(row(c, r, end) + "\n" for (c, r), end in zip(chain, ends, strict=True))
    assert (shown.exit_code, shown.out, shown.err) == (0, expected, "")
    as_json = json.loads(hz("lease", "log", AGENT, "--json").out)
    assert as_json == [
        {"commit": c, **r, "damaged": None, "finished": end} for (c, r), end in zip(chain, ends, strict=True)
    ]
    limited = hz("lease", "log", AGENT, "--limit", "1")
    assert limited.out == row(*chain[0], SLOT) + "\n(older commits not shown: --limit 1)\n"

    log = hz("state", "log")
    assert (log.exit_code, log.out) == (
        0,
        f"{SLOT}  turn.started       {AGENT}@{SLOT}  token 1  {ann} (owner)\n"
        f"{SLOT}  turn.finished      {AGENT}@{SLOT}  token 2  {bob} (owner)\n",
    )
    rows = json.loads(hz("state", "log", "--json").out)
    assert [(e["event"]["token"], e["holder"], e["role"]) for e in rows] == [(1, ann, "owner"), (2, bob, "owner")]


def test_a_damaged_commit_in_the_chain_is_shown_and_exits_1(tmp_path: Path, team: Path, bare: Path, hz: Any) -> None:
    clone = new_clone(tmp_path / "attacker")
    first = lease_commit(clone, record())
    bad = lease_commit(clone, record(token=2), first, message=b"taken\n")
    assert push(clone, bare, f"{bad}:{REF}").returncode == 0
    [(_, healthy)] = on_remote(bare, first)
    shown = hz("lease", "log", LEASE)
    why = "the message is not hz's (hz writes 'lease " + LEASE + " token 2 held')"
    assert (shown.exit_code, shown.out) == (1, f"{bad[:12]}  damaged: {why}\n{row(first, healthy)}\n")
    assert shown.err == f"error: 1 damaged commit in lease ref {REF} on {bare}: {bad[:12]}\n" + HINT.format(ref=REF)
    as_json = json.loads(hz("lease", "log", LEASE, "--json").out)
    assert as_json == [{"commit": bad, "damaged": why}, {"commit": first, **healthy, "damaged": None, "finished": None}]


def test_a_lease_that_is_not_there_and_an_id_that_is_none(team: Path, bare: Path, hz: Any) -> None:
    missing = hz("lease", "log", AGENT)
    assert (missing.exit_code, missing.out) == (1, "")
    assert missing.err == f"error: no lease {AGENT} on {bare}\n  hint: hz lease list shows the leases there\n"
    bad = hz("lease", "log", "weekly-report")
    assert (bad.exit_code, bad.err) == (
        1,
        "error: not a Heinzelmännchen id: 'weekly-report'\n  hint: ids look like hz-01JB… (26 characters)\n",
    )
