"""Approved drafts wake nobody through `git:` inputs (issue 19, finding 8).

`history-note` reads this repository's history (`git:.`, no `on:`). When Rita squash-merges the pulse's
draft with her own message and an edit (no trailer survives), the member's next tick after a pull must
not draft the note again: another contract's approved output reaches readers through `contract:` inputs,
not through the history. A person's commit still wakes it. The team harness: separate `hz tick`
processes, the hook-guarded remote over loopback `git daemon`, a reviewer's clone.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from tests.gitstate.conftest import bare, loopback  # noqa: F401  (the fixtures, fetched by name below)
from tests.turn.team_harness import Member, Reviewer, draft_branches, hourly, seed_remote
from tests.turn.test_team import git

NINE = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)
ROSTER = '\n[team.members]\n"@rita" = ["rita@example.com"]\n"@priya" = ["priya@example.com"]\n'
NOTE = """---
name: history-note
kind: responsibility
id: 01KC6666666666666666666666
description: A note on what changed in the repository.
hz:
  schema: 1
  title: History note
  owner: "@priya"
  scope: team
  schedule: "0 18 * * *"
  inputs:
    history:
      source: "git:."
      window: 30d
  outputs:
    note:
      target: "state:notes/{slot:%Y-%m-%d}.md"
      facets: [summary]
---

# History note

### Goal

What changed, noted.

### Requires

- `history`: what changed.

### Maintains

- `note`: the note.

#### summary

Material: the commits.

### Done when

- [ ] every change is noted
"""


def note(woken: list[dict[str, Any]]) -> list[tuple[str, Any]]:
    return [(e["action"], e.get("disposition")) for e in woken if e["agent"] == "history-note"]


def pull(member: Member) -> None:
    git("pull", "-q", "--ff-only", "origin", "main", cwd=member.clone)


def test_a_merged_draft_of_another_contract_does_not_wake_a_git_reader_a_persons_commit_does(
    tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    remote: Path = request.getfixturevalue("bare")
    url: str = request.getfixturevalue("loopback")
    seed_remote(tmp_path, remote, url, hourly("@priya", ["@omar"]), toml=ROSTER,
                others={"history-note.prose.md": NOTE})  # fmt: skip
    priya, rita = Member.join(tmp_path, "priya", url), Reviewer.join(tmp_path, url, "Rita", "rita@example.com")
    assert note(priya.tick(NINE)) == [("started", "drafted")]  # the note's first turn saw the history

    # Rita squash-merges the pulse's draft with her own message and an edit: no trailer survives
    branch = next(b for b in draft_branches(remote) if "/pulse@" in b).removeprefix("refs/heads/")

    def edit(clone: Path) -> None:
        with (clone / "pulse/20261102T0900.md").open("a", encoding="utf-8") as page:
            page.write("\nRita's line.\n")

    rita.squash_merge(branch, edit, message="Pulse of nine, reviewed")
    pull(priya)
    assert note(priya.tick(NINE + timedelta(minutes=10))) == []  # an approved output is no news to a git: reader
    assert note(priya.tick(NINE + timedelta(minutes=20))) == []

    # a person's commit is news
    (rita.clone / "src").mkdir()
    (rita.clone / "src" / "app.py").write_text("print(1)\n")
    rita.git("add", "src/app.py")
    rita.git("commit", "-q", "-m", "A change by Rita")
    rita.git("push", "-q", "origin", "main")
    pull(priya)
    assert note(priya.tick(NINE + timedelta(minutes=30))) == [("started", "drafted")]
