"""Roles from the contract on main: the hook refuses a lease whose holder the contract does not give its role.

The remote (a bare repository with the hook from `hz state install-hook`) holds a `main` whose contract
declares lease `LEASE` with owner @ann and maintainer @bob. Each row pushes a lease commit built with
git plumbing and asserts the whole refusal, or that it lands. Without `main` only the shapes are checked.
"""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from hz.gitstate.types import format_utc
from tests.gitstate import plumbing
from tests.gitstate.factory import git, hz_id, new_clone
from tests.gitstate.lease_plumbing import LEASE, REF, lease_commit, push, record, remote_lines

ANN, BOB, EVE = "@ann/m-0000000a", "@bob/m-0000000b", "@eve/m-0000000e"
LATER = datetime.now(UTC) + timedelta(minutes=20)
SLOT = "2026-10-30T15:00:00Z"
HINT = "  hint: roles come from the contract on main: its owner, its maintainers as delegates, actions:<run id>"
OWNER_IS_ANN = "role owner is the contract's owner's (@ann), not {}'s"
DELEGATES = "role delegate is for the contract's maintainers (@bob), not {}"


def contract(lease_id: str = LEASE, owner: str = '"@ann"') -> bytes:
    return f"""---
name: weekly
kind: responsibility
description: The weekly report.
id: {lease_id.removeprefix("hz-")}
hz:
  schema: 1
  title: Weekly report
  owner: {owner}
  maintainers: ["@bob"]
  scope: team
  outputs:
    report:
      target: state:reports/{{slot:%Y-%m-%d}}.md
---

## Goal

Keep the weekly report true.
""".encode()


def with_main(clone: Path, remote: Path, text: bytes) -> None:
    tree = plumbing.tree(clone, {b"workflows": {b"weekly.prose.md": text}})
    before = git("-C", str(clone), "for-each-ref", "--format=%(objectname)", "refs/heads/main").split()
    main = plumbing.commit(clone, tree, tuple(before), b"the weekly contract\n", author=b"Ann <ann> 1761836400 +0000")
    done = plumbing.push(clone, remote, f"{main}:refs/heads/main")
    assert done.returncode == 0, done.stderr
    git("-C", str(clone), "update-ref", "refs/heads/main", main)


@pytest.fixture
def guarded(bare: Path, hz: Any) -> Path:
    assert hz("state", "install-hook", str(bare)).exit_code == 0
    return bare


@pytest.fixture
def clone(tmp_path: Path, guarded: Path) -> Path:
    made = new_clone(tmp_path / "c")
    with_main(made, guarded, contract())
    return made


def refused(clone: Path, remote: Path, pushed: str, code: str, message: str, ref: str = REF) -> None:
    proc = push(clone, remote, f"{pushed}:{ref}")
    assert proc.returncode == 1, proc.stderr
    assert remote_lines(proc.stderr) == [
        "hz: the hz/state lint refuses this push:",
        f"{ref}:1:1  {code}  {ref}",
        f"  commit {pushed[:12]}: {message}",
        HINT,
    ]


CREATIONS = {
    "a member who is no maintainer as owner": (record(holder=EVE), OWNER_IS_ANN.format("@eve")),
    "a maintainer as owner": (record(holder=BOB), OWNER_IS_ANN.format("@bob")),
    "a member who is no maintainer as delegate": (record(holder=EVE, role="delegate"), DELEGATES.format("@eve")),
}


@pytest.mark.parametrize("fields,message", CREATIONS.values(), ids=list(CREATIONS))
def test_a_holder_without_the_role_is_refused(clone: Path, guarded: Path, fields: dict[str, Any], message: str) -> None:
    refused(clone, guarded, lease_commit(clone, fields), "HZS020", message)
    assert git("--git-dir", str(guarded), "for-each-ref", REF) == ""


ALLOWED = {
    "the owner": record(holder=ANN),
    "the owner's legacy holder": record(holder="@ann"),
    "a maintainer as delegate": record(holder=BOB, role="delegate"),
    "an Actions run": record(holder="actions:42", role="actions"),
}


@pytest.mark.parametrize("fields", ALLOWED.values(), ids=list(ALLOWED))
def test_a_holder_with_the_role_lands(clone: Path, guarded: Path, fields: dict[str, Any]) -> None:
    pushed = lease_commit(clone, fields)
    proc = push(clone, guarded, f"{pushed}:{REF}")
    assert proc.returncode == 0, proc.stderr
    assert git("--git-dir", str(guarded), "rev-parse", REF).strip() == pushed


def test_a_take_over_is_checked_and_a_renewal_changing_its_role_too(clone: Path, guarded: Path) -> None:
    base = lease_commit(clone, record(holder=BOB, role="delegate", slot=SLOT))
    assert push(clone, guarded, f"{base}:{REF}").returncode == 0
    refused(clone, guarded, lease_commit(clone, record(LATER, holder=EVE, token=2), base), "HZS020",
            OWNER_IS_ANN.format("@eve"))  # fmt: skip
    promoted = lease_commit(clone, record(LATER, holder=BOB, slot=SLOT), base)  # the same token: a renewal
    refused(clone, guarded, promoted, "HZS020", OWNER_IS_ANN.format("@bob"))
    renewed = lease_commit(clone, record(LATER, holder=BOB, role="delegate", slot=SLOT), base)
    assert push(clone, guarded, f"{renewed}:{REF}").returncode == 0
    assert git("--git-dir", str(guarded), "rev-parse", REF).strip() == renewed


def test_a_renewal_that_keeps_its_role_lands_after_the_owner_changed(clone: Path, guarded: Path) -> None:
    """A hold in progress is not stranded by a new owner on main: only new holds and new roles are judged."""
    base = lease_commit(clone, record(holder=ANN, slot=SLOT))
    assert push(clone, guarded, f"{base}:{REF}").returncode == 0
    with_main(clone, guarded, contract(owner='"@carol"'))
    renewed = lease_commit(clone, record(LATER, holder=ANN, slot=SLOT), base)
    gone = record(LATER, holder=ANN, slot=SLOT, state="released", expires=format_utc(LATER))
    released = lease_commit(clone, gone, renewed)
    for pushed in (renewed, released):
        proc = push(clone, guarded, f"{pushed}:{REF}")
        assert proc.returncode == 0, proc.stderr


def test_a_lease_no_contract_on_main_declares_is_refused(clone: Path, guarded: Path) -> None:
    other = hz_id(8)
    ref = f"refs/hz/lease/{other}"
    pushed = lease_commit(clone, record(lease=other, holder=ANN))
    refused(clone, guarded, pushed, "HZS019", f"no contract on main has the id {other.removeprefix('hz-')}", ref)
    assert git("--git-dir", str(guarded), "for-each-ref", ref) == ""


def test_a_team_handle_as_owner_makes_nobody_the_owner(tmp_path: Path, guarded: Path) -> None:
    made = new_clone(tmp_path / "c")
    with_main(made, guarded, contract(owner='"@acme/platform"'))
    message = "role owner is the contract's owner's (nobody a handle can name), not @acme's"
    refused(made, guarded, lease_commit(made, record(holder="@acme/m-0000000a")), "HZS020", message)


def test_without_main_only_the_shapes_are_checked(tmp_path: Path, guarded: Path) -> None:
    made = new_clone(tmp_path / "c")
    pushed = lease_commit(made, record(holder=EVE))
    assert push(made, guarded, f"{pushed}:{REF}").returncode == 0


# --- the client refuses before it pushes -------------------------------------------------------------


def test_lease_acquire_refuses_a_role_the_contract_does_not_give(tmp_path: Path, bare: Path) -> None:
    """Against a remote without the hook, so only the client's own check can stop the push."""
    made = new_clone(tmp_path / "c")
    with_main(made, bare, contract())
    env = {**os.environ, "HZ_HOME": str(tmp_path / "home"), "HZ_HANDLE": "@eve"}
    command = [sys.executable, "-m", "hz", "lease", "acquire", LEASE, "--slot", "2026-10-30T15:00:00Z",
               "--remote", str(bare)]  # fmt: skip
    done = subprocess.run(command, cwd=made, env=env, capture_output=True, text=True, check=False)
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == (
        "error: the contract on main does not let @eve hold "
        f"{LEASE} as owner: role owner is the contract's owner's (@ann), not @eve's\n"
        "  hint: roles come from the contract on main: its owner, its maintainers as delegates, actions:<run id>\n"
    )
    assert git("--git-dir", str(bare), "for-each-ref", REF) == ""
    as_delegate = subprocess.run([*command, "--role", "delegate"], cwd=made, env=env, capture_output=True, text=True)
    assert as_delegate.returncode == 1
    assert "role delegate is for the contract's maintainers (@bob), not @eve" in as_delegate.stderr
    bob = subprocess.run([*command, "--role", "delegate"], cwd=made, env={**env, "HZ_HANDLE": "@bob"},
                         capture_output=True, text=True)  # fmt: skip
    assert (bob.returncode, bob.stderr) == (0, "")
    assert bob.stdout.startswith(f"won {LEASE} token 1 until ")


# --- notes -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("ref", ["refs/notes/commits", "refs/notes/hz/priya"])
def test_a_notes_ref_is_refused_like_a_replace_ref(clone: Path, guarded: Path, ref: str) -> None:
    note = plumbing.commit(clone, plumbing.tree(clone, {b"0" * 40: b"Priya asked for this; call 555-0100\n"}))
    proc = push(clone, guarded, f"{note}:{ref}")
    assert proc.returncode == 1
    assert remote_lines(proc.stderr) == [
        "hz: the hz/state lint refuses this push:",
        f"{ref}:1:1  HZS016  {ref}",
        "  refs/notes/* would attach text to what the server shows for other commits",
        "  hint: hz writes refs/heads/hz/state and refs/hz/lease/<hz id> only; push other work to a branch or tag",
    ]
    assert git("--git-dir", str(guarded), "for-each-ref", "refs/notes/") == ""
