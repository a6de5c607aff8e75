"""The attack corpus for lease refs: hand-made pushes to `refs/hz/lease/<id>` that the hook refuses.

Each row builds one object with git plumbing, pushes it to a bare remote guarded by the hook that `hz
state install-hook` installed, and asserts the refusal: the push fails, the diagnostic's code and message
reach the pusher's stderr, and the ref stays where it was.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from hz.gitstate.types import format_utc
from tests.gitstate.factory import git, hz_id, new_clone
from tests.gitstate.lease_plumbing import (
    BOB,
    REF,
    blob,
    commit,
    lease_commit,
    lease_tree,
    line,
    push,
    record,
    remote_lines,
    tag,
    tree,
)

# A row builds the object to push from the clone and the commit on the remote (token 1, held by ann),
# and names the code and the message the pusher must read: "commit <id>: " is put in front unless the
# message starts with "{c}" (the pushed object's short id); "…" ends a message whose tail is a time.
Build = Callable[[Path, str], str]
Attack = tuple[Build, str, str]
LATER = datetime.now(UTC) + timedelta(minutes=20)
SLOT = "2026-10-30T15:00:00Z"
SIGNED = "author or committer is not hz's own signature ('hz <hz>', in UTC)"
NOT_CANONICAL = "lease.json is not in canonical form (hz writes RFC 8785 JSON and a newline)"
ONLY_LEASE = "a lease commit's tree holds lease.json (a plain file) and nothing else"
NOT_HZ_MESSAGE = "the message is not hz's (hz writes 'lease hz-01JB0000000000000000000007 token 1 held')"
GPGSIG = b"gpgsig -----BEGIN PGP SIGNATURE-----\n \n iQEzBAABCAAdFiEE\n -----END PGP SIGNATURE-----\n"
PERSON = b"Priya Example <priya@example.com> 1700000000 +0000"
FREE_TEXT = b"lease hz-01JB0000000000000000000007 token 1 held\n\nPriya asked me to take this; call 555-0100\n"


def created(fields: dict[str, Any], **options: Any) -> Build:
    return lambda clone, _: lease_commit(clone, fields, **options)


def on_top(fields: dict[str, Any], **options: Any) -> Build:
    return lambda clone, base: lease_commit(clone, fields, base, **options)


def shaped(data: bytes) -> Build:
    return created(record(), data=data)


def with_tree(*entries: tuple[str, str, bytes]) -> Build:
    """A commit whose tree holds these (mode, name, content) files."""
    return lambda clone, _: commit(clone, tree(clone, [(m, n, blob(clone, d)) for m, n, d in entries]), [], b"x\n")


def invalid(field: str, why: str = "not of its field's shape") -> str:
    return f"lease.json is not a lease record ({field}: {why})"


def _duplicate_key(fields: dict[str, Any]) -> bytes:
    """The holder twice: a JSON parser keeps the last, so a reader and a lint may see different records."""
    data = line(fields).decode()
    return data.replace('"holder":', '"holder":"@eve/m-0000000e","holder":', 1).encode()


def _merge(clone: Path, base: str) -> str:
    other = lease_commit(clone, record(holder=BOB))
    message = f"lease {REF.rsplit('/', 1)[1]} token 2 held\n".encode()
    return commit(clone, lease_tree(clone, line(record(token=2, holder=BOB))), [base, other], message)


RECORD = line(record())
IN_TWO_DAYS = format_utc(datetime.now(UTC) + timedelta(days=2))

# pushed to a lease ref that does not exist yet
CREATIONS: dict[str, Attack] = {
    # the object itself
    "a tag object": (
        lambda c, _: tag(c, lease_commit(c, record())),
        "HZS012",
        "{c} is a tag; a lease ref points at a commit",
    ),
    "a tree object": (lambda c, _: lease_tree(c, RECORD), "HZS012", "{c} is a tree; a lease ref points at a commit"),
    # the commit's headers, signature and message
    "a member as author": (created(record(), author=PERSON), "HZS012", SIGNED),
    "an address as committer": (created(record(), committer=b"hz <priya@example.com> 1 +0000"), "HZS012", SIGNED),
    "a time zone": (created(record(), author=b"hz <hz> 1700000000 +0200"), "HZS012", SIGNED),
    "an x- header": (
        created(record(), extra=b"x-secret priya@example.com\n"),
        "HZS012",
        "commit header x-secret is not hz's",
    ),
    "a gpgsig header": (created(record(), extra=GPGSIG), "HZS012", "commit header gpgsig is not hz's"),
    "an encoding header": (
        created(record(), extra=b"encoding latin-1\n"),
        "HZS012",
        "commit header encoding is not hz's",
    ),
    "free text in the message": (created(record(), message=FREE_TEXT), "HZS012", NOT_HZ_MESSAGE),
    "a NUL in the message": (created(record(), message=FREE_TEXT[:48] + b"\0\n"), "HZS012", NOT_HZ_MESSAGE),
    # the tree
    "a second file": (
        with_tree(("100644", "lease.json", RECORD), ("100644", "notes.txt", b"call priya\n")),
        "HZS014",
        ONLY_LEASE,
    ),
    "an executable lease.json": (with_tree(("100755", "lease.json", RECORD)), "HZS014", ONLY_LEASE),
    "an empty tree": (with_tree(), "HZS014", ONLY_LEASE),
    "an oversized record": (shaped(b" " * 2000), "HZS014", "lease.json is not a record of at most 1024 bytes"),
    # the record's bytes and fields
    "a duplicate key": (shaped(_duplicate_key(record())), "HZS014", NOT_CANONICAL),
    "spacing": (shaped(RECORD.replace(b",", b", ")), "HZS014", NOT_CANONICAL),
    "no newline": (shaped(RECORD.rstrip()), "HZS014", NOT_CANONICAL),
    "a free-text field": (
        created(record(note="call priya")),
        "HZS014",
        invalid("note", "Extra inputs are not permitted"),
    ),
    "an address as holder": (created(record(holder="priya@example.com")), "HZS014", invalid("holder")),
    "a spelled-out address": (created(record(holder="@priya at example dot com")), "HZS014", invalid("holder")),
    "a member as actions": (
        created(record(role="actions")),
        "HZS014",
        "role actions does not go with holder @ann/m-0000000a",
    ),
    "a run as owner": (created(record(holder="actions:42")), "HZS014", "role owner does not go with holder actions:42"),
    "a sentence as slot": (created(record(slot="the Friday one")), "HZS014", invalid("slot")),
    "token 2**53-1": (
        created(record(token=2**53 - 1)),
        "HZS014",
        invalid("token", "Input should be less than or equal to 2147483647"),
    ),
    "another lease's record": (
        created(record(lease=hz_id(8))),
        "HZS014",
        f"the record is for lease {hz_id(8)}, not for this ref",
    ),
    # times
    "until year 9999": (
        created(record(expires="9999-12-31T23:59:59Z")),
        "HZS014",
        "expires 9999-12-31T23:59:59Z is outside 2000-2099",
    ),
    "expires before acquired": (
        created(record(expires="2020-01-01T00:00:00Z")),
        "HZS014",
        "expires 2020-01-01T00:00:00Z before it was acquired (…",
    ),
    "two days at once": (created(record(expires=IN_TWO_DAYS)), "HZS014", "held for more than 86400 s at once (until …"),
    "acquired next year": (created(record(datetime.now(UTC) + timedelta(days=365))), "HZS014", "acquired …"),
    # the chain
    "a new lease at token 5": (created(record(token=5)), "HZS014", "a new lease starts at token 1, not 5"),
}

# pushed on top of a proper lease (token 1, held by ann) that is on the remote already
KEPT = "token 1 kept by another holder or slot, or after a release"
UPDATES: dict[str, Attack] = {
    "a merge": (_merge, "HZS012", "a merge; a lease grows one commit at a time"),
    "a tag on top": (lambda c, base: tag(c, base), "HZS012", "{c} is a tag; a lease ref points at a commit"),
    "a take-over jumping tokens": (
        on_top(record(LATER, holder=BOB, token=3)),
        "HZS014",
        "token 3 after 1 (one more, or the same)",
    ),
    "a take-over keeping the token": (on_top(record(LATER, holder=BOB)), "HZS014", KEPT),
    "a renewal for another slot": (on_top(record(LATER, slot="2026-01-01T00:00:00Z")), "HZS014", KEPT),
}


@pytest.fixture
def guarded(bare: Path, hz: Any) -> Path:
    assert hz("state", "install-hook", str(bare)).exit_code == 0
    return bare


@pytest.mark.parametrize("attack", CREATIONS.values(), ids=list(CREATIONS))
def test_the_hook_refuses_to_create(tmp_path: Path, guarded: Path, attack: Attack) -> None:
    clone = new_clone(tmp_path / "c")
    build, code, message = attack
    refused(clone, guarded, build(clone, lease_commit(clone, record())), code, message)
    assert git("--git-dir", str(guarded), "for-each-ref", REF) == ""


@pytest.mark.parametrize("attack", UPDATES.values(), ids=list(UPDATES))
def test_the_hook_refuses_to_update(tmp_path: Path, guarded: Path, attack: Attack) -> None:
    clone = new_clone(tmp_path / "c")
    base = lease_commit(clone, record())
    assert push(clone, guarded, f"{base}:{REF}").returncode == 0
    build, code, message = attack
    refused(clone, guarded, build(clone, base), code, message)
    assert git("--git-dir", str(guarded), "rev-parse", REF).strip() == base


def refused(clone: Path, remote: Path, pushed: str, code: str, message: str) -> None:
    """The push fails and the pusher reads the code and the whole message ("…" ends a message whose
    tail holds a time that changes from run to run)."""
    proc = push(clone, remote, f"{pushed}:{REF}")
    assert proc.returncode == 1
    lines = remote_lines(proc.stderr)
    assert lines[:2] == ["hz: the hz/state lint refuses this push:", f"{REF}:1:1  {code}  {REF}"]
    expected = "  " + (message if message.startswith("{c}") else "commit {c}: " + message).format(c=pushed[:12])
    if expected.endswith("…"):
        assert lines[2].startswith(expected[:-1]), lines
    else:
        assert lines[2] == expected
    assert lines[3:] == ["  hint: hz writes lease refs itself: hz lease acquire"]


def test_hz_own_chain_built_by_hand_is_accepted(tmp_path: Path, guarded: Path) -> None:
    """The same plumbing, writing what hz writes: create, renew, release, take over."""
    clone = new_clone(tmp_path / "c")
    first = lease_commit(clone, record(slot=SLOT))
    renewed = lease_commit(clone, record(LATER, slot=SLOT), first)
    released = lease_commit(clone, record(LATER, slot=SLOT, expires=format_utc(LATER), state="released"), renewed)
    taken = lease_commit(clone, record(LATER, holder=BOB, token=2), released)
    for oid in (first, renewed, released, taken):
        proc = push(clone, guarded, f"{oid}:{REF}")
        assert proc.returncode == 0, proc.stderr


def test_a_chain_of_acquisitions_alone_is_accepted(tmp_path: Path, guarded: Path) -> None:
    """hz's chains since issue 22: a term whose turn finished has no release commit (its `turn.finished` on
    hz/state ended it), so the next acquisition goes straight on top of a held record, token one more."""
    clone = new_clone(tmp_path / "c")
    first = lease_commit(clone, record(slot=SLOT))
    mine = lease_commit(clone, record(LATER, token=2, slot="2026-10-30T16:00:00Z"), first)
    taken = lease_commit(clone, record(LATER, holder=BOB, token=3, slot="2026-10-30T17:00:00Z"), mine)
    for oid in (first, mine, taken):
        proc = push(clone, guarded, f"{oid}:{REF}")
        assert proc.returncode == 0, proc.stderr
