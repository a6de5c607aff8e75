"""Receipts judged by every version of their contract on main's first-parent history, and nothing else."""

from __future__ import annotations

from pathlib import Path

import pygit2
import pytest

from hz.gitstate.events import DraftPlaced, Event
from hz.gitstate.lint_contracts import MainContracts
from tests.gitstate.factory import git, sha, turn_id

CONTRACT_ID = "01KC0000000000000000000009"
LEASE = f"hz-{CONTRACT_ID}"
SLOT = "2026-11-30T09:00Z"
CONTRACT = f"""---
name: hourly
kind: responsibility
id: {CONTRACT_ID}
description: An hourly page.
hz:
  schema: 1
  title: Hourly page
  owner: "@ann"
  scope: team
  schedule: "0 * * * *"
  outputs:
    page:
      target: "state:{{folder}}/{{{{slot:%Y-%m-%d-%H}}}}.md"
---

# Hourly page
"""


def placed(folder: str) -> Event:
    asset = f"state:{folder}/2026-11-30-09.md"
    key = f"{LEASE}@v1@{SLOT}@{asset}"
    data = DraftPlaced(turn=turn_id(1), key=key, asset=asset, hash=sha(folder))
    return Event.make("draft.placed", id=LEASE, key=key, ts="2026-11-30T09:00:00Z", lease=LEASE, token=1, data=data)


def target_in(repo: Path, folder: str, message: str) -> None:
    (repo / "workflows").mkdir(exist_ok=True)
    (repo / "workflows" / "hourly.prose.md").write_text(CONTRACT.format(folder=folder))
    git("add", "-A", cwd=repo)
    git("commit", "-q", "-m", message, cwd=repo)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """main: the target in `old`, then a pull request (merged with a merge commit) whose first commit
    tried `draft-only` and whose last settled on `new`."""
    path = tmp_path / "team"
    git("init", "-q", "-b", "main", str(path))
    target_in(path, "old", "hourly")
    git("switch", "-q", "-c", "pr", cwd=path)
    target_in(path, "draft-only", "try a folder")
    target_in(path, "new", "settle on a folder")
    git("switch", "-q", "main", cwd=path)
    git("merge", "-q", "--no-ff", "-m", "merge pr", "pr", cwd=path)
    return path


@pytest.mark.parametrize("strict", [True, False])
def test_every_version_on_main_counts_and_a_version_main_never_had_does_not(repo: Path, strict: bool) -> None:
    contracts = MainContracts.read(pygit2.Repository(str(repo)), strict=strict)
    assert contracts is not None
    assert contracts.problem(placed("new")) is None  # the tip's
    assert contracts.problem(placed("old")) is None  # an earlier version's
    assert contracts.problem(placed("draft-only")) == (  # only ever on the pull request's branch
        "asset 'state:draft-only/2026-11-30-09.md' is not a target of the contract on main"
    )
    assert (
        contracts.problem(placed("never"))
        == "asset 'state:never/2026-11-30-09.md' is not a target of the contract on main"
    )


def test_a_retired_contract_keeps_its_names_and_loses_its_roles(repo: Path) -> None:
    git("rm", "-q", "workflows/hourly.prose.md", cwd=repo)
    git("commit", "-q", "-m", "retire hourly", cwd=repo)
    contracts = MainContracts.read(pygit2.Repository(str(repo)), strict=True)
    assert contracts is not None
    assert contracts.problem(placed("new")) is None  # a receipt written while it lived
    assert contracts.holder_problem(LEASE, "@ann/m-0000000a", "owner") == (
        f"no contract on main has the id {CONTRACT_ID}"  # nobody begins a new hold of it
    )
