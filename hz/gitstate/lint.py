"""The lint of `hz/state`: nothing but known, typed, textless events, and nothing ever changes.

It reads commits, not a checkout: for each commit the files it added are checked line by line and
anything else it did (change or delete a file, write outside the layout, merge, carry a header or a
signature hz never writes, say something in its message) is refused. An event file must be exactly the
bytes hz writes for it (RFC 8785 and one newline), its names must have hz's shapes and, where the
repository has `main`, be ones its contract declares; its token must be one its lease gave. Codes
(HZS = hz state):

HZS001 path outside the layout, an empty folder       HZS010 something shaped like an e-mail address
HZS002 a line changed or removed                      HZS011 the path or key does not match the event
HZS003 a file deleted                                 HZS012 a commit hz would not write (merge, header,
HZS004 not exactly one line, or an oversized line            message, signature)
HZS005 not a JSON object                              HZS013 a rewrite or deletion of hz/state or a lease
HZS006 an unknown event kind                          HZS014 a malformed lease record or token
HZS007 an unknown field                               HZS015 not the canonical bytes (duplicate keys, …)
HZS008 a field named like text (body, draft, …)       HZS016 a ref hz does not write (hook)
HZS009 a value that is not of its field's type        HZS017 a token its lease chain did not give
HZS018 the hook could not check the push              HZS019 a name the contract on main does not declare
HZS020 a lease holder the contract on main does not give the lease's role (owner, delegate; hook)
HZS021 a second turn.started for a slot (either spelling of its time) already started under another token
HZS022 a time more than FUTURE_SKEW ahead of the clock (the server's, or the linting machine's)
HZS023 a receipt that does not follow from hz/state and main (hz.gitstate.receipts)
HZS024 a draft.placed whose hash is not that of the file its draft branch holds (hz.gitstate.draft_tips)
HZS025 a contract version beyond main's count of that contract's versions, plus one (hz.gitstate.main_counts)
HZS026 an archive step hz would not write (hz.gitstate.archive_lint)
HZS027 an event older than the archive horizon: archived already, or too late to record
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

from hz.diagnostic import Diagnostic
from hz.gitstate.archive_lint import archived, behind, behind_diag, check_step, horizon, is_archive_step, moved_marks
from hz.gitstate.double_run import HINT as DOUBLE_RUN_HINT
from hz.gitstate.double_run import double_runs, rerun, tree_reader
from hz.gitstate.event_shapes import PAYLOADS, EventView, PlainEvent, plain_event, read_plain
from hz.gitstate.layout import MAX_LINE_BYTES, Marks, event_path, is_event_path
from hz.gitstate.lint_commit import commit_findings, said_count, tree_findings
from hz.gitstate.lint_text import banned_field, banned_names, first_address_of
from hz.gitstate.odb import Change, Objects, objects_of
from hz.gitstate.shapes import occasion
from hz.gitstate.times import parse_utc

if TYPE_CHECKING:
    import pygit2

    from hz.gitstate.draft_tips import DraftTips
    from hz.gitstate.lint_contracts import MainContracts
    from hz.gitstate.lint_fence import LeaseBook
    from hz.gitstate.odb import Repo

FUTURE_SKEW = timedelta(days=1)
"""How far past the clock an event's time may be: room for a laptop whose clock is wrong by hours, none
for a receipt that claims next month (which would stay "recent" in every reader's window)."""

DECIMALS = {"share_changed": 3, "cost_usd": 6, "duration_s": 3}
"""Fixed precision of the numbers an event holds: a share to 0.001, money to the micro-USD, seconds to
the millisecond. More digits are no measurement, only room for 16 chosen digits (issue 20, finding 8).
Events written before this held are read as they are (a whole-branch lint lets them pass)."""

NO_REJECTOR = "data.by: a new draft.rejected names who rejected it"
"""`by` is optional in the model so that rejections written before it existed still read; a whole-branch
lint reads those as they are, while the hook and a range lint (what is being written now) require it."""

__all__ = ["LintContext", "banned_field", "check_commit", "check_event_file", "lint_range"]


@dataclass(frozen=True)
class LintContext:
    """What the lint compares events with beyond their own bytes: lease chains and the contracts on main."""

    leases: LeaseBook | None = None
    contracts: MainContracts | None = None
    now: datetime | None = None  # the clock: no event may be far ahead of it (the hook's is the server's)
    history: bool = False  # a whole branch's history: numbers written before DECIDED held are read as they are
    drafts: DraftTips | None = None  # the draft commits a draft.placed's hash is held to (hz.gitstate.draft_tips)

    @classmethod
    def local(cls, repo: pygit2.Repository, *, history: bool = False) -> LintContext:
        """A member's clone: the chains and contracts it has; missing ones are not held against an event."""
        from hz.gitstate.draft_tips import DraftTips
        from hz.gitstate.lint_contracts import MainContracts
        from hz.gitstate.lint_fence import LeaseBook

        contracts = MainContracts.read_local(repo)
        return cls(LeaseBook.local(repo), contracts, datetime.now(UTC), history, DraftTips.local(repo))


class _Duplicate(ValueError):
    pass


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    keys = [key for key, _ in pairs]
    if len(set(keys)) != len(keys):
        raise _Duplicate(next(key for key in keys if keys.count(key) > 1))
    return dict(pairs)


def _diag(path: str, code: str, loc: str, message: str, hint: str = "", column: int = 1) -> Diagnostic:
    return Diagnostic(path, 1, column, code, "error", loc, message, hint)


def _column(line: str, needle: str) -> int:
    index = line.find(needle)
    return index + 1 if index >= 0 else 1


def check_event_file(path: str, data: bytes, where: str = "", context: LintContext | None = None) -> list[Diagnostic]:
    """Every finding about one added file of `hz/state` (empty when it is a proper event)."""
    loc = where or path
    if not path.startswith("events/"):
        return [_diag(path, "HZS001", loc, "a file outside events/", "hz/state holds only events/<id>/…")]
    if not is_event_path(path):
        return [_diag(path, "HZS001", loc, "path is not events/<hz id>/<xx>/<kind>-<digest>.json")]
    if len(data) > MAX_LINE_BYTES:
        return [_diag(path, "HZS004", loc, f"line of {len(data)} bytes (at most {MAX_LINE_BYTES})")]
    if not data.endswith(b"\n") or data.count(b"\n") != 1:
        return [_diag(path, "HZS004", loc, "an event file holds exactly one line ending in a newline")]
    try:
        line = data.decode("utf-8")
        raw = json.loads(line, object_pairs_hook=_no_duplicates)
    except _Duplicate as exc:
        return [_diag(path, "HZS015", loc, f"duplicate key {exc}", "an event is the canonical JSON hz writes")]
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        return [_diag(path, "HZS005", loc, f"not JSON: {exc}")]
    if not isinstance(raw, dict):
        return [_diag(path, "HZS005", loc, "an event is a JSON object")]
    found = _check_text(path, line, raw, loc)
    if found:
        return found
    event = _check_model(path, line, raw, loc)
    if isinstance(event, list):
        return event
    return _check_exact(path, data, event, loc, context or LintContext())


def _check_text(path: str, line: str, raw: dict[str, Any], loc: str) -> list[Diagnostic]:
    """Addresses in any decoded string, then fields named like text."""
    if (value := first_address_of(line, raw)) is not None:
        column = _column(line, value) if value in line else 1
        return [
            _diag(path, "HZS010", loc, "something shaped like an e-mail address", "no addresses on hz/state", column)
        ]
    return [
        _diag(
            path,
            "HZS008",
            f"{loc} {name}",
            f"field {name.rsplit('.', 1)[-1]!r} is named like text",
            "hz/state holds ids, hashes, numbers and enums, never text",
            _column(line, f'"{name.rsplit(".", 1)[-1]}"'),
        )
        for name in banned_names(raw)
    ]


def _check_model(path: str, line: str, raw: dict[str, Any], loc: str) -> PlainEvent | list[Diagnostic]:
    """The shapes of the envelope, then of its kind's payload: the models' rules, checked without them
    (hz.gitstate.event_shapes reports what pydantic would, so the diagnostics are the same)."""
    kind = raw.get("kind")
    if not isinstance(kind, str) or kind not in PAYLOADS:
        known = "known kinds: " + ", ".join(sorted(PAYLOADS))
        return [_diag(path, "HZS006", f"{loc} kind", f"unknown event kind {kind!r}", known, _column(line, '"kind"'))]
    event = plain_event(raw)
    if isinstance(event, list):
        return [_from_error(path, line, loc, err) for err in event]
    return event


def _check_exact(path: str, data: bytes, event: PlainEvent, loc: str, context: LintContext) -> list[Diagnostic]:
    """The bytes, the path, the keys, the token and the names, once the event is known to be well-typed."""
    if event.line() != data:
        hint = "hz writes RFC 8785 JSON (sorted keys, no blanks, no escapes it can avoid, no default values)"
        return [_diag(path, "HZS015", loc, "not the canonical bytes of this event", hint)]
    if (where := event_path(event.id, event.kind, event.key)) != path:
        return [_diag(path, "HZS011", loc, f"kind and key belong at {where}")]
    if not context.history and (problem := _precision_problem(event)):
        return [_diag(path, "HZS009", loc, problem, "hz rounds shares to 0.001, USD to 0.000001, seconds to 0.001")]
    if not context.history and event.kind == "draft.rejected" and "by" not in event.data:
        return [_diag(path, "HZS009", loc, NO_REJECTOR, "hz names the member who rejected it, or @unknown")]
    if context.now is not None and parse_utc(event.ts) > context.now + FUTURE_SKEW:
        hint = "an event's time is when it was written, by a clock that is about right"
        return [_diag(path, "HZS022", loc, f"ts {event.ts} is more than a day ahead of the clock", hint)]
    if problem := _identity_problem(event):
        return [_diag(path, "HZS011", loc, problem, "an event's keys, token and asset agree with each other")]
    if context.leases is not None:
        from hz.gitstate.lint_fence import fence_problem

        if problem := fence_problem(context.leases, event):
            return [_diag(path, "HZS017", loc, problem, "only the lease's holder writes, under the token it was given")]
    if context.contracts is not None and (problem := context.contracts.problem(event)):
        return [_diag(path, "HZS019", loc, problem, "names on hz/state are the ones the contracts on main declare")]
    if context.contracts is not None:
        from hz.gitstate.main_counts import HINT as VERSION_HINT
        from hz.gitstate.main_counts import version_problem

        if problem := version_problem(event, context.contracts):
            return [_diag(path, "HZS025", loc, problem, VERSION_HINT)]
    if event.kind == "draft.placed" and context.drafts is not None:
        from hz.gitstate.draft_tips import HINT

        if problem := context.drafts.problem(event.key, event.data["asset"], event.data["hash"]):
            return [_diag(path, "HZS024", loc, problem, HINT)]
    return []


def _precision_problem(event: EventView) -> str | None:
    if "." in event.ts:
        return f"ts: {event.ts} has fractions of a second (hz writes whole seconds)"
    for name, places in DECIMALS.items():
        value = event.data.get(name)
        if isinstance(value, float) and round(value, places) != value:
            return f"data.{name}: {value!r} has more than {places} decimals"
    return None


def _identity_problem(event: EventView) -> str | None:
    """The envelope and its payload say the same thing twice; they must agree (hz.tick.team_receipts writes them so)."""
    data = event.data
    if event.kind in ("turn.started", "turn.finished", "turn.skipped") and data["keys"][0] != event.key:
        return "the first of data.keys is not the event's key"
    if event.kind == "turn.started" and data["token"] != event.token:
        return f"data.token {data['token']} is not the event's token {event.token}"
    if event.kind in ("draft.placed", "approval.observed", "draft.rejected", "draft.superseded", "approval.seconded"):
        if data["key"] != event.key:
            return "data.key is not the event's key"
        form, rest = occasion(event.key)
        if form != "draft" or rest.split("@", 2)[2] != data["asset"]:
            return "data.asset is not the asset the draft key names"
    if event.kind == "draft.superseded" and (data["by"] == event.key or not data["by"].startswith(event.id + "@")):
        return "data.by is not another draft key of the same contract"
    if event.kind == "publish.done":
        if event.key != f"{event.id}@publish-{data['key']}":
            return "the event's key is not its id and data.key (the publish key)"
        if not data["draft_key"].startswith(event.id + "@") or occasion(data["draft_key"])[0] != "draft":
            return "data.draft_key is not a draft key of the same contract"
    return None


def _from_error(path: str, line: str, loc: str, err: Any, prefix: tuple[str, ...] = ()) -> Diagnostic:
    field = ".".join(str(p) for p in (*prefix, *err["loc"]))
    last = str(err["loc"][-1]) if err["loc"] else ""
    where = f"{loc} {field}".strip()
    column = _column(line, f'"{last}"')
    if err["type"] == "extra_forbidden":
        return _diag(path, "HZS007", where, f"unknown field {last!r}", "every kind has a fixed set of fields", column)
    if err["type"] == "string_pattern_mismatch":
        message = f"{field}: a free string where a typed value belongs ({err['msg']})"
        return _diag(path, "HZS009", where, message, "values are hashes, ids, keys, enums, handles or times", column)
    return _diag(path, "HZS009", where, f"{field}: {err['msg']}", "", column)


def check_commit(repo: Repo, commit: Any, context: LintContext | None = None) -> list[Diagnostic]:
    """Everything one commit of `hz/state` did, against its parent (or nothing, for a root commit).
    `commit`: its id (a pygit2 commit is read by its id)."""
    objects = objects_of(repo)
    oid = commit if isinstance(commit, str) else str(commit.id)
    raw = objects.commit(oid)
    if raw is None:
        raise KeyError(f"commit {oid[:12]} is missing")
    found = commit_findings(raw)
    where = oid[:12]
    parent = objects.commit(raw.parents[0]) if raw.parents else None
    if raw.parents and parent is None:
        raise KeyError(f"the parent of commit {where} is missing")
    parent_tree = parent.tree if parent is not None else None
    tree = objects.tree(raw.tree)
    if tree is None:
        raise KeyError(f"tree {raw.tree[:12]} of commit {where} is missing")
    shape = tree_findings(objects, tree, objects.tree(parent_tree) if parent_tree else None, where)
    if shape:
        return found + shape  # paths outside the layout: the per-file diff below has nothing sane to read
    if is_archive_step(raw):
        return found + check_step(objects, raw, context.now if context else None)
    changes = objects.diff(parent_tree, raw.tree)
    added = sum(1 for change in changes if change.status == "A")
    if added and (said := said_count(raw)) is not None and said != added:
        hint = "hz writes 'hz-state: N events' with N the events it adds"
        found.append(
            _diag("<commit>", "HZS012", where, f"the message says {said} events, the commit adds {added}", hint)
        )
    proper: dict[str, bytes] = {}  # added files that are events, for the double-run check
    limit = horizon(objects, parent_tree) if added else None  # nothing older than what was archived comes back
    marks = moved_marks(objects, parent_tree) if limit is not None else Marks()
    blobs = _added_blobs(objects, changes)
    for change in changes:
        if change.status == "A":
            data = blobs[change.path]
            problems = check_event_file(change.path, data, where, context)
            if not problems and limit is not None and (why := _behind(data, limit) or archived(change.path, marks)):
                problems = [behind_diag(change.path, where, why)]
            found.extend(problems)
            proper.update({} if problems else {change.path: data})
        elif change.status == "D":
            found.append(_diag(change.path, "HZS003", where, "file deleted", "hz/state is append-only"))
        else:
            found.append(_changed(objects, change, where))
    runs = double_runs(tree_reader(objects, parent_tree), proper)
    found += [_diag(path, "HZS021", where, why, DOUBLE_RUN_HINT) for path, why in sorted(runs.items())]
    return found + _receipt_findings(objects, raw.tree, proper, where, context)


def _behind(data: bytes, limit: datetime) -> str | None:
    event = read_plain(data)
    return behind(event, limit) if event is not None else None


def _receipt_findings(
    objects: Objects, tree: str, proper: dict[str, bytes], where: str, context: LintContext | None
) -> list[Diagnostic]:
    """Receipts of the commit that do not follow from hz/state as the commit leaves it, and from main."""
    from hz.gitstate.receipts import CHECKED, HINT, TreeState, receipt_problem

    state = TreeState(objects, tree)
    found = []
    for path, data in sorted(proper.items()):
        if path.rsplit("/", 1)[-1].split("-", 1)[0] not in CHECKED:
            continue  # only receipts are read here: a push of turn events costs no parse
        event = read_plain(data)
        if event is not None and (problem := receipt_problem(event, state, context.contracts if context else None)):
            found.append(_diag(path, "HZS023", where, problem, HINT))
    return found


def _changed(objects: Objects, change: Change, where: str) -> Diagnostic:
    """A changed file: said as the double run it is when it starts its slot again under another token."""
    old = objects.blob(change.old) if change.old else None
    new = objects.blob(change.new) if change.new else None
    why = rerun(old, new) if old is not None and new is not None else None
    if why is not None:
        return _diag(change.path, "HZS021", where, why, DOUBLE_RUN_HINT)
    line = _first_changed_line(old, new)
    return Diagnostic(change.path, line, 1, "HZS002", "error", where, "line changed", "hz/state is append-only")


def _first_changed_line(old_data: bytes | None, new_data: bytes | None) -> int:
    if old_data is None or new_data is None:
        return 1
    old, new = old_data.splitlines(), new_data.splitlines()
    for number, (a, b) in enumerate(zip(old, new, strict=False), start=1):
        if a != b:
            return number
    return min(len(old), len(new)) + 1


def lint_range(repo: Repo, base: str | None, tip: str, context: LintContext | None = None) -> list[Diagnostic]:
    """Lint every commit reachable from `tip` and not from `base`, oldest first."""
    objects = objects_of(repo)
    found: list[Diagnostic] = []
    for oid, _ in objects.commits(tip, base):
        found.extend(check_commit(objects, oid, context))
    return found


def _added_blobs(objects: Objects, changes: list[Change]) -> dict[str, bytes]:
    """The bytes of every file the commit adds, asked for at once (path -> bytes); a missing one raises."""
    added = [change for change in changes if change.status == "A" and change.new is not None]
    found = objects.read_many([change.new for change in added if change.new is not None])
    blobs: dict[str, bytes] = {}
    for change, (kind, data) in zip(added, found, strict=True):
        if kind != "blob":
            raise KeyError(f"blob {(change.new or '')[:12]} at {change.path} is missing")
        blobs[change.path] = data
    return blobs
