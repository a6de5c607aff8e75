"""Refs in a member's clone stay bounded by the pending drafts: a draft's kept copy goes once it has a fate."""

from __future__ import annotations

from datetime import timedelta
from itertools import pairwise
from pathlib import Path

import pygit2

from hz.gitstate import objects
from hz.gitstate.events import DraftPlaced, DraftSuperseded, Event, path_of
from hz.gitstate.layout import event_digest
from hz.gitstate.remote import TeamRemote
from hz.gitstate.types import format_utc
from hz.tick.daemon import tick
from tests.gitstate.factory import turn_id
from tests.turn.team_harness import bare_remote, push_main
from tests.turn.test_team import CONTRACT_ID, FRIDAY, TEAM, git, member

AGENT = f"hz-{CONTRACT_ID}"
DRAFTS = 200


def _draft(n: int) -> tuple[Event, str]:
    """The n-th weekly draft of the team note (placed an hour apart, long before FRIDAY) and its key."""
    slot = format_utc(FRIDAY - timedelta(hours=DRAFTS + 24 - n))
    asset = f"state:notes/r{n}.md"
    key = f"{AGENT}@v1@{slot}@{asset}"
    data = DraftPlaced(turn=turn_id(n + 1), key=key, asset=asset, hash="sha256:" + f"{n:064x}")
    return Event.make("draft.placed", id=AGENT, key=key, ts=slot, lease=AGENT, token=1, data=data), key


def _superseded_history(bare: Path) -> list[Event]:
    """hz/state on the remote with DRAFTS drafts, each but the last superseded by the next (plumbing, one commit)."""
    drafts = [_draft(n) for n in range(DRAFTS)]
    events = [placed for placed, _ in drafts]
    for (placed, key), (_, newer) in pairwise(drafts):
        data = DraftSuperseded(key=key, asset=str(placed.data["asset"]), by=newer)
        events.append(Event.make("draft.superseded", id=AGENT, key=key, ts=placed.ts, lease=AGENT, token=1, data=data))
    repo = pygit2.Repository(str(bare))
    tree = objects.write_tree(repo, None, {path_of(e): e.line() for e in events})
    tip = objects.make_commit(repo, tree, [], f"hz-state: {len(events)} events\n", FRIDAY - timedelta(days=1))
    objects.set_ref(repo, "refs/heads/hz/state", tip)
    return [placed for placed, _ in drafts]


def test_the_copies_of_200_superseded_drafts_are_gone_after_a_tick(tmp_path: Path) -> None:
    bare = bare_remote(tmp_path)
    state = f'[state]\nremote = "{bare}"\ntick_interval_s = 300\n'
    # hz/state's drafts count for contracts on main only
    push_main(tmp_path, bare, {"hz.toml": state, "workflows/team-note.prose.md": TEAM})
    placed = _superseded_history(bare)
    priya, priya_env = member(tmp_path, "priya", bare)
    remote = TeamRemote(priya, str(bare), priya_env)
    head = git("rev-parse", "HEAD", cwd=priya)
    for event in placed:  # what ticks of this clone kept while each draft waited
        objects.set_ref(remote.repo, remote.sync_prefix + f"placed/{AGENT}/{event_digest('draft.placed', event.key)}",
                        head)  # fmt: skip
    assert len(_copies(priya)) == DRAFTS

    report = tick(root=priya, environ=priya_env, now=FRIDAY)
    said = [(e["agent"], e["action"]) for e in report.woken]
    assert said == [("approvals", "rejected"), ("team-note", "started")]  # the last one's branch was never there
    assert _copies(priya) == []  # 199 superseded, 1 rejected: every copy went with its draft's fate
    # the next tick finds Friday's draft waiting on its branch and keeps a copy of it: one pending, one copy
    tick(root=priya, environ=priya_env, now=FRIDAY + timedelta(hours=1))
    files = git("--git-dir", str(bare), "ls-tree", "-r", "--name-only", "hz/state").split()
    ours = {path_of(event) for event in placed}
    fridays = [path for path in files if "/draft.placed-" in path and path not in ours]
    assert len(fridays) == 1
    digest = fridays[0].rsplit("-", 1)[-1].removesuffix(".json")
    assert _copies(priya) == [remote.sync_prefix + f"placed/{AGENT}/{digest}"]
    every = git("for-each-ref", "--format=%(refname)", cwd=priya).split()
    assert len(every) <= 10, every


def _copies(clone: Path) -> list[str]:
    listed = git("for-each-ref", "--format=%(refname)", "refs/hz/sync/", cwd=clone).split()
    return [name for name in listed if "/placed/" in name]
