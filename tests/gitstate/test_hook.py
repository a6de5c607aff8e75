"""The pre-receive hook: a hook-guarded bare remote refuses text, addresses and rewrites on hz/state."""

from __future__ import annotations

import json
import subprocess
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pygit2
import pytest

from hz.gitstate import objects
from hz.gitstate.events import path_of
from hz.gitstate.lease_record import LeaseRecord
from tests.gitstate.factory import git, hz_id, new_clone, placed, started

NOW = datetime(2026, 10, 30, 15, tzinfo=UTC)
EVENT = started(hz_id(1), "2026-10-30T15:00:00Z", 1)
PATH = path_of(EVENT)


@pytest.fixture
def guarded(bare: Path, hz: Any) -> Path:
    result = hz("state", "install-hook", str(bare))
    assert (result.exit_code, result.out) == (0, f"installed {bare / 'hooks' / 'pre-receive'}\n")
    return bare


def commit(clone: Path, parent: str | None, files: dict[str, bytes], message: str = "hz-state: 1 event\n") -> str:
    repo = pygit2.Repository(str(clone))
    base = repo[parent].peel(pygit2.Tree).id if parent else None
    tree = objects.write_tree(repo, base, files)
    return objects.make_commit(repo, tree, [parent] if parent else [], message, NOW)


def lease(clone: Path, agent: str, token: int = 1, slot: str = "2026-10-30T15:00:00Z") -> str:
    """A lease commit as hz writes it, so events under (agent, token) have the chain the hook asks for."""
    record = LeaseRecord(lease=agent, holder="@ann", role="owner", token=token, slot=slot,
                         acquired="2026-10-30T14:59:00Z", expires="2026-10-30T15:09:00Z")  # fmt: skip
    message = f"lease {agent} token {token} held\n"
    return commit(clone, None, {"lease.json": record.line()}, message=message)


def push(clone: Path, remote: Path | str, *refspecs: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", "-C", str(clone), "push", "--porcelain", str(remote), *refspecs],
                          capture_output=True, text=True, check=False)  # fmt: skip


def with_data(**extra: Any) -> bytes:
    raw = json.loads(EVENT.line())
    raw["data"].update(extra)
    return json.dumps(raw, separators=(",", ":")).encode() + b"\n"


def remote_lines(stderr: str) -> list[str]:
    return [line.removeprefix("remote: ").rstrip() for line in stderr.splitlines() if line.startswith("remote: ")]


def test_a_clean_push_is_accepted_and_fast_forwards(tmp_path: Path, guarded: Path) -> None:
    clone = new_clone(tmp_path / "c")
    first = commit(clone, None, {PATH: EVENT.line()})
    second = commit(clone, first, {path_of(placed(hz_id(1), 1, 1)): placed(hz_id(1), 1, 1).line()})
    held = lease(clone, hz_id(1))
    assert push(clone, guarded, f"{first}:refs/heads/hz/state", f"{held}:refs/hz/lease/{hz_id(1)}").returncode == 0
    assert push(clone, guarded, f"{second}:refs/heads/hz/state").returncode == 0
    assert git("--git-dir", str(guarded), "rev-parse", "hz/state").strip() == second


def test_a_text_field_is_refused_with_the_lints_message(tmp_path: Path, guarded: Path, remote_url: str) -> None:
    clone = new_clone(tmp_path / "c")
    bad = commit(clone, None, {PATH: with_data(text="the weekly report said we shipped")})
    proc = push(clone, remote_url, f"{bad}:refs/heads/hz/state")
    assert proc.returncode == 1
    assert f"!\t{bad}:refs/heads/hz/state\t[remote rejected] (pre-receive hook declined)" in proc.stdout
    column = with_data(text="x").decode().index('"text"') + 1
    assert remote_lines(proc.stderr)[:4] == [
        "hz: the hz/state lint refuses this push:",
        f"{PATH}:1:{column}  HZS008  {bad[:12]} data.text",
        "  field 'text' is named like text",
        "  hint: hz/state holds ids, hashes, numbers and enums, never text",
    ]
    assert git("--git-dir", str(guarded), "for-each-ref", "refs/heads") == ""


def test_an_email_address_is_refused(tmp_path: Path, guarded: Path) -> None:
    clone = new_clone(tmp_path / "c")
    raw = json.loads(EVENT.line())
    raw["key"] = raw["data"]["keys"][0] = f"{hz_id(1)}@priya@acme.example.com"
    data = json.dumps(raw, separators=(",", ":")).encode() + b"\n"
    bad = commit(clone, None, {PATH: data})
    proc = push(clone, guarded, f"{bad}:refs/heads/hz/state")
    assert proc.returncode == 1
    lines = remote_lines(proc.stderr)
    assert lines[1].split("  ")[1:] == ["HZS010", bad[:12]]
    assert lines[2] == "  something shaped like an e-mail address"


def test_a_rewritten_line_and_a_rewound_branch_are_refused(tmp_path: Path, guarded: Path) -> None:
    clone = new_clone(tmp_path / "c")
    first = commit(clone, None, {PATH: EVENT.line()})
    held = lease(clone, hz_id(1))
    assert push(clone, guarded, f"{first}:refs/heads/hz/state", f"{held}:refs/hz/lease/{hz_id(1)}").returncode == 0
    rewrite = commit(
        clone, first, {PATH: started(hz_id(1), "2026-10-30T15:00:00Z", 1, ts="2026-10-30T15:00:09Z").line()}
    )
    proc = push(clone, guarded, f"{rewrite}:refs/heads/hz/state")
    assert proc.returncode == 1
    assert remote_lines(proc.stderr)[1:3] == [f"{PATH}:1:1  HZS002  {rewrite[:12]}", "  line changed"]
    other_root = commit(clone, None, {path_of(placed(hz_id(1), 1, 1)): placed(hz_id(1), 1, 1).line()})
    proc = push(clone, guarded, f"+{other_root}:refs/heads/hz/state")
    assert proc.returncode == 1
    assert remote_lines(proc.stderr)[1:3] == [
        "refs/heads/hz/state:1:1  HZS013  refs/heads/hz/state",
        "  hz/state may not be rewritten (not a fast-forward)",
    ]
    proc = push(clone, guarded, ":refs/heads/hz/state")
    assert remote_lines(proc.stderr)[2] == "  hz/state may not be deleted"
    assert git("--git-dir", str(guarded), "rev-parse", "hz/state").strip() == first


def test_a_lease_is_never_deleted_or_rewound(tmp_path: Path, guarded: Path, hz: Any, monkeypatch: Any) -> None:
    clone = new_clone(tmp_path / "c")
    monkeypatch.chdir(clone)
    monkeypatch.setenv("HZ_HANDLE", "@ann")
    assert hz("lease", "acquire", hz_id(1), "--slot", "2026-10-30T15:00:00Z", "--remote", str(guarded)).exit_code == 0
    proc = push(clone, guarded, f":refs/hz/lease/{hz_id(1)}")
    assert proc.returncode == 1
    assert remote_lines(proc.stderr)[2] == "  a lease is never deleted (that would reset its token)"
    forged = commit(clone, None, {"lease.json": b'{"holder": "me"}\n'}, message="x\n")
    proc = push(clone, guarded, f"+{forged}:refs/hz/lease/{hz_id(1)}")
    assert remote_lines(proc.stderr)[2] == "  a lease is never rewound (not a fast-forward)"
    proc = push(clone, guarded, f"{forged}:refs/hz/lease/{hz_id(2)}")
    assert remote_lines(proc.stderr)[1].split("  ")[1] == "HZS014"


def test_install_hook_keeps_a_foreign_hook_and_refuses_non_repositories(tmp_path: Path, bare: Path, hz: Any) -> None:
    (bare / "hooks" / "pre-receive").write_text("#!/bin/sh\nexit 0\n")
    result = hz("state", "install-hook", str(bare))
    assert (result.exit_code, result.err) == (
        1,
        f"error: {bare / 'hooks' / 'pre-receive'} exists and was not written by hz\n"
        "  hint: merge it by hand or move it away\n",
    )
    result = hz("state", "install-hook", str(tmp_path))
    assert result.err == (
        f"error: not a bare git repository: {tmp_path}\n  hint: give the path of the remote's .git directory\n"
    )
