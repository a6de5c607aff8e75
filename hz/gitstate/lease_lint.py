"""The lint of lease refs: every commit on `refs/hz/lease/<id>` is one hz could have written, nothing else.

A lease commit is fully determined by its record, its parent and one timestamp, so the lint holds each
part to what hz writes and refuses any difference: a tag, tree or blob where a commit belongs, a
merge, a header hz never writes (`gpgsig`, `x-…`), a signature other than `hz <hz>`, a message other than
`lease <id> token <n> <state>`, a tree holding more or less than `lease.json`, a record that is not the
canonical serialisation of `LeaseRecord` (which rules out duplicate keys, spacing and extra fields), a
record for another lease, a role that does not go with its holder (`actions` is an Actions run's and
only its), times out of order or too far out, and tokens that do not follow the chain.

Where the receiving repository has `main` (else `master`), the hook also checks the role against the
contract there that declares the lease's id (hz.gitstate.lint_contracts): a commit that begins a hold
(a new token) or changes its role must name a holder the contract gives that role, and a lease no
contract declares is refused like its events would be. Renewals and releases that keep holder, role
and token are not checked again, so a contract whose owner changes never strands a hold in progress.
Without `main` only the shapes hold (a remote that carries nothing but hz's refs has no roles to ask).

The pre-receive hook runs `check_lease` on every pushed commit (oldest first); clients run
`read_tip` on the tip they fetched, so a ref the hook would refuse (written to a server without the hook,
or before it) reads as damaged with a way out instead of a crash. Codes, shared with the state lint:
HZS012 the commit itself (type, parents, headers, signature, message), HZS013 a deletion or rewind,
HZS014 the record (tree, bytes, fields, times, token), HZS019 a lease no contract on main declares,
HZS020 a holder the contract on main does not give the record's role.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

from hz.diagnostic import Diagnostic
from hz.errors import HzError
from hz.gitstate.layout import LEASE_FILE, LEASE_PREFIX, ZERO
from hz.gitstate.lease_shapes import PlainLease, plain_lease
from hz.gitstate.lint_commit import SIGNATURE, RawCommit
from hz.gitstate.objects import BLOB_MODE
from hz.gitstate.odb import objects_of
from hz.gitstate.times import parse_utc

if TYPE_CHECKING:
    from hz.gitstate.lease_record import LeaseRecord
    from hz.gitstate.lint_contracts import MainContracts
    from hz.gitstate.odb import Objects, Repo

MAX_TTL = timedelta(hours=24)
"""The longest any acquisition or renewal may hold. The hook cannot trust the pusher's `hz.toml`, so
this is a fixed ceiling: `[state] lease_ttl_s` may be anything up to it (hz refuses more before pushing)."""

MAX_AHEAD = timedelta(hours=1)
"""How far past the server's clock a record may say it was acquired: room for a fast laptop clock,
none for a lease that starts in a later year (together with MAX_TTL, no lease outlives the push by
more than a day and an hour)."""

EARLIEST = datetime(2000, 1, 1, tzinfo=UTC)
LATEST = datetime(2100, 1, 1, tzinfo=UTC)  # every time in a record lies in [EARLIEST, LATEST)

MAX_RECORD_BYTES = 1024  # a canonical record is about 250 bytes; larger is refused unread
MAX_NEW_COMMITS = 1000  # hz pushes one commit per update; a longer new range is refused unwalked

HINT_LEASE = "hz writes lease refs itself: hz lease acquire"
HINT_ROLE = "roles come from the contract on main: its owner, its maintainers as delegates, actions:<run id>"

HINT_DAMAGED = (
    "members cannot repair it (the pre-receive hook refuses deleting a lease): an admin of the server "
    "deletes the ref there, e.g. `git update-ref -d {ref}` in the bare repository, and the next "
    "acquire starts the lease again"
)

_OID = re.compile(rb"[0-9a-f]{40}")
_ORDERS = ((b"tree", b"author", b"committer"), (b"tree", b"parent", b"author", b"committer"))


class DamagedLease(HzError):
    """A lease ref holds something hz never writes; only an admin of the server can remove it."""


@dataclass(frozen=True)
class Finding:
    code: str
    message: str
    hint: str = HINT_LEASE


# --- the hook ---------------------------------------------------------------------------------------


def check_lease(
    repo: Repo,
    ref: str,
    old: str,
    new: str,
    now: datetime | None = None,
    contracts: MainContracts | None = None,
) -> list[Diagnostic]:
    """Every finding about one update `old -> new` of a lease ref (empty: accept); `contracts`: the
    ones on the receiving repository's main, which give the roles (None: no main, shapes only)."""
    objects = objects_of(repo)
    if new == ZERO:
        return [_refusal(ref, "HZS013", "a lease is never deleted (that would reset its token)")]
    kind = objects.kind(new)
    if kind != "commit":
        return [_refusal(ref, "HZS012", f"{new[:12]} is a {kind}; a lease ref points at a commit")]
    chain, reached = _new_commits(objects, None if old == ZERO else old, new)
    # hz's chains are first-parent lines: reaching `old` along them proves the fast-forward without a walk
    if old != ZERO and not reached and not objects.descends(new, old):
        return [_refusal(ref, "HZS013", "a lease is never rewound (not a fast-forward)")]
    if chain is None:
        return [_refusal(ref, "HZS014", f"more than {MAX_NEW_COMMITS} new lease commits in one push")]
    moment = now or datetime.now(UTC)
    for oid in chain:
        if finding := _check_commit(objects, ref, oid, moment, contracts):
            return [_refusal(ref, finding.code, f"commit {oid[:12]}: {finding.message}", finding.hint)]
    return []


def _refusal(ref: str, code: str, message: str, hint: str = HINT_LEASE) -> Diagnostic:
    return Diagnostic(ref, 1, 1, code, "error", ref, message, hint)


def _new_commits(objects: Objects, old: str | None, new: str) -> tuple[list[str] | None, bool]:
    """The commits from `old` (excluded) to `new`, oldest first, by first parents (a merge is refused
    on its own), None when there are more than MAX_NEW_COMMITS; and whether the walk reached `old`."""
    chain: list[str] = []
    oid: str | None = new
    while oid is not None and oid != old:
        if len(chain) == MAX_NEW_COMMITS:
            return None, False
        chain.append(oid)
        oid = _parent(objects, oid) if objects.kind(oid) == "commit" else None
    return chain[::-1], oid is not None


def _check_commit(
    objects: Objects, ref: str, oid: str, now: datetime, contracts: MainContracts | None
) -> Finding | None:
    found = _check_tip(objects, ref, oid)
    if isinstance(found, Finding):
        return found
    record = found
    if parse_utc(record.acquired) > now + MAX_AHEAD:
        return Finding("HZS014", f"acquired {record.acquired}, later than the server's clock allows")
    parent = _parent(objects, oid)
    if parent is None:
        if record.token != 1:
            return Finding("HZS014", f"a new lease starts at token 1, not {record.token}")
        return _role(contracts, record)
    before = _check_tip(objects, ref, parent)
    if isinstance(before, Finding):
        return Finding(before.code, f"its parent {parent[:12]}: {before.message}")
    if finding := _follows(record, before):
        return finding
    return _role(contracts, record) if (record.token, record.role) != (before.token, before.role) else None


def _role(contracts: MainContracts | None, record: PlainLease) -> Finding | None:
    """Does the contract on main give this holder this role? (Nothing to ask without main.)"""
    if contracts is None:
        return None
    problem = contracts.holder_problem(record.lease, record.holder, record.role)
    if problem is None:
        return None
    code = "HZS020" if record.lease in contracts.declared else "HZS019"
    return Finding(code, problem, HINT_ROLE)


def _follows(record: PlainLease, parent: PlainLease) -> Finding | None:
    """A take-over (or a new slot) adds exactly one to the token; a renewal or release keeps it, and
    only the holder of a held lease renews or releases it, for the same slot."""
    if record.token == parent.token + 1:
        return None
    if record.token != parent.token:
        return Finding("HZS014", f"token {record.token} after {parent.token} (one more, or the same)")
    same_slot = parse_utc(record.slot) == parse_utc(parent.slot)  # the instant, however it is spelled
    if parent.state != "held" or record.holder != parent.holder or not same_slot:
        return Finding("HZS014", f"token {record.token} kept by another holder or slot, or after a release")
    return None


# --- what clients read ------------------------------------------------------------------------------


def read_tip(repo: Repo, ref: str, tip: str) -> LeaseRecord:
    """The record at a lease ref's tip, or DamagedLease naming what the hook would have refused."""
    found = _check_tip(objects_of(repo), ref, tip)
    if isinstance(found, Finding):
        raise DamagedLease(f"lease ref {ref} is damaged: {found.message}", hint=HINT_DAMAGED.format(ref=ref))
    return _model(found)


def checked(repo: Repo, ref: str, tip: str) -> LeaseRecord | str:
    """The record at a lease ref's tip, or why the ref is damaged (for listings)."""
    found = _check_tip(objects_of(repo), ref, tip)
    return found.message if isinstance(found, Finding) else _model(found)


def _model(record: PlainLease) -> LeaseRecord:
    """The model of a record the plain check accepted, for the clients that read leases (not the hook)."""
    from hz.gitstate.lease_record import LeaseRecord

    return LeaseRecord.from_bytes(record.line())


# --- one commit, on its own -------------------------------------------------------------------------


def _check_tip(objects: Objects, ref: str, oid: str) -> PlainLease | Finding:
    """One lease commit without its history: its type, shape, tree and record."""
    kind = objects.kind(oid)
    if kind != "commit":
        return Finding("HZS012", f"{oid[:12]} is a {kind}, not a commit")
    raw = _raw_commit(objects, oid)
    if problem := _shape(raw):
        return Finding("HZS012", problem)
    data = _lease_bytes(objects, raw.values(b"tree")[0].decode("ascii"))
    if isinstance(data, Finding):
        return data
    record = _record(data)
    if isinstance(record, Finding):
        return record
    return _fields(ref, record) or _message(raw, record) or record


def _shape(raw: RawCommit) -> str | None:
    names = raw.names()
    if names.count(b"parent") > 1:
        return "a merge; a lease grows one commit at a time"
    if names not in _ORDERS:
        extra = sorted({n.decode("ascii", "replace") for n in names if n not in _ORDERS[1]})
        return f"commit header {', '.join(extra)} is not hz's" if extra else "commit headers out of hz's order"
    if not all(_OID.fullmatch(raw.values(name)[0]) for name in (b"tree", b"parent") if name in names):
        return "a malformed tree or parent header"
    author, committer = raw.values(b"author")[0], raw.values(b"committer")[0]
    if not SIGNATURE.fullmatch(author) or author != committer:
        return "author or committer is not hz's own signature ('hz <hz>', in UTC)"
    return None


def _message(raw: RawCommit, record: PlainLease) -> Finding | None:
    expected = f"lease {record.lease} token {record.token} {record.state}\n"
    if raw.message != expected.encode():
        return Finding("HZS012", f"the message is not hz's (hz writes {expected.strip()!r})")
    return None


def _lease_bytes(objects: Objects, tree_id: str) -> bytes | Finding:
    tree = objects.tree(tree_id)
    if tree is None:
        return Finding("HZS014", "its tree is missing")
    entries = [(entry.text, entry.mode) for entry in tree]
    if entries != [(LEASE_FILE, BLOB_MODE)]:
        return Finding("HZS014", f"a lease commit's tree holds {LEASE_FILE} (a plain file) and nothing else")
    kind, size = objects.header(tree.entries[0].oid)
    if kind != "blob" or size > MAX_RECORD_BYTES:
        return Finding("HZS014", f"{LEASE_FILE} is not a record of at most {MAX_RECORD_BYTES} bytes")
    return objects.read(tree.entries[0].oid)[1]


def _record(data: bytes) -> PlainLease | Finding:
    """The record hz wrote, checked without the model; a refusal takes its words from the model."""
    return plain_lease(data) or _refusal_of(data)


def _refusal_of(data: bytes) -> Finding:
    """Why the model refuses `data`, or that it is not canonical: the words the lease lint has always said."""
    from pydantic import ValidationError

    from hz.gitstate.lease_record import LeaseRecord

    try:
        record = LeaseRecord.from_bytes(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "record"
        why = "not of its field's shape" if first["type"] == "string_pattern_mismatch" else first["msg"]
        return Finding("HZS014", f"{LEASE_FILE} is not a lease record ({where}: {why})")
    if record.line() != data:
        return Finding("HZS014", f"{LEASE_FILE} is not in canonical form (hz writes RFC 8785 JSON and a newline)")
    raise AssertionError(f"{LEASE_FILE}: the plain check refused a record the model reads in canonical form")


def _fields(ref: str, record: PlainLease) -> Finding | None:
    if ref != LEASE_PREFIX + record.lease:
        return Finding("HZS014", f"the record is for lease {record.lease}, not for this ref")
    if (record.role == "actions") != record.holder.startswith("actions:"):
        return Finding("HZS014", f"role {record.role} does not go with holder {record.holder}")
    times = {name: parse_utc(getattr(record, name)) for name in ("slot", "acquired", "expires")}
    for name, moment in times.items():
        if not EARLIEST <= moment < LATEST:
            return Finding("HZS014", f"{name} {getattr(record, name)} is outside {EARLIEST.year}-{LATEST.year - 1}")
    if times["expires"] < times["acquired"]:
        return Finding("HZS014", f"expires {record.expires} before it was acquired ({record.acquired})")
    if times["expires"] - times["acquired"] > MAX_TTL:
        return Finding("HZS014", f"held for more than {MAX_TTL.total_seconds():.0f} s at once (until {record.expires})")
    return None


# --- raw objects ------------------------------------------------------------------------------------


def _raw_commit(objects: Objects, oid: str) -> RawCommit:
    """The commit as its bytes say (hz.gitstate.lint_commit): nothing git would hide goes unseen."""
    return RawCommit.parse(objects.read(oid)[1])


def _parent(objects: Objects, oid: str) -> str | None:
    """The (first) parent of a commit, None for a root; merges are refused elsewhere."""
    parents = _raw_commit(objects, oid).values(b"parent")
    return parents[0].decode("ascii", "replace") if parents else None
