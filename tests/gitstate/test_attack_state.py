"""The attack corpus against `hz/state`: each route text or a forged token took onto the branch, kept closed.

Every row builds its commit with git plumbing in a member's clone and pushes it to a bare remote with
hz's pre-receive hook installed; the push must be refused with the row's code and message, nothing must
land, and `hz state lint` in a repository holding the same commit must report it too. The remote holds
a `main` with the team's contract (its inputs and targets are what names on `hz/state` may be) and the
contract's lease, token 1 for one slot, so the rows test the exact rules and not a missing setup.
"""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pygit2
import pytest

from hz.canonical import canonical_json
from hz.gitstate.events import (
    ApprovalObserved,
    ApprovalSeconded,
    ContractAmended,
    DraftPlaced,
    DraftRejected,
    DraftSuperseded,
    Event,
    PublishDone,
    TurnEnded,
    path_of,
)
from hz.gitstate.identity import whoami
from hz.gitstate.layout import event_path
from hz.gitstate.lease import acquire
from hz.gitstate.lease_record import LeaseRecord
from hz.gitstate.reader import history
from hz.gitstate.remote import TeamRemote
from hz.gitstate.settings import StateSettings
from hz.gitstate.writer import StateWriter
from hz.review.publish import done_event, fill_target, publish_key
from tests.gitstate import plumbing
from tests.gitstate.factory import finished, git, hz_id, new_clone, sha, started, turn_id

AGENT = hz_id(7)
SLOT = "2026-10-30T15:00:00Z"
CONTRACT = f"""---
name: weekly
kind: responsibility
description: The weekly report.
id: {AGENT.removeprefix("hz-")}
hz:
  schema: 1
  title: Weekly report
  owner: "@ann"
  scope: team
  inputs:
    prs:
      source: git:log
  outputs:
    report:
      target: state:reports/{{slot:%Y-%m-%d}}.md
      facets: [summary]
  publishes:
    - action: github.issue.comment
      output: report
      target: github:acme/site#12
      auto_approve: site-comments
---

## Goal

Keep the weekly report true.
""".encode()
BASE = started(AGENT, SLOT, 1)
ROSTER = b'[team.members]\n"@rita" = ["rita@example.com"]\n"@omar" = ["omar-gh"]\n'


@dataclass(frozen=True)
class Team:
    clone: Path
    remote: Path
    base: str  # the clean hz/state commit the remote holds
    files: dict[str, bytes]  # its files


@pytest.fixture
def team(tmp_path: Path, bare: Path, hz: Any) -> Team:
    assert hz("state", "install-hook", str(bare)).exit_code == 0
    clone = new_clone(tmp_path / "clone")
    contracts = plumbing.tree(clone, {b"workflows": {b"weekly.prose.md": CONTRACT}, b"hz.toml": ROSTER})
    main = plumbing.commit(clone, contracts, message=b"the weekly contract\n", author=b"Ann <ann> 1761836400 +0000")
    record = LeaseRecord(lease=AGENT, holder="@ann", role="owner", token=1, slot=SLOT,
                         acquired="2026-10-30T14:59:00Z", expires="2026-10-30T15:09:00Z")  # fmt: skip
    lease = plumbing.commit(clone, plumbing.tree(clone, {b"lease.json": record.line()}),
                            message=f"lease {AGENT} token 1 held\n".encode())  # fmt: skip
    files = {path_of(BASE): BASE.line()}
    base = plumbing.commit(clone, plumbing.tree(clone, plumbing.nested(files)))  # type: ignore[arg-type]
    refs = [f"{main}:refs/heads/main", f"{lease}:refs/hz/lease/{AGENT}", f"{base}:refs/heads/hz/state"]
    done = plumbing.push(clone, bare, *refs)
    assert done.returncode == 0, done.stderr
    for spec in refs:
        commit, _, ref = spec.partition(":")
        git("-C", str(clone), "update-ref", ref, commit)
    return Team(clone, bare, base, files)


# --- the routes --------------------------------------------------------------------------------------


def raw_of(event: Event, **changes: Any) -> dict[str, Any]:
    raw: dict[str, Any] = json.loads(event.line())
    for dotted, value in changes.items():
        node = raw
        *parents, last = dotted.split("__")
        for part in parents:
            node = node[part]
        node[last] = value
    return raw


def canonical(raw: dict[str, Any]) -> bytes:
    return canonical_json(raw) + b"\n"


def adds(data: bytes, path: str | None = None, raw: dict[str, Any] | None = None) -> Callable[[Team], str]:
    """A route: one hz-shaped commit on the remote's tip that adds this event file."""

    def build(team: Team) -> str:
        where = path if raw is None else event_path(raw["id"], raw["kind"], raw["key"])
        assert where is not None
        files = {**team.files, where: data}
        return plumbing.commit(team.clone, plumbing.tree(team.clone, plumbing.nested(files)), (team.base,))  # type: ignore[arg-type]

    return build


def event_route(raw: dict[str, Any], data: bytes | None = None) -> Callable[[Team], str]:
    return adds(canonical(raw) if data is None else data, raw=raw)


def created(**changes: Any) -> dict[str, Any]:
    """A turn.started under a key of its own (`<id>@created`), with `changes` applied."""
    key = f"{AGENT}@created"
    return raw_of(BASE, key=key, data__keys=[key], **changes)


def draft(asset: str, token: int = 1, slot: str = SLOT) -> Event:
    key = f"{AGENT}@v1@{slot.removesuffix(':00Z')}Z@{asset}"
    data = DraftPlaced(turn=turn_id(1), key=key, asset=asset, hash=sha("d"))
    return Event.make("draft.placed", id=AGENT, key=key, ts=slot, lease=AGENT, token=token, data=data)


GOOD_DRAFT = draft("state:reports/2026-10-30.md")
V9_DRAFT = Event.make(
    "draft.placed",
    id=AGENT,
    key=GOOD_DRAFT.key.replace("@v1@", "@v9@"),
    ts=SLOT,
    lease=AGENT,
    token=1,
    data=DraftPlaced.model_validate({**GOOD_DRAFT.data, "key": GOOD_DRAFT.key.replace("@v1@", "@v9@")}),
)
AMENDED = Event.make("contract.amended", id=AGENT, key=f"{AGENT}@v2", ts=SLOT, lease=AGENT, token=1,
                     data=ContractAmended(version=10**12, fingerprint=sha("c")))  # fmt: skip


def with_tree(extra: dict[bytes, Any]) -> Callable[[Team], str]:
    """A commit adding a proper event, whose tree also holds `extra` under events/<agent>/."""

    def build(team: Team) -> str:
        root = plumbing.nested({**team.files, path_of(GOOD_DRAFT): GOOD_DRAFT.line()})
        folder = root[b"events"][AGENT.encode()]  # type: ignore[index]
        folder.update(extra)
        return plumbing.commit(team.clone, plumbing.tree(team.clone, root), (team.base,))  # type: ignore[arg-type]

    return build


def raw_commit(message: bytes = b"hz-state: 1 event\n", **kwargs: Any) -> Callable[[Team], str]:
    """A commit adding a proper event, with these raw message, author or extra header bytes."""

    def build(team: Team) -> str:
        files = {**team.files, path_of(GOOD_DRAFT): GOOD_DRAFT.line()}
        tree_id = plumbing.tree(team.clone, plumbing.nested(files))  # type: ignore[arg-type]
        return plumbing.commit(team.clone, tree_id, (team.base,), message, **kwargs)

    return build


def text_commit(team: Team) -> str:
    """A commit whose message is the text: what refs/replace or another refs/hz name would carry."""
    tree_id = plumbing.tree(team.clone, plumbing.nested(team.files))  # type: ignore[arg-type]
    return plumbing.commit(team.clone, tree_id, (team.base,), b"Priya said the migration slipped to May\n")


def ended(key_slot: str, token: int, **inputs: str) -> Event:
    event = finished(AGENT, key_slot, token)
    data = TurnEnded.model_validate({**event.data, "input_fps": inputs or event.data["input_fps"]})
    return Event.make("turn.finished", id=AGENT, key=event.key, ts=key_slot, lease=AGENT, token=token, data=data)


SENTENCE_SLUG = ended(SLOT, 1, priya_asked_for_risks_first=sha("x"))
SENTENCE_ASSET = draft("state:reports/priya-asked-for-risks-first.md")
FORGED = draft("state:reports/2026-10-30.md", token=999)
FUTURE = ended("2026-10-31T15:00:00Z", 1)
NOT_SCHEDULED = finished(AGENT, "2026-10-31T15:00:00Z", 1).key

NEXT_MONTH = (datetime.now(UTC) + timedelta(days=31)).replace(microsecond=0).isoformat().replace("+00:00", "Z")
SALARY_KEY = f"{AGENT}@salary-{turn_id(1)[2:]}"
YEAR_ONE_KEY = GOOD_DRAFT.key.replace("@2026-10-30T15:00Z@", "@0001-01-01T00:00Z@")
ESCAPED = canonical(created(data__turn="priya@example.com")).replace(b"@ex", b"\\u0040ex")
KEY_PATTERN_MSG = "key: a free string where a typed value belongs (String should match pattern"


def receipt(kind: str, payload: Any, key: str | None = None, ts: str = "2026-10-30T16:00:00Z") -> Event:
    """A lease-less receipt of GOOD_DRAFT (its lease and token, as hz writes them)."""
    return Event.make(kind, id=AGENT, key=key or GOOD_DRAFT.key, ts=ts, lease=AGENT, token=1, data=payload)  # type: ignore[arg-type]


ASSET_OF = "state:reports/2026-10-30.md"
APPROVED = receipt("approval.observed", ApprovalObserved(key=GOOD_DRAFT.key, asset=ASSET_OF, approver="@rita",
                                                         share_changed=0.25, output_fp=sha("o")))  # fmt: skip
REJECTED = receipt("draft.rejected", DraftRejected(key=GOOD_DRAFT.key, asset=ASSET_OF, by="@omar"))
CEO = receipt("approval.observed", ApprovalObserved(key=GOOD_DRAFT.key, asset=ASSET_OF,
                                                    approver="@CEO-leaves-in-March-tell-nobody",
                                                    share_changed=0.0, output_fp=sha("o")))  # fmt: skip
SELF_APPROVED = receipt("approval.observed", ApprovalObserved(key=GOOD_DRAFT.key, asset=ASSET_OF, approver="@rita",
                                                              share_changed=0.0, output_fp=sha("o"),
                                                              self_approved=True))  # fmt: skip
NEWER = draft("state:reports/2026-10-30.md", slot="2026-10-30T16:00:00Z")
NEWER_STILL = draft("state:reports/2026-10-30.md", slot="2026-10-30T17:00:00Z")
ISSUE = "github:acme/site/issues/12"


def published(action: str, target: str, template: str) -> Event:
    """A publish.done of GOOD_DRAFT for `action` to `target` (its publish key made from `template`)."""
    filled = fill_target(template, GOOD_DRAFT.key)
    done = PublishDone(key=publish_key(GOOD_DRAFT.key, action, filled), draft_key=GOOD_DRAFT.key,
                       action=action, target=target, hash=sha("t"))  # type: ignore[arg-type]  # fmt: skip
    return done_event(done, ts=datetime(2026, 10, 30, 16, 5, tzinfo=UTC), lease=AGENT, token=1)


def after(*first: Event, then: Event) -> Callable[[Team], str]:
    """Two commits: a clean one adding `first`, then one adding `then` (the route)."""

    def build(team: Team) -> str:
        files = {**team.files, **{path_of(e): e.line() for e in first}}
        one = plumbing.commit(team.clone, plumbing.tree(team.clone, plumbing.nested(files)), (team.base,),  # type: ignore[arg-type]
                              f"hz-state: {len(first)} event{'s' * (len(first) > 1)}\n".encode())  # fmt: skip
        files[path_of(then)] = then.line()
        return plumbing.commit(team.clone, plumbing.tree(team.clone, plumbing.nested(files)), (one,))  # type: ignore[arg-type]

    return build


@dataclass(frozen=True)
class Route:
    name: str
    build: Callable[[Team], str]
    code: str
    message: str  # the diagnostic's message line (a prefix for the long pattern messages)
    ref: str = "refs/heads/hz/state"
    lint: tuple[str, str] | None = None  # what `hz state lint` says of the commit, when not (code, message)
    history_clean: bool = False  # a whole-branch lint passes it (written before the rule); `--range` does not


ROUTES = [
    Route("duplicate keys", event_route(created(), b'{"v":1,' + canonical(created())[1:]), "HZS015", "duplicate key v"),
    Route("sentence-named empty folder", with_tree({b"we shipped the migration late": {}}), "HZS001",
          "a folder outside the layout"),
    Route("empty fan folder", with_tree({b"ab": {}}), "HZS001", "an empty folder"),
    Route("NUL in the message", raw_commit(b"hz-state: 1 event\n\0Priya earns 95k\n"), "HZS012",
          "commit message is free text"),
    Route("a number in the message", raw_commit(b"hz-state: 424242 events\n"), "HZS012",
          "the message says 424242 events, the commit adds 1"),
    Route("extra header x-secret", raw_commit(extra=b"x-secret priya-salary-95k\n"), "HZS012",
          "commit header x-secret is not hz's"),
    Route("gpgsig header", raw_commit(extra=b"gpgsig -----BEGIN PGP SIGNATURE-----\n Priya Raman\n "
                                            b"-----END PGP SIGNATURE-----\n"), "HZS012",
          "commit header gpgsig is not hz's"),
    Route("member as author", raw_commit(author=b"Priya Raman <priya> 1761836400 +0000"), "HZS012",
          "author or committer is not hz's own signature"),
    Route("spelled-out address", event_route(created(data__turn="priya at example dot com")), "HZS010",
          "something shaped like an e-mail address"),
    Route("bracketed address", event_route(created(data__turn="priya [at] example [dot] com")), "HZS010",
          "something shaped like an e-mail address"),
    Route("fullwidth at sign", event_route(created(data__turn="priya\uff20example.com")), "HZS010",
          "something shaped like an e-mail address"),
    Route("small at sign", event_route(created(data__turn="priya\ufe6bexample.com")), "HZS010",
          "something shaped like an e-mail address"),
    Route("escaped at sign", event_route(created(data__turn="priya@example.com"), ESCAPED), "HZS010",
          "something shaped like an e-mail address"),
    Route("sentence in a key", event_route(raw_of(BASE, key=f"{AGENT}@priya-asked-for-risks-first",
                                                  data__keys=[f"{AGENT}@priya-asked-for-risks-first"])),
          "HZS009", KEY_PATTERN_MSG),
    Route("sentence in a slug", event_route(raw_of(SENTENCE_SLUG)), "HZS019",
          "input 'priya_asked_for_risks_first' is not declared by the contract on main"),
    Route("sentence in an asset ref", event_route(raw_of(SENTENCE_ASSET)), "HZS019",
          "asset 'state:reports/priya-asked-for-risks-first.md' is not a target of the contract on main"),
    Route("refs/replace", text_commit, "HZS016",
          "refs/replace/* would rewrite what the server shows for other commits", ref="refs/replace/{base}",
          lint=("HZS012", "commit message is free text")),
    Route("text commit under refs/hz/other", text_commit, "HZS016",
          "under refs/hz/ only lease refs exist (refs/hz/lease/<hz id>)", ref="refs/hz/notes",
          lint=("HZS012", "commit message is free text")),
    Route("forged token", event_route(raw_of(FORGED)), "HZS017", f"token 999 was never given by lease {AGENT}"),
    Route("future-slot turn.finished", event_route(raw_of(FUTURE)), "HZS017",
          f"token 1 of lease {AGENT} was not given for slot {NOT_SCHEDULED.split('@', 1)[1]}"),
    # times (issue 20: the year 1 crashed every member's tick for good)
    Route("year 1", event_route(raw_of(GOOD_DRAFT, ts="0001-01-01T00:00:00Z")), "HZS009",
          "ts: Value error, 0001-01-01T00:00:00Z is outside 2000-2099"),
    Route("year 9999", event_route(raw_of(GOOD_DRAFT, ts="9999-12-31T23:59:59Z")), "HZS009",
          "ts: Value error, 9999-12-31T23:59:59Z is outside 2000-2099"),
    Route("a slot in the year 1", event_route(raw_of(GOOD_DRAFT, key=YEAR_ONE_KEY, data__key=YEAR_ONE_KEY)),
          "HZS009", KEY_PATTERN_MSG),
    Route("next month", event_route(raw_of(GOOD_DRAFT, ts=NEXT_MONTH)), "HZS022",
          f"ts {NEXT_MONTH} is more than a day ahead of the clock"),
    # hidden-data channels (issue 20, finding 8)
    Route("16 chosen digits in a share", after(GOOD_DRAFT, then=receipt("approval.observed", ApprovalObserved(
          key=GOOD_DRAFT.key, asset=ASSET_OF, approver="@rita", share_changed=0.7210116101114101, output_fp=sha("o")))),
          "HZS009", "data.share_changed: 0.7210116101114101 has more than 3 decimals", history_clean=True),
    Route("a cost in nano-dollars", event_route(raw_of(ended(SLOT, 1), data__cost_usd=0.123456789)), "HZS009",
          "data.cost_usd: 0.123456789 has more than 6 decimals", history_clean=True),
    Route("a turn id with free letters", event_route(raw_of(GOOD_DRAFT, data__turn="secret-" + turn_id(1)[2:])),
          "HZS009", "data.turn: a free string where a typed value belongs (String should match pattern"),
    Route("a request key with free letters", event_route(raw_of(BASE, key=SALARY_KEY, data__keys=[SALARY_KEY])),
          "HZS009", KEY_PATTERN_MSG),
    Route("a turn of a version main never had", event_route(created(data__contract_version=3)), "HZS025",
          f"v3 of {AGENT} is more than main has (1 change of it on main's first-parent line: v2 at most)"),
    Route("contract.amended to version 10^12", event_route(raw_of(AMENDED)), "HZS025",
          f"v1000000000000 of {AGENT} is more than main has (1 change of it on main's first-parent line: v2 at most)"),
    Route("a draft of a version main never had", event_route(raw_of(V9_DRAFT)), "HZS025",
          f"v9 of {AGENT} is more than main has (1 change of it on main's first-parent line: v2 at most)"),
    # receipts nobody earned (issue 20, finding 2)
    Route("approval of a draft never placed", adds(APPROVED.line(), path_of(APPROVED)), "HZS023",
          f"no draft.placed of {GOOD_DRAFT.key} before it"),
    Route("approver who is no member", after(GOOD_DRAFT, then=CEO), "HZS023",
          "@CEO-leaves-in-March-tell-nobody is not a member of the roster on main"),
    Route("approval of a rejected draft", after(GOOD_DRAFT, REJECTED, then=APPROVED), "HZS023",
          "the draft has its fate already (draft.rejected)"),
    Route("rejection by no member", after(GOOD_DRAFT, then=receipt("draft.rejected", DraftRejected(
          key=GOOD_DRAFT.key, asset=ASSET_OF, by="@mallory"))), "HZS023",
          "@mallory is not a member of the roster on main"),
    Route("rejection naming nobody", after(GOOD_DRAFT, then=receipt("draft.rejected", DraftRejected(
          key=GOOD_DRAFT.key, asset=ASSET_OF))), "HZS009", "data.by: a new draft.rejected names who rejected it",
          history_clean=True),
    Route("superseded by a draft never placed", after(GOOD_DRAFT, then=receipt("draft.superseded", DraftSuperseded(
          key=GOOD_DRAFT.key, asset=ASSET_OF, by=NEWER.key))), "HZS023",
          f"by {NEWER.key} is no other placed draft of the same contract"),
    Route("seconded with no self-approval", after(GOOD_DRAFT, APPROVED, then=receipt("approval.seconded",
          ApprovalSeconded(key=GOOD_DRAFT.key, asset=ASSET_OF, approver="@omar"))), "HZS023",
          "approval.seconded follows the draft's self-approved approval.observed"),
    Route("seconded by the approver", after(GOOD_DRAFT, SELF_APPROVED, then=receipt("approval.seconded",
          ApprovalSeconded(key=GOOD_DRAFT.key, asset=ASSET_OF, approver="@rita"))), "HZS023",
          "the seconder is the member who approved it"),
    Route("publish before its approval", after(GOOD_DRAFT, then=published("github.issue.comment", ISSUE,
          "github:acme/site#12")), "HZS023",
          f"no approval.observed of {GOOD_DRAFT.key} before it, and no live policy on main auto-approves it"),
    Route("publish the contract does not declare", after(GOOD_DRAFT, APPROVED, then=published(
          "state.file.write", "state:salaries/bob-earns-250k/x.md", "state:salaries/bob-earns-250k/x.md")), "HZS023",
          "state.file.write to state:salaries/bob-earns-250k/x.md is no publish the contract on main declares"),
    Route("publish to another target under a declared key", after(GOOD_DRAFT, APPROVED, then=published(
          "github.issue.comment", "github:acme/salaries/issues/1", "github:acme/site#12")), "HZS023",
          "github.issue.comment to github:acme/salaries/issues/1 is no publish the contract on main declares"),
]  # fmt: skip


def findings(lines: list[str]) -> list[tuple[str, str]]:
    """(code, message) of every rendered diagnostic: `path:1:1  CODE  loc` then `  message`."""
    found = []
    for head, body in itertools.pairwise(lines):
        parts = head.split("  ")
        if len(parts) >= 2 and parts[1].startswith("HZS"):
            found.append((parts[1], body.strip()))
    return found


@pytest.mark.parametrize("route", ROUTES, ids=[r.name for r in ROUTES])
def test_each_route_is_refused_by_the_hook_and_reported_by_the_lint(
    route: Route, team: Team, hz: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    bad = route.build(team)
    ref = route.ref.format(base=team.base)
    done = plumbing.push(team.clone, team.remote, f"{bad}:{ref}")
    lines = plumbing.remote_lines(done.stderr)
    assert done.returncode == 1
    assert f"!\t{bad}:{ref}\t[remote rejected] (pre-receive hook declined)" in done.stdout
    assert lines[0] == "hz: the hz/state lint refuses this push:"
    [(code, message)] = findings(lines)
    assert code == route.code
    assert message.startswith(route.message) if route.message.endswith("pattern") else message == route.message
    assert git("--git-dir", str(team.remote), "rev-parse", "hz/state").strip() == team.base
    assert git("--git-dir", str(team.remote), "for-each-ref", "refs/replace", "refs/hz/notes") == ""

    git("-C", str(team.clone), "update-ref", "refs/heads/hz/state", bad)
    monkeypatch.chdir(team.clone)
    if route.history_clean:  # a rule newer than the branch: its history reads as it is, a range is held to it
        assert (hz("state", "lint").exit_code, hz("state", "lint").out) == (0, "hz/state: clean\n")
    result = hz("state", "lint", "--range", f"{team.base}..{bad}") if route.history_clean else hz("state", "lint")
    expected_code, expected_message = route.lint or (route.code, route.message)
    [(code, message)] = findings(result.out.splitlines())
    assert (result.exit_code, code) == (1, expected_code)
    assert message.startswith(expected_message) if expected_message.endswith("pattern") else message == expected_message


def test_hz_writes_and_ordinary_refs_still_pass(team: Team) -> None:
    """A proper event, a draft branch (`refs/heads/hz/draft/…`), another branch and a tag are all accepted."""
    good = adds(GOOD_DRAFT.line(), path_of(GOOD_DRAFT))(team)
    other = plumbing.commit(team.clone, plumbing.tree(team.clone, {b"README.md": b"hi\n"}), message=b"docs\n")
    refs = [f"{good}:refs/heads/hz/state", f"{other}:refs/heads/hz/draft/weekly/report",
            f"{other}:refs/heads/feature", f"{other}:refs/tags/v1"]  # fmt: skip
    done = plumbing.push(team.clone, team.remote, *refs)
    assert done.returncode == 0, done.stderr
    assert git("--git-dir", str(team.remote), "rev-parse", "hz/state").strip() == good


def test_receipts_that_follow_from_the_state_and_main_pass(
    team: Team, hz: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What hz writes for a draft's life passes the hook and the lint: each receipt after what it follows."""
    seconded = receipt("approval.seconded", ApprovalSeconded(key=GOOD_DRAFT.key, asset=ASSET_OF, approver="@omar"))
    superseded = receipt("draft.superseded", DraftSuperseded(key=NEWER.key, asset=ASSET_OF, by=NEWER_STILL.key),
                         key=NEWER.key)  # fmt: skip
    unknown = receipt("draft.rejected", DraftRejected(key=NEWER_STILL.key, asset=ASSET_OF, by="@unknown"),
                      key=NEWER_STILL.key)  # fmt: skip
    steps = [[GOOD_DRAFT], [SELF_APPROVED], [seconded, published("github.issue.comment", ISSUE, "github:acme/site#12")],
             [NEWER], [NEWER_STILL, superseded], [unknown]]  # fmt: skip
    files, tip = dict(team.files), team.base
    for events in steps:
        files.update({path_of(e): e.line() for e in events})
        message = f"hz-state: {len(events)} event{'s' * (len(events) > 1)}\n".encode()
        tip = plumbing.commit(team.clone, plumbing.tree(team.clone, plumbing.nested(files)), (tip,), message)  # type: ignore[arg-type]
        done = plumbing.push(team.clone, team.remote, f"{tip}:refs/heads/hz/state")
        assert done.returncode == 0, done.stderr
    git("-C", str(team.clone), "update-ref", "refs/heads/hz/state", tip)
    monkeypatch.chdir(team.clone)
    result = hz("state", "lint")
    assert (result.exit_code, result.out) == (0, "hz/state: clean\n")


POLICY = (
    b'[policy.site-comments]\nowner = "@ann"\naction = "github.issue.comment"\nscope = "team"\nexpires = 2099-01-01\n'
)


def test_a_policy_on_a_pull_request_branch_grants_nothing_until_it_is_on_main(team: Team) -> None:
    """Point 12 of issue 20: a non-maintainer's pull request adds `policies/auto-approve.toml` granting the
    contract's comment. Its branch lands (any branch may), but an auto-approved `publish.done` under it is
    refused; once the policy is on `main` (merged through review), the same receipt passes."""
    main = git("--git-dir", str(team.remote), "rev-parse", "main").strip()
    tree = plumbing.tree(team.clone, {b"workflows": {b"weekly.prose.md": CONTRACT}, b"hz.toml": ROSTER,
                                      b"policies": {b"auto-approve.toml": POLICY}})  # fmt: skip
    widened = plumbing.commit(
        team.clone, tree, (main,), b"Let the bot comment\n", author=b"Mallory <m> 1761836400 +0000"
    )
    placed = adds(GOOD_DRAFT.line(), path_of(GOOD_DRAFT))(team)
    done = plumbing.push(team.clone, team.remote, f"{widened}:refs/heads/widen-policy", f"{placed}:refs/heads/hz/state")
    assert done.returncode == 0, done.stderr
    comment = published("github.issue.comment", ISSUE, "github:acme/site#12")
    files = {**team.files, path_of(GOOD_DRAFT): GOOD_DRAFT.line(), path_of(comment): comment.line()}
    auto = plumbing.commit(team.clone, plumbing.tree(team.clone, plumbing.nested(files)), (placed,))  # type: ignore[arg-type]
    refused = plumbing.push(team.clone, team.remote, f"{auto}:refs/heads/hz/state")
    assert refused.returncode == 1
    no_grant = f"no approval.observed of {GOOD_DRAFT.key} before it, and no live policy on main auto-approves it"
    assert findings(plumbing.remote_lines(refused.stderr)) == [("HZS023", no_grant)]
    merged = plumbing.push(team.clone, team.remote, f"{widened}:refs/heads/main")
    assert merged.returncode == 0, merged.stderr
    granted = plumbing.push(team.clone, team.remote, f"{auto}:refs/heads/hz/state")
    assert granted.returncode == 0, granted.stderr


# --- the hook fails closed ----------------------------------------------------------------------------


def run_hook(remote: Path, stdin: bytes) -> subprocess.CompletedProcess[str]:
    """The installed hook's command, as git runs it in the remote (GIT_DIR set, lines on stdin)."""
    env = {"GIT_DIR": str(remote), "PATH": "/usr/bin:/bin", "HOME": str(remote.parent)}
    done = subprocess.run([sys.executable, "-m", "hz", "state", "lint", "--hook"], input=stdin, env=env,
                          capture_output=True, check=False)  # fmt: skip
    return subprocess.CompletedProcess(done.args, done.returncode, done.stdout.decode(), done.stderr.decode())


ZERO = "0" * 40


@pytest.mark.parametrize(
    "stdin",
    [b"not a ref update\n", b"\xff\xfe\xfd refs/heads/hz/state\n", b"0000 1111\n"],
    ids=["malformed line", "not UTF-8", "short ids"],
)
def test_the_hook_refuses_what_it_cannot_read_with_one_line(team: Team, stdin: bytes) -> None:
    done = run_hook(team.remote, stdin)
    assert (done.returncode, done.stderr) == (
        1,
        "hz: HZS018 refusing this push: the hook could not check it "
        "(HookFailure: a ref update line git would not send)\n",
    )


def test_a_ref_name_that_is_not_utf8_is_refused_by_name(team: Team) -> None:
    done = run_hook(team.remote, f"{ZERO} {team.base} refs/hz/".encode() + b"\xff\xfe\n")
    assert done.returncode == 1
    assert findings(done.stderr.splitlines()) == [
        ("HZS016", "under refs/hz/ only lease refs exist (refs/hz/lease/<hz id>)")
    ]


def test_a_missing_object_or_a_tag_for_hz_state_is_refused_not_a_crash(team: Team) -> None:
    missing = run_hook(team.remote, f"{team.base} {'1' * 40} refs/heads/hz/state\n".encode())
    tag = _tag(team.remote, team.base)
    tagged = run_hook(team.remote, f"{team.base} {tag} refs/heads/hz/state\n".encode())
    assert (missing.returncode, tagged.returncode) == (1, 1)
    assert findings(missing.stderr.splitlines()) == [("HZS012", "hz/state points at a commit, not a missing object")]
    assert findings(tagged.stderr.splitlines()) == [("HZS012", "hz/state points at a commit, not a tag")]


def _tag(remote: Path, commit: str) -> str:
    body = f"object {commit}\ntype commit\ntag t\ntagger hz <hz> 1761836400 +0000\n\nPriya's notes\n".encode()
    done = subprocess.run(["git", "--git-dir", str(remote), "hash-object", "-t", "tag", "-w", "--stdin"],
                          input=body, capture_output=True, check=True)  # fmt: skip
    return done.stdout.decode().strip()


def test_a_path_that_is_not_utf8_is_refused_by_name(team: Team) -> None:
    bad = with_tree({b"\xff\xfe.json": b"{}\n"})(team)
    done = plumbing.push(team.clone, team.remote, f"{bad}:refs/heads/hz/state")
    assert done.returncode == 1
    assert findings(plumbing.remote_lines(done.stderr)) == [("HZS001", "a file outside the layout")]


def test_what_hz_itself_writes_passes_the_hook_with_fences_and_contracts(tmp_path: Path, team: Team) -> None:
    """hz's own writer: a take-over of the lease for the next slot and the turn's receipts, in one push."""
    now = datetime(2026, 10, 30, 15, 30, tzinfo=UTC)
    slot = "2026-10-30T15:30:00Z"
    env = {"HZ_HOME": str(tmp_path / "home-ann"), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    member = TeamRemote(new_clone(tmp_path / "ann"), str(team.remote), env)
    settings = StateSettings(lease_ttl_s=600, clock_skew_s=30)
    won = acquire(member, AGENT, slot=slot, identity=whoami({"HZ_HANDLE": "ann"}), role="owner", now=now,
                  settings=settings)  # fmt: skip  # the owner (the contract's roles), on another machine
    assert won.won and won.record is not None and won.record.token == 2
    writer = StateWriter(member, settings)
    writer.queue(started(AGENT, slot, 2), draft("state:reports/2026-10-30.md", 2, slot), ended(slot, 2, prs=sha("p")))
    result = writer.flush(now + timedelta(minutes=1))
    assert (len(result.landed), result.fenced, result.pending) == (3, set(), 0)
    tip = git("--git-dir", str(team.remote), "rev-parse", "hz/state").strip()
    landed = list(history(pygit2.Repository(str(team.remote)), tip))
    assert [(e.event.kind, e.event.token, e.void) for e in landed] == [
        ("turn.started", 1, False), ("turn.started", 2, False), ("draft.placed", 2, False), ("turn.finished", 2, False)
    ]  # fmt: skip


def test_a_forged_high_token_voids_nothing_for_readers(
    tmp_path: Path, hz: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past a remote without the hook: the forged event is void itself and the real ones after it are not."""
    clone = new_clone(tmp_path / "clone")
    record = LeaseRecord(lease=AGENT, holder="@ann", role="owner", token=1, slot=SLOT,
                         acquired="2026-10-30T14:59:00Z", expires="2026-10-30T15:09:00Z")  # fmt: skip
    lease = plumbing.commit(clone, plumbing.tree(clone, {b"lease.json": record.line()}),
                            message=f"lease {AGENT} token 1 held\n".encode())  # fmt: skip
    files: dict[str, bytes] = {}
    tip: tuple[str, ...] = ()
    for event in (BASE, FORGED, ended(SLOT, 1)):  # real, forged (token 999), real again
        files[path_of(event)] = event.line()
        tip = (plumbing.commit(clone, plumbing.tree(clone, plumbing.nested(files)), tip),)  # type: ignore[arg-type]
    git("-C", str(clone), "update-ref", f"refs/hz/lease/{AGENT}", lease)
    git("-C", str(clone), "update-ref", "refs/heads/hz/state", tip[0])
    monkeypatch.chdir(clone)
    result = hz("state", "log", "--no-fetch", "--json", "--remote", str(tmp_path / "nowhere.git"))
    assert result.exit_code == 0, result.err
    assert [(e["event"]["token"], e["void"]) for e in json.loads(result.out)] == [(1, False), (999, True), (1, False)]


def test_an_agent_no_contract_names_or_another_agents_lease_is_refused(team: Team) -> None:
    """With `main` present, receipts are for its contracts only, each under its own lease."""
    other = hz_id(8)
    record = LeaseRecord(lease=other, holder="@mallory", role="owner", token=1, slot="2026-10-31T15:00:00Z",
                         acquired="2026-10-30T14:59:00Z", expires="2026-10-30T15:09:00Z")  # fmt: skip
    lease = plumbing.commit(team.clone, plumbing.tree(team.clone, {b"lease.json": record.line()}),
                            message=f"lease {other} token 1 held\n".encode())  # fmt: skip
    stray = started(other, "2026-10-31T15:00:00Z", 1)
    borrowed = raw_of(ended("2026-10-31T15:00:00Z", 1), lease=other)  # AGENT's future slot under mallory's lease
    for data, message in (
        (stray.line(), f"no contract on main has the id {other.removeprefix('hz-')}"),
        (canonical(borrowed), f"written under lease {other}, not its own lease {AGENT}"),
    ):
        bad = adds(data, event_path(*(json.loads(data)[k] for k in ("id", "kind", "key"))))(team)
        done = plumbing.push(team.clone, team.remote, f"{bad}:refs/heads/hz/state", f"{lease}:refs/hz/lease/{other}")
        assert done.returncode == 1
        code = "HZS019" if "contract" in message else "HZS017"
        undeclared = f"commit {lease[:12]}: no contract on main has the id {other.removeprefix('hz-')}"
        assert findings(plumbing.remote_lines(done.stderr)) == [(code, message), ("HZS019", undeclared)]
