"""The review loop, whole: drafted, reviewed on the forge, approved once, published once, read downstream.

Two members (@priya owns `team-pulse`, @omar maintains it and owns `pulse-digest`, which reads
`contract:team-pulse#summary`), Actions-like runs, and Rita, a reviewer on the fake GitHub
(tests/review/fake_forge.py) whose bare repository IS the team's remote, served over loopback `git daemon`
with hz's pre-receive hook. Every participant is an `hz tick` process.

1. 09:00 priya's tick drafts the 09:00 pulse on `hz/draft/<contract>/pulse@<key>` and opens its pull request.
2. Rita edits the file on the pull request and squash-merges it (GitHub deletes nothing; the draft
   commit never reaches main: only the squash commit does).
3. 09:20 omar's tick records `approval.observed` with Rita as approver (the forge's merger, through the
   roster), then comments the approved text on issue #1 (the contract's publish); it is killed (-9) the
   moment the forge stored the comment, before the `publish.done` receipt.
4. 09:25 an Actions run leaves the publish to its recorder (within the grace period); 09:31 another
   finds the comment by its publish key and records the receipt: one comment.
5. 09:32 omar's digest turn (its 09:30 slot) reads the approved, edited pulse from the fetched main;
   priya's tick and another Actions run record nothing more. `hz state lint` is clean.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from hz.session.bodies import read_body
from hz.session.spine import SPINE, read_spine
from tests.gitstate.conftest import bare, loopback  # noqa: F401  (the fixtures, fetched by name below)
from tests.review.fake_forge import FakeForge
from tests.review.test_approval_bookkeeping import ROSTER, START, fates, lint_clean, on_main
from tests.turn.team_harness import Member, actions_run, draft_branches, hourly, seed_remote, state_events

PUBLISH = (
    '  publishes:\n    - action: github.issue.comment\n      output: pulse\n      target: "github:team/hz-team#1"\n'
)
DIGEST = """---
name: pulse-digest
kind: responsibility
id: 01KC4444444444444444444444
description: A digest of the team's approved pulse.
hz:
  schema: 1
  title: Pulse digest
  owner: "@omar"
  scope: team
  schedule: "30 * * * *"
  inputs:
    pulse:
      source: "contract:team-pulse#summary"
      required: false
  outputs:
    digest:
      target: "state:digest/{slot:%Y%m%dT%H%M}.md"
      facets: [summary]
---

# Pulse digest

### Goal

The approved pulse, digested every half hour.

### Requires

- `pulse`: the team's approved pulse.

### Maintains

- `digest`: the digest.

#### summary

Material: the pulse.

### Done when

- [ ] the pulse is digested
"""
RITA = "Rita's words, written on the pull request before she merged it."


def kill_once_commented(fake: FakeForge, victim: list[int]) -> None:
    """Kill the process in `victim` as soon as the forge stored a comment, before the answer leaves."""
    answer = fake.api.answer

    def answer_then_kill(method: str, target: str, headers: dict[str, str], raw: bytes) -> Any:
        reply = answer(method, target, headers, raw)
        if method == "POST" and target.endswith("/comments") and victim:
            os.kill(victim.pop(), signal.SIGKILL)
        return reply

    fake.api.answer = answer_then_kill  # type: ignore[method-assign]


def gathered(member: Member, asset: str) -> list[str]:
    """What each turn of the member's agent drafting `asset…` gathered, as JSON, oldest first."""
    found = []
    for spine in (member.clone.parent / "hz" / "heinzel").glob("hz-*/" + SPINE):
        events = read_spine(spine).events
        if not any(e.kind == "draft.placed" and str(e.data["asset"]).startswith(asset) for e in events):
            continue
        for started in (e for e in events if e.kind == "turn.started"):
            records = read_body(spine.parent, str(started.turn)).records
            found += [json.dumps(r["gather"]) for r in records if "gather" in r]
    return found


def test_a_draft_reviewed_on_the_forge_is_approved_once_published_once_and_read_downstream(
    tmp_path: Path, request: pytest.FixtureRequest, fake_forge: Callable[..., FakeForge]
) -> None:
    remote: Path = request.getfixturevalue("bare")
    url: str = request.getfixturevalue("loopback")
    pulse = hourly("@priya", ["@omar"]).replace("  scope: team\n", "  scope: team\n" + PUBLISH)
    seed_remote(tmp_path, remote, url, pulse, toml=ROSTER, others={"pulse-digest.prose.md": DIGEST})
    fake = fake_forge(remote)
    assert fake.open_issue("Pulse log") == 1
    priya, omar = Member.join(tmp_path, "priya", url), Member.join(tmp_path, "omar", url)
    for member in (priya, omar):
        member.environ.update(fake.environ)

    # 1. the draft and its pull request
    woken = priya.tick(START)
    assert ("started", "drafted") in [(e["action"], e.get("disposition")) for e in woken], woken
    (placed,) = [e for e in state_events(remote) if e["kind"] == "draft.placed" and "pulse/" in e["data"]["asset"]]
    branch = next(b for b in draft_branches(remote) if "/pulse@" in b).removeprefix("refs/heads/")
    (pull,) = [p for p in fake.pulls() if p["head"]["ref"] == branch]
    omar.tick(START + timedelta(minutes=5))  # his daemon looks while the draft waits

    # 2. Rita edits on the pull request and squash-merges it
    path = placed["data"]["asset"].partition(":")[2]
    edited = _branch_file(remote, branch, path) + RITA + "\n"
    merged = fake.edit_and_merge(pull["number"], path, edited, by="rita-gh", method="squash")
    assert on_main(remote, path).decode() == edited

    # 3. omar's tick records the approval and comments, and dies before the comment's receipt
    victim: list[int] = []
    kill_once_commented(fake, victim)
    environ = {**omar.environ}
    process = omar.start(START + timedelta(minutes=20), environ)
    victim.append(process.pid)
    process.communicate(timeout=120)
    assert process.returncode == -signal.SIGKILL
    approvals = fates(remote)
    assert [(e["data"]["key"], e["data"]["approver"]) for e in approvals] == [(placed["data"]["key"], "@rita")]
    assert 0 < approvals[0]["data"]["share_changed"] < 1
    assert len(fake.comments(1)) == 1 and RITA in fake.comments(1)[0]["body"]
    assert fates(remote, "publish.done") == []

    # 4. an Actions run within the grace period leaves the publish to its recorder; after it, it finds the
    # comment by its publish key and records its receipt
    clone, actions_env = actions_run(tmp_path, url, 41)
    Member("actions-41", clone, {**actions_env, **fake.environ}).tick(START + timedelta(minutes=25))
    assert len(fake.comments(1)) == 1 and fates(remote, "publish.done") == []
    clone, actions_env = actions_run(tmp_path, url, 42)
    woken = Member("actions-42", clone, {**actions_env, **fake.environ}).tick(START + timedelta(minutes=31))
    assert {"action": "published", "status": "found"}.items() <= woken[0].items(), woken
    assert len(fake.comments(1)) == 1
    (done,) = fates(remote, "publish.done")
    assert done["data"]["draft_key"] == placed["data"]["key"] and done["data"]["action"] == "github.issue.comment"

    # 5. downstream reads the approved, edited text; nobody records anything twice
    woken = omar.tick(START + timedelta(minutes=32))
    assert {"agent": "pulse-digest", "action": "started", "disposition": "drafted"}.items() <= woken[-1].items()
    assert RITA in gathered(omar, "state:digest/")[-1]
    priya.tick(START + timedelta(minutes=33))
    clone, actions_env = actions_run(tmp_path, url, 43)
    Member("actions-43", clone, {**actions_env, **fake.environ}).tick(START + timedelta(minutes=34))
    assert fates(remote) == approvals and len(fates(remote, "publish.done")) == 1 and len(fake.comments(1)) == 1
    assert merged == _main(remote)  # nothing hz did moved main
    lint_clean(omar)


def _branch_file(remote: Path, branch: str, path: str) -> str:
    done = subprocess.run(
        ["git", "--git-dir", str(remote), "show", f"{branch}:{path}"], capture_output=True, check=True
    )
    return done.stdout.decode()


def _main(remote: Path) -> str:
    done = subprocess.run(["git", "--git-dir", str(remote), "rev-parse", "main"], capture_output=True, check=True)
    return done.stdout.decode().strip()
