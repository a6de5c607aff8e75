"""bench/burst.py counts the draft branches hz really pushes (issue 24, point 9): its branch column reads
the names from hz.review.branches, and this test has a member draft one of the bench's own contracts."""

from __future__ import annotations

import sys
from pathlib import Path

from hz.tick.daemon import tick
from tests.turn.test_team import MONDAY, member
from tests.turn.test_team_drafts import _team_repo

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
import burst  # bench/ is a folder of scripts, not a package


def test_the_bench_counts_the_draft_branch_a_tick_pushes_for_its_contract(tmp_path: Path) -> None:
    bare = _team_repo(tmp_path)
    priya, environ = member(tmp_path, "priya", bare, contract=burst.contract(0, "@priya", "@omar"))
    created = tick(root=priya, environ=environ, now=MONDAY)
    # the team repository's own contract (team-note) is due at the same moment: only the bench's counts here
    ours = [e for e in created.woken if e["agent"] == "burst-000"]
    assert [(e["action"], e.get("disposition")) for e in ours] == [("started", "drafted")]
    (branch,) = burst.draft_branches(bare, 1)
    assert branch.startswith(f"refs/heads/hz/draft/{burst.contract_id(0)}/report@state-reports-burst-000-"), branch
