"""A team contract under team coordination: the lease decides who runs a slot, receipts go to hz/state."""

from __future__ import annotations

import os
import subprocess
from datetime import UTC, datetime, timedelta
from pathlib import Path

from hz.heinzel.lifecycle import Origin, create
from hz.review.branches import branch_name
from hz.session.store import Store
from hz.tick.daemon import tick

CONTRACT_ID = "01KC0000000000000000000000"
MONDAY = datetime(2026, 10, 26, 9, 0, tzinfo=UTC)
FRIDAY = datetime(2026, 10, 30, 15, 0, tzinfo=UTC)
TEAM = f"""---
name: team-note
kind: responsibility
id: {CONTRACT_ID}
description: The team's weekly note, drafted on a branch for review.
hz:
  schema: 1
  title: Team note
  owner: "@priya"
  maintainers: ["@omar"]
  scope: team
  schedule: "0 15 * * FRI"
  outputs:
    note:
      target: "state:notes/{{slot:%G-W%V}}.md"
      facets: [summary]
---

# Team note

### Goal

The team's note for the week is drafted every Friday.

### Maintains

- `note`: the note.

#### summary

Material: what shipped.

### Done when

- [ ] the week is covered
"""


def git(*args: str, cwd: Path | None = None) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout.strip()


def member(
    tmp: Path, name: str, bare: Path, *, contract: str = TEAM, adopted: datetime = MONDAY - timedelta(days=7)
) -> tuple[Path, dict[str, str]]:
    """A member's clone of the team repository and their own HZ_HOME, with the team contract adopted."""
    clone = tmp / name / "repo"
    git("clone", "-q", str(bare), str(clone))
    environ = {**os.environ, "HZ_HOME": str(tmp / name / "hz"), "HZ_HANDLE": f"@{name}"}
    with Store.from_environ(environ) as store:
        create(store, contract, label="workflows/team-note.prose.md", namespace="team", handle=f"@{name}",
               origin=Origin("adopted"), now=adopted, approve=True)  # fmt: skip
    return clone, environ


def test_the_lease_picks_one_runner_per_slot_and_receipts_land_in_one_push(tmp_path: Path) -> None:
    bare = tmp_path / "team.git"
    git("init", "-q", "--bare", str(bare))
    seed = tmp_path / "seed"
    git("init", "-q", str(seed))
    roster = '[team.members]\n"@priya" = ["hz-test@example.invalid"]\n'  # the test's pinned git identity
    (seed / "hz.toml").write_text(f'[state]\nremote = "{bare}"\ntick_interval_s = 300\n{roster}')
    (seed / "workflows").mkdir()
    (seed / "workflows" / "team-note.prose.md").write_text(TEAM)  # approvals count for contracts on main only
    git("add", "hz.toml", "workflows", cwd=seed)
    git("commit", "-q", "-m", "team repo", cwd=seed)
    git("push", "-q", str(bare), "HEAD:main", cwd=seed)

    priya, priya_env = member(tmp_path, "priya", bare)
    omar, omar_env = member(tmp_path, "omar", bare)
    # the created turns of both: priya, the owner, wins the lease for the slot; omar finds it done
    owner = tick(root=priya, environ=priya_env, now=MONDAY)
    assert [(e["action"], e.get("disposition")) for e in owner.woken] == [("started", "drafted")]
    assert owner.pushed is True
    delegate = tick(root=omar, environ=omar_env, now=MONDAY)
    assert [(e["action"], e.get("reason")) for e in delegate.woken] == [("skipped", "ran-elsewhere")]

    on_friday = tick(root=priya, environ=priya_env, now=FRIDAY)
    assert [(e["action"], e.get("disposition")) for e in on_friday.woken] == [("started", "drafted")]
    lease = git("--git-dir", str(bare), "for-each-ref", "--format=%(refname)", "refs/hz/lease/")
    assert lease == f"refs/hz/lease/hz-{CONTRACT_ID}"
    files = git("--git-dir", str(bare), "ls-tree", "-r", "--name-only", "hz/state").splitlines()
    assert len(files) == 6  # started, draft placed, finished for each of priya's two turns
    branches = [b for b in git("branch", "--list", "hz/draft/*", cwd=priya).split() if b != "*"]
    weeks = [branch_name(CONTRACT_ID, "note", f"state:notes/2026-W{week}.md") for week in (43, 44)]
    assert branches == weeks  # named for what they draft: one branch per week's key, side by side

    # merging a draft branch on the remote approves it: the next tick records it and deletes the branch;
    # the other week's draft waits for its own review (another key: nothing superseded it)
    git("merge", "-q", "--no-ff", "-m", "Approve the note", weeks[1], cwd=priya)  # a fast-forward names no merger
    git("push", "-q", "origin", "HEAD:main", cwd=priya)
    approved = tick(root=priya, environ=priya_env, now=FRIDAY + timedelta(hours=1))
    said = [(e["agent"], e["action"]) for e in approved.woken]
    assert said[:1] == [("approvals", "approved")], approved.woken
    kinds = git("--git-dir", str(bare), "ls-tree", "-r", "--name-only", "hz/state").splitlines()
    assert sum("approval.observed" in k for k in kinds) == 1 and sum("draft.superseded" in k for k in kinds) == 0
    assert git("--git-dir", str(bare), "for-each-ref", "--format=%(refname)", "refs/heads/hz/draft/") == (
        f"refs/heads/{weeks[0]}"
    )


def test_without_an_identity_no_team_slot_runs_unleased(tmp_path: Path) -> None:
    bare = tmp_path / "team.git"
    git("init", "-q", "--bare", str(bare))
    seed = tmp_path / "seed"
    git("init", "-q", str(seed))
    (seed / "hz.toml").write_text(f'[state]\nremote = "{bare}"\n')
    git("add", "hz.toml", cwd=seed)
    git("commit", "-q", "-m", "team repo", cwd=seed)
    git("push", "-q", str(bare), "HEAD:main", cwd=seed)
    clone, environ = member(tmp_path, "priya", bare)
    del environ["HZ_HANDLE"]
    report = tick(root=clone, environ=environ, now=MONDAY)
    assert report.woken == [
        {"agent": "hz/state", "action": "error", "error": "no handle: hz does not know who you are"}
    ]
    assert git("branch", "--list", "hz/draft/*", cwd=clone) == ""
