"""`hz state log` judges tokens against the remote's lease chains, fetched with hz/state, whatever clone runs it.

The remote has no hook, so a forged event (token 999, far above the lease's 1) lands between real ones.
A fresh clone has no lease chain of its own; the log must fetch the chain to mark only the forgery VOID.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from hz.gitstate.events import Event, path_of
from hz.gitstate.lease_record import LeaseRecord
from tests.gitstate import plumbing
from tests.gitstate.factory import finished, git, hz_id, new_clone, placed, started

AGENT = hz_id(7)
SLOT = "2026-10-30T15:00:00Z"
REAL, FORGED, LATER = started(AGENT, SLOT, 1), placed(AGENT, 3, 999), finished(AGENT, SLOT, 1)


def _publish(clone: Path, remote: Path, events: list[Event], lease: LeaseRecord, parent: str | None = None) -> str:
    """Each event in a commit of its own on hz/state and the lease's commit (on `parent`), pushed past no
    hook; returns the lease commit."""
    files: dict[str, bytes] = {}
    tip: tuple[str, ...] = ()
    for event in events:
        files[path_of(event)] = event.line()
        tip = (plumbing.commit(clone, plumbing.tree(clone, plumbing.nested(files)), tip),)  # type: ignore[arg-type]
    message = f"lease {lease.lease} token {lease.token} held\n".encode()
    lease_tree = plumbing.tree(clone, {b"lease.json": lease.line()})
    chain = plumbing.commit(clone, lease_tree, (parent,) if parent else (), message)
    done = plumbing.push(clone, remote, f"{tip[0]}:refs/heads/hz/state", f"{chain}:refs/hz/lease/{lease.lease}")
    assert done.returncode == 0, done.stderr
    return chain


def _record(token: int = 1) -> LeaseRecord:
    return LeaseRecord(lease=AGENT, holder="@ann/m-0000000a", role="owner", token=token, slot=SLOT,
                       acquired="2026-10-30T14:59:00Z", expires="2026-10-30T15:09:00Z")  # fmt: skip


def _log(hz: Any, clone: Path, remote: Path, monkeypatch: pytest.MonkeyPatch, *args: str) -> Any:
    monkeypatch.chdir(clone)
    result = hz("state", "log", "--remote", str(remote), *args)
    assert (result.exit_code, result.err) == (0, "")
    return result


def test_a_fresh_clone_marks_only_the_forged_token_void(
    tmp_path: Path, bare: Path, hz: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    _publish(new_clone(tmp_path / "attacker"), bare, [REAL, FORGED, LATER], _record())
    fresh = new_clone(tmp_path / "fresh")
    shown = json.loads(_log(hz, fresh, bare, monkeypatch, "--json").out)
    assert [(e["event"]["token"], e["void"]) for e in shown] == [(1, False), (999, True), (1, False)]
    text = _log(hz, fresh, bare, monkeypatch).out.splitlines()
    assert text == [
        f"{REAL.ts}  turn.started       {REAL.key}  token 1  @ann/m-0000000a (owner)",
        f"{FORGED.ts}  draft.placed       {FORGED.key}  token 999  VOID (stale token)",
        f"{LATER.ts}  turn.finished      {LATER.key}  token 1  @ann/m-0000000a (owner)",
    ]
    only = json.loads(_log(hz, fresh, bare, monkeypatch, "--json", "--id", AGENT).out)
    assert [(e["event"]["token"], e["void"]) for e in only] == [(1, False), (999, True), (1, False)]
    assert git("-C", str(fresh), "for-each-ref", "refs/heads/", "refs/remotes/") == ""  # hz's own refs only


def test_a_token_the_chain_gave_after_the_clone_last_looked_is_not_void(
    tmp_path: Path, bare: Path, hz: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The member's copy of the chain is old (token 1); the remote's gave token 2 with the new events."""
    attacker = new_clone(tmp_path / "writer")
    first = _publish(attacker, bare, [REAL], _record())
    member = new_clone(tmp_path / "member")
    _log(hz, member, bare, monkeypatch)
    taken = _record(2).model_copy(update={"slot": "2026-10-30T15:30:00Z"})
    second = started(AGENT, "2026-10-30T15:30:00Z", 2)
    _publish(attacker, bare, [REAL, second], taken, first)
    shown = json.loads(_log(hz, member, bare, monkeypatch, "--json").out)
    assert [(e["event"]["token"], e["void"]) for e in shown] == [(1, False), (2, False)]
