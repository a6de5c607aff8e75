"""`hz state` and `hz lease` end to end, in process, against a bare remote named in hz.toml."""

from __future__ import annotations

import json
import os
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pygit2
import pytest

from hz.gitstate import objects
from hz.gitstate.events import path_of
from hz.gitstate.remote import TeamRemote
from hz.gitstate.settings import StateSettings
from hz.gitstate.writer import StateWriter
from tests.gitstate.factory import finished, git, hz_id, placed, started

SLOT = "2026-10-30T15:00:00Z"
AGENT = hz_id(5)


@pytest.fixture
def team(repo: Path, bare: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (repo / "hz.toml").write_text(f'[state]\nremote = "{bare}"\nclock_skew_s = 0\n')
    monkeypatch.setenv("HZ_HANDLE", "@ann")
    return repo


def ann() -> str:
    """@ann on this test's machine (every test has its own HZ_HOME, so its own machine id)."""
    return "@ann/" + (Path(os.environ["HZ_HOME"]) / "machine-id").read_text().strip()


def test_acquire_prints_the_winner_then_the_holder(team: Path, hz: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    won = hz("lease", "acquire", AGENT, "--slot", SLOT, "--ttl", "600")
    assert won.exit_code == 0
    assert re.fullmatch(rf"won {AGENT} token 1 until \d{{4}}-\d\d-\d\dT\d\d:\d\d:\d\dZ\n", won.out)
    monkeypatch.setenv("HZ_HANDLE", "@bob")
    held = hz("lease", "acquire", AGENT, "--slot", SLOT)
    assert held.exit_code == 1
    assert held.out == f"held by {ann()} (owner, token 1) until {won.out.split()[-1]}\n"


def test_delegates_are_told_when_their_turn_comes(team: Path, hz: Any) -> None:
    result = hz("lease", "acquire", AGENT, "--slot", "2099-01-01T00:00:00Z", "--role", "delegate")
    assert (result.exit_code, result.out) == (1, "not yet: the owner goes first until 2099-01-01T00:10:00Z\n")


def test_list_renew_release(team: Path, hz: Any, bare: Path) -> None:
    assert hz("lease", "list").out == f"no leases on {bare}\n"
    assert hz("lease", "list", "--json").out == "[]\n"
    assert hz("lease", "acquire", AGENT, "--slot", SLOT).exit_code == 0
    listed = json.loads(hz("lease", "list", "--json").out)
    assert [(r["lease"], r["holder"], r["token"], r["state"]) for r in listed] == [(AGENT, ann(), 1, "held")]
    assert hz("lease", "renew", AGENT).out.startswith(f"renewed {AGENT} token 1 until ")
    assert hz("lease", "release", AGENT).out.startswith(f"released {AGENT} token 1 until ")
    text = hz("lease", "list").out
    assert text.startswith(f"{AGENT}  {ann()}") and " released at " in text


def test_renewing_a_lease_not_held_is_an_error(team: Path, hz: Any) -> None:
    result = hz("lease", "renew", AGENT)
    assert (result.exit_code, result.err) == (
        1,
        f"error: this machine holds no lease {AGENT}\n  hint: acquire it first: hz lease acquire\n",
    )


def test_bad_ids_slots_and_missing_handles(team: Path, hz: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    bad_id = hz("lease", "acquire", "weekly-report", "--slot", SLOT)
    assert (bad_id.exit_code, bad_id.err) == (
        1,
        "error: not a Heinzelmännchen id: 'weekly-report'\n  hint: ids look like hz-01JB… (26 characters)\n",
    )
    assert hz("lease", "acquire", AGENT, "--slot", "friday").err.startswith("error: --slot 'friday' is not a UTC time")
    monkeypatch.delenv("HZ_HANDLE")
    nobody = hz("lease", "acquire", AGENT, "--slot", SLOT)
    assert (nobody.exit_code, nobody.err) == (
        1,
        "error: no handle: hz does not know who you are\n"
        '  hint: set [user] handle = "@you" in config.toml, or HZ_HANDLE\n',
    )


def test_unknown_hz_toml_key_is_a_config_error(team: Path, hz: Any) -> None:
    (team / "hz.toml").write_text("[state]\nttl = 5\n")
    result = hz("lease", "list")
    assert result.exit_code == 1
    assert result.err.startswith(f"error: {team / 'hz.toml'}: unknown key state.ttl\n  hint: known keys: remote, ")


def write_events(team: Path, hz: Any, bare: Path) -> None:
    assert hz("lease", "acquire", AGENT, "--slot", SLOT).exit_code == 0
    remote = TeamRemote(team, str(bare))
    writer = StateWriter(remote, StateSettings())
    writer.queue(started(AGENT, SLOT, 1), finished(AGENT, SLOT, 1), placed(hz_id(6), 1, 1))
    result = writer.flush(datetime.now(UTC))
    assert (len(result.landed), result.fenced) == (2, {hz_id(6)})  # no lease for hz_id(6): never written


def test_state_log_and_lint_of_a_written_branch(team: Path, hz: Any, bare: Path) -> None:
    assert hz("state", "log").out == "hz/state: no events yet\n"
    write_events(team, hz, bare)
    log = hz("state", "log")
    assert log.out == (
        f"{SLOT}  turn.started       {AGENT}@{SLOT}  token 1  {ann()} (owner)\n"
        f"{SLOT}  turn.finished      {AGENT}@{SLOT}  token 1  {ann()} (owner)\n"
    )
    as_json = json.loads(hz("state", "log", "--json", "--id", AGENT).out)
    assert [(e["event"]["kind"], e["void"], e["holder"], e["role"]) for e in as_json] == [
        ("turn.started", False, ann(), "owner"),
        ("turn.finished", False, ann(), "owner"),
    ]
    assert hz("state", "log", "--id", hz_id(6)).out == ""
    lint = hz("state", "lint")  # what `hz state log` fetched
    assert (lint.exit_code, lint.out) == (0, "hz/state: clean\n")
    git("fetch", "-q", str(bare), "hz/state:hz/state", cwd=team)
    assert hz("state", "lint", "--range", "..hz/state", "--json").out == "[]\n"


def test_state_lint_reports_findings_with_exit_1(team: Path, hz: Any) -> None:
    repo = pygit2.Repository(str(team))
    event = started(AGENT, SLOT, 1)
    line = event.line().replace(b'"role":"owner"', b'"role":"owner","summary":"all good"')
    tree = objects.write_tree(repo, None, {path_of(event): line})
    tip = objects.make_commit(repo, tree, [], "hz-state: 1 event\n", datetime(2026, 10, 30, tzinfo=UTC))
    objects.set_ref(repo, "refs/heads/hz/state", tip)
    result = hz("state", "lint")
    assert result.exit_code == 1
    column = line.decode().index('"summary"') + 1
    assert result.out == (
        f"{path_of(event)}:1:{column}  HZS008  {tip[:12]} data.summary\n  field 'summary' is named like text\n"
        "  hint: hz/state holds ids, hashes, numbers and enums, never text\n"
    )
    assert [d["code"] for d in json.loads(hz("state", "lint", "--json").out)] == ["HZS008"]
    assert hz("state", "lint", "--range", "nope").err == (
        "error: not a range: 'nope'\n  hint: give A..B, e.g. --range origin/hz/state..hz/state\n"
    )


def test_stale_tokens_are_void_in_the_log(team: Path, hz: Any) -> None:
    repo = pygit2.Repository(str(team))
    newer, stale = placed(AGENT, 1, 2), placed(AGENT, 2, 1)
    now = datetime(2026, 10, 30, tzinfo=UTC)
    first = objects.make_commit(repo, objects.write_tree(repo, None, {path_of(newer): newer.line()}), [],
                                "hz-state: 1 event\n", now)  # fmt: skip
    base = repo[first].peel(pygit2.Tree).id
    second = objects.make_commit(repo, objects.write_tree(repo, base, {path_of(stale): stale.line()}), [first],
                                 "hz-state: 1 event\n", now)  # fmt: skip
    objects.set_ref(repo, "refs/heads/hz/state", second)
    out = hz("state", "log", "--no-fetch").out.splitlines()
    assert out == [
        f"2026-10-30T00:00:00Z  draft.placed       {newer.key}  token 2",
        f"2026-10-30T00:00:00Z  draft.placed       {stale.key}  token 1  VOID (stale token)",
    ]


def test_an_unreachable_remote_is_an_error_with_a_hint(team: Path, hz: Any, tmp_path: Path) -> None:
    result = hz("lease", "acquire", AGENT, "--slot", SLOT, "--remote", str(tmp_path / "missing.git"))
    assert result.exit_code == 1
    first, *_, last = result.err.splitlines()
    assert first.startswith("error: git fetch failed: fatal: '") and "does not appear to be a git repository" in first
    assert last == "  hint: check the remote ([state] remote in hz.toml, or --remote) and your access to it"
