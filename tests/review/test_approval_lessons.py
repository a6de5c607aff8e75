"""The owner's session learns from a team draft's review, even when another member recorded the approval.

The approval is recorded on hz/state by whoever ticks first (here the maintainer, while the owner holds
the slot's lease); the owner's next tick, with a model runner configured (a scripted `claude`), runs an
approval turn of its own, with no lease, whose model sees the draft as placed and the text as the
reviewer squash-merged it. Nothing of that turn goes to hz/state: lessons are about one person's edits.
"""

from __future__ import annotations

import json
import sys
from datetime import timedelta
from pathlib import Path

import pytest

from hz.session.spine import SPINE, read_spine
from tests.gitstate.conftest import bare, loopback  # noqa: F401  (the fixtures, fetched by name below)
from tests.review.test_approval_bookkeeping import RITA_EDIT, START, edit, fates, placed_draft, team
from tests.turn.team_harness import Reviewer, state_events


def lessons_claude(folder: Path) -> Path:
    """A `claude` that drafts, or answers an approval turn with one lesson; it keeps what it was asked."""
    bin_dir = folder / "bin"
    bin_dir.mkdir(parents=True)
    draft = {"kind": "draft", "report": "the pulse", "drafts": [{"output": "pulse", "facet": "summary",
             "text": "The pulse of the hour."}]}  # fmt: skip
    lesson = {"kind": "lessons", "report": "learned from Rita", "lessons": [
        {"sentence": "end with the reviewer's line", "hunks": ["@@ -1 +1,2 @@"]}]}  # fmt: skip
    answer = {"type": "result", "subtype": "success", "is_error": False, "num_turns": 1, "result": "",
              "total_cost_usd": 0.0, "usage": {"input_tokens": 10, "output_tokens": 20}}  # fmt: skip
    script = bin_dir / "claude"
    script.write_text(
        f"#!{sys.executable}\n"
        "import json, sys\n"
        "asked = sys.stdin.read()\n"
        f"answer = {answer!r}\n"
        "if '<input name=\"approval\"' in asked:\n"
        f"    open({str(folder / 'approval-prompt.txt')!r}, 'w').write(asked)\n"
        f"    answer['structured_output'] = {lesson!r}\n"
        "else:\n"
        f"    answer['structured_output'] = {draft!r}\n"
        "print(json.dumps(answer))\n",
        encoding="utf-8",
    )
    script.chmod(0o755)
    return bin_dir


def test_the_owner_learns_from_an_approval_another_member_recorded(
    tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    remote, url, priya, omar = team(tmp_path, request)
    priya.environ = priya.with_runner(lessons_claude(tmp_path / "claude"), tmp_path / "priya-config")
    placed, branch = placed_draft(remote, priya)
    omar.tick(START + timedelta(minutes=2))
    path = placed["data"]["asset"].partition(":")[2]
    Reviewer.join(tmp_path, url, "Rita", "rita@example.com").squash_merge(branch, edit(path))
    omar.tick(START + timedelta(minutes=5))
    assert len(fates(remote)) == 1
    before = state_events(remote)

    woken = priya.tick(START + timedelta(minutes=6))  # she still holds the 09:00 lease: no matter
    assert [(e["action"], e.get("disposition")) for e in woken] == [("started", "learned")]
    prompt = (tmp_path / "claude" / "approval-prompt.txt").read_text()
    assert "The pulse of the hour." in prompt and RITA_EDIT.strip() in prompt
    spines = list((priya.clone.parent / "hz" / "heinzel").glob("hz-*/" + SPINE))
    events = [e for spine in spines for e in read_spine(spine).events]
    approval = next(e for e in events if e.kind == "approval.observed")
    assert approval.data["approver"] == "@rita" and approval.turn is not None
    assert [e.data["sentence"] for e in events if e.kind == "lesson.recorded"] == ["end with the reviewer's line"]
    assert state_events(remote) == before  # the lesson turn wrote nothing for the team
    assert json.dumps(before).count("approval.observed") == 1
