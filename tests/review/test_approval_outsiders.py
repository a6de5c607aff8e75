"""Approvals attacked as an outsider would, beyond tests/review/test_approval_members.py (issue 19, "Before
resolving"): a fast-forward of main to the draft commit and a `--no-ff` merge of a draft branch, both by
someone the roster does not list; a member's squash carrying another draft's `Hz-Draft` trailer; an
outsider's revert of an approval already recorded. Separate `hz tick` processes on the hook-guarded
loopback remote (tests/turn/team_harness).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

import pytest

from tests.gitstate.conftest import bare, loopback  # noqa: F401  (the fixtures, fetched by name below)
from tests.review.fake_forge import FakeForge
from tests.review.test_approval_bookkeeping import START, edit, fates, lint_clean, team
from tests.review.test_approval_forge import drafted
from tests.turn.team_harness import Member, Reviewer, draft_branches, state_events


def placed(remote: Path, priya: Member, hour: int) -> tuple[str, str, str]:
    """priya's tick drafts the pulse of START + `hour`: its key, branch and path."""
    woken = priya.tick(START + timedelta(hours=hour))
    assert ("started", "drafted") in [(e["action"], e.get("disposition")) for e in woken], woken
    event = max((e for e in state_events(remote) if e["kind"] == "draft.placed"), key=lambda e: e["ts"])
    path = str(event["data"]["asset"]).partition(":")[2]
    branch = next(b for b in draft_branches(remote) if path.replace("/", "-").replace(".", "-") in b)
    return str(event["key"]), branch.removeprefix("refs/heads/"), path


def every_fate(remote: Path) -> list[tuple[str, str, str]]:
    kinds = ("approval.observed", "draft.rejected", "draft.superseded")
    return sorted((e["kind"], e["key"], str(e["data"].get("approver") or e["data"].get("by")))
                  for e in state_events(remote) if e["kind"] in kinds)  # fmt: skip


def test_an_outsiders_fast_forward_or_merge_approves_nothing_and_a_members_squash_approves_only_its_own_draft(
    tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    remote, url, priya, omar = team(tmp_path, request)
    nine, nine_branch, _ = placed(remote, priya, 0)
    sam = Reviewer.join(tmp_path, url, "Sam", "sam@elsewhere.example")
    sam.git("fetch", "-q", "origin")
    sam.git("push", "-q", "origin", f"origin/{nine_branch}:refs/heads/main")  # main fast-forwarded to hz's commit
    omar.tick(START + timedelta(minutes=5))
    assert every_fate(remote) == [] and f"refs/heads/{nine_branch}" in draft_branches(remote)

    ten, ten_branch, _ = placed(remote, priya, 1)
    sam.git("fetch", "-q", "origin")
    sam.git("checkout", "-q", "-B", "main", "origin/main")
    sam.git("merge", "-q", "--no-ff", "-m", f"Merge the pulse\n\nHz-Draft: {ten}\n", f"origin/{ten_branch}")
    sam.git("push", "-q", "origin", "main")
    omar.tick(START + timedelta(hours=1, minutes=5))
    assert every_fate(remote) == [], "an outsider's merge commit approves nothing"
    assert f"refs/heads/{ten_branch}" in draft_branches(remote)

    # Rita, a member, squash-merges the 11:00 draft with a message naming the 10:00 one: only hers is approved
    eleven, eleven_branch, eleven_path = placed(remote, priya, 2)
    rita = Reviewer.join(tmp_path, url, "Rita", "rita@example.com")
    merged = rita.squash_merge(eleven_branch, edit(eleven_path), message=f"Pulses\n\nHz-Draft: {ten}\n")
    priya.tick(START + timedelta(hours=2, minutes=5))  # her clone holds the 11:00 draft as placed
    assert every_fate(remote) == [("approval.observed", eleven, "@rita")]
    assert f"refs/heads/{ten_branch}" in draft_branches(remote)

    # Sam reverts Rita's merge: the recorded approval stands, and nothing else is decided by it
    sam.git("fetch", "-q", "origin")
    sam.git("checkout", "-q", "-B", "main", "origin/main")
    sam.git("revert", "--no-edit", merged)
    sam.git("push", "-q", "origin", "main")
    omar.tick(START + timedelta(hours=2, minutes=10))
    assert every_fate(remote) == [("approval.observed", eleven, "@rita")]
    assert {nine, ten} <= {e["key"] for e in state_events(remote) if e["kind"] == "draft.placed"}
    assert [b for b in draft_branches(remote) if b.endswith((nine_branch, ten_branch))] == sorted(
        [f"refs/heads/{nine_branch}", f"refs/heads/{ten_branch}"]
    )
    lint_clean(omar)
    assert fates(remote, "draft.rejected") == []


@pytest.mark.parametrize("method", ["merge", "squash"])
def test_an_outsider_pasting_the_draft_first_does_not_swallow_the_members_merge_of_its_pull_request(
    tmp_path: Path, request: pytest.FixtureRequest, fake_forge: Callable[..., FakeForge], method: str
) -> None:
    """Sam, whom the roster does not list, pastes the draft's text onto main while its pull request is open
    (no approval: he is no member, and it is under review). Rita then merges the pull request on the forge:
    her merge brings the path nowhere new, since Sam's paste got there first, yet it is the merge of the
    draft's own pull request by a member: her approval. Before, nothing was recorded, ever."""
    remote, fake, omar, placed, branch, number = drafted(tmp_path, request, fake_forge)
    path = str(placed["data"]["asset"]).partition(":")[2]  # type: ignore[index]
    sam = Reviewer.join(tmp_path, str(request.getfixturevalue("loopback")), "Sam", "sam@elsewhere.example")
    sam.git("fetch", "-q", "origin")
    sam.git("checkout", "-q", f"origin/{branch}", "--", path)
    sam.git("commit", "-q", "-m", "Pulse")
    sam.git("push", "-q", "origin", "HEAD:main")
    omar.tick(START + timedelta(minutes=10))
    assert every_fate(remote) == []

    fake.merge(number, by="rita-gh", method=method)
    omar.tick(START + timedelta(minutes=20))
    assert every_fate(remote) == [("approval.observed", str(placed["key"]), "@rita")]
    (approval,) = fates(remote)
    assert approval["data"]["share_changed"] == 0.0


def test_an_outsider_pasting_the_draft_first_does_not_swallow_a_members_merge_of_its_branch(
    tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    """The same without a forge: Rita merges the draft's branch with `git merge --no-ff` after Sam's paste.
    Her merge commit changes nothing at the path, so the walk of the commits that changed it never met it."""
    remote, url, priya, _ = team(tmp_path, request)
    nine, branch, path = placed(remote, priya, 0)
    sam = Reviewer.join(tmp_path, url, "Sam", "sam@elsewhere.example")
    sam.git("fetch", "-q", "origin")
    sam.git("checkout", "-q", f"origin/{branch}", "--", path)
    sam.git("commit", "-q", "-m", "Pulse")
    sam.git("push", "-q", "origin", "HEAD:main")
    rita = Reviewer.join(tmp_path, url, "Rita", "rita@example.com")
    rita.git("fetch", "-q", "origin")
    rita.git("checkout", "-q", "-B", "main", "origin/main")
    rita.git("merge", "-q", "--no-ff", "-m", "Merge the pulse", f"origin/{branch}")
    rita.git("push", "-q", "origin", "main")
    priya.tick(START + timedelta(minutes=20))
    assert every_fate(remote) == [("approval.observed", nine, "@rita")]
