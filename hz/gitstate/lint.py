"""The lint of `hz/state`: nothing but known, typed, textless events, and nothing ever changes.

It reads commits, not a checkout: for each commit the files it added are checked line by line and
anything else it did (change or delete a file, write outside `events/`, merge, sign with an address,
say something in its message) is refused. Codes (HZS = hz state):

HZS001 path outside events/ or not in the layout    HZS008 a field named like text (body, draft, …)
HZS002 a line changed or removed                    HZS009 a value that is not of its field's type
HZS003 a file deleted                               HZS010 something shaped like an e-mail address
HZS004 not exactly one line, or an oversized line   HZS011 the path does not match the event's identity
HZS005 not a JSON object                            HZS012 a merge, a free-text message or an addressed author
HZS006 an unknown event kind                        HZS013 a rewrite or deletion of hz/state or a lease
HZS007 an unknown field                             HZS014 a malformed lease record or token
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from hz.diagnostic import Diagnostic
from hz.gitstate.events import PAYLOADS, Event, path_of
from hz.gitstate.layout import MAX_LINE_BYTES, is_event_path

if TYPE_CHECKING:
    import pygit2

EMAIL = re.compile(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}")
BANNED_WORDS = frozenset(
    {"text", "draft", "body", "transcript", "summary", "lesson", "message", "prompt", "content", "name", "email"}
)
# a field may name a banned thing when it only holds that thing's fingerprint or id (draft_hash)
HARMLESS_SUFFIXES = frozenset({"hash", "fp", "id", "key", "size", "count"})
COMMIT_MESSAGE = re.compile(r"^hz-state: [0-9]{1,6} events?\n?$")


def banned_field(name: str) -> bool:
    parts = [p for p in re.split(r"[_.\-]", name.lower()) if p]
    if not parts or (parts[-1] in HARMLESS_SUFFIXES and len(parts) > 1):
        return False
    return any(p in BANNED_WORDS for p in parts)


def _diag(path: str, code: str, loc: str, message: str, hint: str = "", column: int = 1) -> Diagnostic:
    return Diagnostic(path, 1, column, code, "error", loc, message, hint)


def _column(line: str, needle: str) -> int:
    index = line.find(needle)
    return index + 1 if index >= 0 else 1


def check_event_file(path: str, data: bytes, where: str = "") -> list[Diagnostic]:
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
        raw = json.loads(line)
    except (UnicodeDecodeError, ValueError) as exc:
        return [_diag(path, "HZS005", loc, f"not JSON: {exc}")]
    if not isinstance(raw, dict):
        return [_diag(path, "HZS005", loc, "an event is a JSON object")]
    return _check_event(path, line, raw, loc)


def _check_event(path: str, line: str, raw: dict[str, Any], loc: str) -> list[Diagnostic]:
    if match := EMAIL.search(line):
        return [
            _diag(
                path,
                "HZS010",
                loc,
                "something shaped like an e-mail address",
                "no addresses on hz/state",
                match.start() + 1,
            )
        ]
    found = [
        _diag(
            path,
            "HZS008",
            f"{loc} {name}",
            f"field {name.rsplit('.', 1)[-1]!r} is named like text",
            "hz/state holds ids, hashes, numbers and enums, never text",
            _column(line, f'"{name.rsplit(".", 1)[-1]}"'),
        )
        for name in _field_names(raw)
        if banned_field(name.rsplit(".", 1)[-1])
    ]
    if found:
        return found
    kind = raw.get("kind")
    if not isinstance(kind, str) or kind not in PAYLOADS:
        return [
            _diag(
                path, "HZS006", f"{loc} kind", f"unknown event kind {kind!r}", _known_kinds(), _column(line, '"kind"')
            )
        ]
    try:
        event = Event.model_validate(raw)
    except ValidationError as exc:
        return [_from_error(path, line, loc, err) for err in exc.errors()]
    try:
        PAYLOADS[event.kind].model_validate(event.data)
    except ValidationError as exc:
        return [_from_error(path, line, loc, err, ("data",)) for err in exc.errors()]
    if path_of(event) != path:
        return [_diag(path, "HZS011", loc, f"kind and key belong at {path_of(event)}")]
    return []


def _known_kinds() -> str:
    return "known kinds: " + ", ".join(sorted(PAYLOADS))


def _field_names(value: Any, prefix: str = "") -> Iterator[str]:
    if isinstance(value, dict):
        for key, child in value.items():
            name = f"{prefix}{key}"
            yield name
            yield from _field_names(child, name + ".")
    elif isinstance(value, list):
        for child in value:
            yield from _field_names(child, prefix)


def _from_error(path: str, line: str, loc: str, err: Any, prefix: tuple[str, ...] = ()) -> Diagnostic:
    field = ".".join(str(p) for p in (*prefix, *err["loc"]))
    last = str(err["loc"][-1]) if err["loc"] else ""
    where = f"{loc} {field}".strip()
    if err["type"] == "extra_forbidden":
        return _diag(
            path,
            "HZS007",
            where,
            f"unknown field {last!r}",
            "every kind has a fixed set of fields",
            _column(line, f'"{last}"'),
        )
    if err["type"] == "string_pattern_mismatch":
        message = f"{field}: a free string where a typed value belongs ({err['msg']})"
        return _diag(
            path,
            "HZS009",
            where,
            message,
            "values are hashes, ids, keys, enums, handles or times",
            _column(line, f'"{last}"'),
        )
    return _diag(path, "HZS009", where, f"{field}: {err['msg']}", "", _column(line, f'"{last}"'))


def check_commit_shape(repo: pygit2.Repository, commit: Any) -> list[Diagnostic]:
    """The commit itself: one parent at most, the fixed message, no address in its signatures."""
    where = str(commit.id)[:12]
    found: list[Diagnostic] = []
    if len(commit.parents) > 1:
        found.append(_diag("<commit>", "HZS012", where, "a merge commit", "hz/state grows by fast-forwards only"))
    if not COMMIT_MESSAGE.match(commit.message):
        found.append(
            _diag("<commit>", "HZS012", where, "commit message is free text", "hz writes 'hz-state: N events'")
        )
    for sig in (commit.author, commit.committer):
        if "@" in sig.email or EMAIL.search(sig.name):
            found.append(
                _diag(
                    "<commit>",
                    "HZS010",
                    where,
                    "commit signed with an e-mail address",
                    "hz signs its commits as 'hz <hz>'",
                )
            )
            break
    return found


def check_commit(repo: pygit2.Repository, commit: Any) -> list[Diagnostic]:
    """Everything one commit of `hz/state` did, against its parent (or nothing, for a root commit)."""
    import pygit2

    found = check_commit_shape(repo, commit)
    where = str(commit.id)[:12]
    base: Any = commit.parents[0].tree if commit.parents else repo[repo.TreeBuilder().write()]
    diff: Any = repo.diff(base, commit.tree)
    for delta in diff.deltas:
        path = delta.new_file.path if delta.status_char() == "A" else delta.old_file.path
        status = delta.status_char()
        if status == "A":
            if delta.new_file.mode != pygit2.enums.FileMode.BLOB:
                found.append(_diag(path, "HZS001", where, "not a plain file"))
                continue
            found.extend(check_event_file(path, _blob(repo, delta.new_file.id), where))
        elif status == "D":
            found.append(_diag(path, "HZS003", where, "file deleted", "hz/state is append-only"))
        else:
            line = _first_changed_line(repo, delta)
            found.append(Diagnostic(path, line, 1, "HZS002", "error", where, "line changed", "hz/state is append-only"))
    return found


def _first_changed_line(repo: pygit2.Repository, delta: Any) -> int:
    try:
        old = _blob(repo, delta.old_file.id).splitlines()
        new = _blob(repo, delta.new_file.id).splitlines()
    except KeyError:
        return 1
    for number, (a, b) in enumerate(zip(old, new, strict=False), start=1):
        if a != b:
            return number
    return min(len(old), len(new)) + 1


def lint_range(repo: pygit2.Repository, base: str | None, tip: str) -> list[Diagnostic]:
    """Lint every commit reachable from `tip` and not from `base`, oldest first."""
    import pygit2

    walker = repo.walk(tip, pygit2.enums.SortMode.TOPOLOGICAL | pygit2.enums.SortMode.REVERSE)
    if base is not None:
        walker.hide(base)
    found: list[Diagnostic] = []
    for commit in walker:
        found.extend(check_commit(repo, commit))
    return found


def _blob(repo: pygit2.Repository, oid: Any) -> bytes:
    blob: Any = repo[oid]
    return bytes(blob.data)
