"""The lint, commit by commit: every refusal with its code, place and message."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pygit2
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hz.diagnostic import Diagnostic
from hz.gitstate import objects
from hz.gitstate.events import Event, path_of
from hz.gitstate.layout import event_path
from hz.gitstate.lint import banned_field, check_event_file, lint_range
from tests.gitstate.factory import hz_id, placed, started

NOW = datetime(2026, 10, 30, 15, tzinfo=UTC)
EVENT = started(hz_id(1), "2026-10-30T15:00:00Z", 1)
PATH = path_of(EVENT)


def line(**changes: Any) -> bytes:
    raw = json.loads(EVENT.line())
    for dotted, value in changes.items():
        node = raw
        *parents, last = dotted.split("__")
        for part in parents:
            node = node[part]
        node[last] = value
    return json.dumps(raw, separators=(",", ":")).encode() + b"\n"


def one(data: bytes, path: str = PATH) -> Diagnostic:
    found = check_event_file(path, data)
    assert len(found) == 1, found
    return found[0]


def test_a_proper_event_is_clean() -> None:
    assert check_event_file(PATH, EVENT.line()) == []


@pytest.mark.parametrize(
    ("changes", "code", "loc", "message"),
    [
        ({"data__text": "we shipped it"}, "HZS008", f"{PATH} data.text", "field 'text' is named like text"),
        ({"data__lesson_id": "x", "data__summary": "x"}, "HZS008", f"{PATH} data.summary",
         "field 'summary' is named like text"),
        ({"kind": "turn.chatted"}, "HZS006", f"{PATH} kind", "unknown event kind 'turn.chatted'"),
        ({"data__colour": "red"}, "HZS007", f"{PATH} data.colour", "unknown field 'colour'"),
        ({"data__turn": "hello world"}, "HZS009", f"{PATH} data.turn",
         "data.turn: a free string where a typed value belongs (String should match pattern "
         "'^(?:(?:t|rq|am)-)?[0-9A-HJKMNP-TV-Z]{26}$')"),
        ({"data__role": "boss"}, "HZS009", f"{PATH} data.role",
         "data.role: Input should be 'owner', 'delegate' or 'actions'"),
        ({"data__cause": "ann@example.com"}, "HZS010", PATH, "something shaped like an e-mail address"),
        ({"token": 2}, "HZS011", PATH, None),
    ],
)  # fmt: skip
def test_each_refusal(changes: dict[str, Any], code: str, loc: str, message: str | None) -> None:
    if code == "HZS011":
        changes = {"key": f"{hz_id(1)}@created"}
        message = f"kind and key belong at {event_path(hz_id(1), 'turn.started', f'{hz_id(1)}@created')}"
    found = one(line(**changes))
    assert (found.code, found.loc, found.message, found.line) == (code, loc, message, 1)


def test_the_column_points_at_the_offending_field() -> None:
    data = line(data__body="x")
    found = one(data)
    assert data.decode()[found.column - 1 :].startswith('"body"')
    assert found.render() == (
        f"{PATH}:1:{found.column}  HZS008  {PATH} data.body\n  field 'body' is named like text\n"
        "  hint: hz/state holds ids, hashes, numbers and enums, never text"
    )


def test_shape_refusals() -> None:
    assert one(b"{}\n", "notes/readme.md").message == "a file outside events/"
    assert one(b"{}\n", "events/x.json").code == "HZS001"
    assert one(EVENT.line() * 2).message == "an event file holds exactly one line ending in a newline"
    assert one(EVENT.line().rstrip(b"\n")).code == "HZS004"
    assert one(b"x" * 5000 + b"\n").message == "line of 5001 bytes (at most 4096)"
    assert one(b"[1]\n").message == "an event is a JSON object"
    assert one(b"{nope\n").code == "HZS005"


@pytest.mark.parametrize(
    ("name", "banned"),
    [("text", True), ("draft", True), ("draft_hash", False), ("draft_text", True), ("prompt", True),
     ("message_id", False), ("transcript", True), ("keys", False), ("output_fp", False), ("email", True)],
)  # fmt: skip
def test_banned_field_names(name: str, banned: bool) -> None:
    assert banned_field(name) is banned


# --- commits -----------------------------------------------------------------------------------------


@pytest.fixture
def store(tmp_path: Path) -> pygit2.Repository:
    return pygit2.init_repository(str(tmp_path / "s.git"), bare=True)


def commit(repo: pygit2.Repository, parent: str | None, files: dict[str, bytes | None], message: str = "") -> str:
    base = repo[parent].peel(pygit2.Tree) if parent else None
    builder_files = {p: d for p, d in files.items() if d is not None}
    tree = objects.write_tree(repo, base.id if base is not None else None, builder_files)
    for path in (p for p, d in files.items() if d is None):
        tree = _remove(repo, tree, path)
    msg = message or f"hz-state: {len(files)} event{'s' if len(files) != 1 else ''}\n"
    return objects.make_commit(repo, tree, [parent] if parent else [], msg, NOW)


def _remove(repo: pygit2.Repository, tree_id: Any, path: str) -> Any:
    head, _, rest = path.partition("/")
    tree: Any = repo[tree_id]
    builder = repo.TreeBuilder(tree)
    if rest:
        child = _remove(repo, tree[head].id, rest)
        if len(repo[child]):  # like git, leave no empty folder behind
            builder.insert(head, child, objects.TREE_MODE)
        else:
            builder.remove(head)
    else:
        builder.remove(head)
    return builder.write()


def test_history_of_proper_commits_is_clean(store: pygit2.Repository) -> None:
    first = commit(store, None, {PATH: EVENT.line()})
    second = commit(store, first, {path_of(placed(hz_id(1), 1, 1)): placed(hz_id(1), 1, 1).line()})
    assert lint_range(store, None, second) == []
    assert lint_range(store, first, second) == []


def test_a_rewritten_line_and_a_deleted_file_are_refused(store: pygit2.Repository) -> None:
    first = commit(store, None, {PATH: EVENT.line()})
    changed = commit(
        store, first, {PATH: started(hz_id(1), "2026-10-30T15:00:00Z", 1, ts="2026-10-30T15:00:09Z").line()}
    )
    deleted = commit(store, first, {PATH: None})
    [rewrite] = lint_range(store, first, changed)
    assert (rewrite.path, rewrite.line, rewrite.code, rewrite.message) == (PATH, 1, "HZS002", "line changed")
    [gone] = lint_range(store, first, deleted)
    assert (gone.path, gone.code, gone.message) == (PATH, "HZS003", "file deleted")


def test_commit_messages_and_merges_are_refused(store: pygit2.Repository) -> None:
    talky = commit(store, None, {PATH: EVENT.line()}, message="Priya asked for risks first\n")
    [found] = lint_range(store, None, talky)
    assert (found.code, found.message, found.loc) == ("HZS012", "commit message is free text", talky[:12])


def test_a_merge_and_an_addressed_author_are_refused(store: pygit2.Repository) -> None:
    left = commit(store, None, {PATH: EVENT.line()})
    other = placed(hz_id(1), 1, 1)
    right = commit(store, None, {path_of(other): other.line()})
    tree = store[right].peel(pygit2.Tree).id
    merge = objects.make_commit(store, tree, [left, right], "hz-state: 1 event\n", NOW)
    assert [(d.code, d.message) for d in lint_range(store, right, merge) if d.path == "<commit>"] == [
        ("HZS012", "a merge commit")
    ]
    who = pygit2.Signature("Ann Example", "ann@example.com", int(NOW.timestamp()), 0)
    addressed = str(store.create_commit(None, who, who, "hz-state: 1 event\n", tree, []))
    assert [(d.code, d.message) for d in lint_range(store, None, addressed)] == [
        ("HZS010", "commit signed with an e-mail address")
    ]


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
    max_leaves=12,
)


@given(st.dictionaries(st.sampled_from(["v", "kind", "id", "key", "ts", "lease", "token", "data", "x"]), JSON))
@settings(max_examples=150, deadline=None)
def test_the_lint_never_crashes_and_passes_only_real_events(raw: dict[str, Any]) -> None:
    data = json.dumps(raw).encode() + b"\n"
    found = check_event_file(PATH, data)
    assert all(d.code.startswith("HZS") for d in found)
    if not found:
        event = Event.parse_obj_checked(raw)
        assert path_of(event) == PATH


@given(JSON)
@settings(max_examples=200, deadline=None)
def test_any_value_in_a_proper_event_is_checked(value: Any) -> None:
    found = check_event_file(PATH, line(data__contract_fp=value))
    assert {d.code for d in found} <= {"HZS008", "HZS009", "HZS010"}
    assert found or value == json.loads(EVENT.line())["data"]["contract_fp"]
