"""The owner learns from the review of a draft a delegate placed: its text is read from git, not the spine.

@omar's tick places the 09:00 pulse once @priya's grace period passed (she was away); her next tick sees the
draft waiting (and keeps a copy of it). Rita squash-merges it with an edit, omar's tick records the approval,
and priya's next tick that loads her agent (its 10:00 slot: an idle tick loads no agent that has no draft of
its own waiting), with a model runner, runs an approval turn that sees the draft as omar's tick placed it.
"""

from __future__ import annotations

import subprocess
from datetime import timedelta
from pathlib import Path

import pytest

from hz.session.spine import SPINE, read_spine
from tests.gitstate.conftest import bare, loopback  # noqa: F401  (the fixtures, fetched by name below)
from tests.review.test_approval_bookkeeping import RITA_EDIT, START, edit, fates, team
from tests.review.test_approval_lessons import lessons_claude
from tests.turn.team_harness import Reviewer, draft_branches, state_events


def test_the_owner_learns_from_a_draft_a_delegate_placed(tmp_path: Path, request: pytest.FixtureRequest) -> None:
    remote, url, priya, omar = team(tmp_path, request)
    priya.environ = priya.with_runner(lessons_claude(tmp_path / "claude"), tmp_path / "priya-config")
    woken = omar.tick(START + timedelta(minutes=11))  # priya's grace period is over: omar drafts
    assert ("started", "drafted") in [(e["action"], e.get("disposition")) for e in woken], woken
    (placed,) = [e for e in state_events(remote) if e["kind"] == "draft.placed"]
    (branch,) = draft_branches(remote)
    priya.tick(START + timedelta(minutes=12))  # the draft waits: her tick sees it
    path = placed["data"]["asset"].partition(":")[2]
    drafted = _show(remote, f"{branch}:{path}")
    Reviewer.join(tmp_path, url, "Rita", "rita@example.com").squash_merge(
        branch.removeprefix("refs/heads/"), edit(path)
    )
    omar.tick(START + timedelta(minutes=15))
    assert len(fates(remote)) == 1

    woken = priya.tick(START + timedelta(hours=1))  # her agent's next turn (no draft of hers waited)
    assert ("started", "learned") in [(e["action"], e.get("disposition")) for e in woken], woken
    prompt = (tmp_path / "claude" / "approval-prompt.txt").read_text()
    assert RITA_EDIT.strip() in prompt and drafted.strip().splitlines()[0] in prompt
    spines = list((priya.clone.parent / "hz" / "heinzel").glob("hz-*/" + SPINE))
    events = [e for spine in spines for e in read_spine(spine).events]
    assert [e.data["sentence"] for e in events if e.kind == "lesson.recorded"] == ["end with the reviewer's line"]
    woken = priya.tick(START + timedelta(hours=1, minutes=5))  # learned once
    assert ("started", "learned") not in [(e["action"], e.get("disposition")) for e in woken], woken


def _show(remote: Path, spec: str) -> str:
    return subprocess.run(
        ["git", "--git-dir", str(remote), "show", spec], capture_output=True, check=True, text=True
    ).stdout
