"""Every way a reviewer can end a pull request on the forge, recorded once by the next tick.

The fake GitHub's bare repository is the team's hooked remote. priya's tick drafts and opens the pull
request; the reviewer merges it by squash, merge commit or rebase (after an edit on the branch), or
closes it unmerged; omar's next tick records `approval.observed` with the reviewer (the forge's merger,
through the roster) or `draft.rejected`.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

import pytest

from tests.gitstate.conftest import bare, loopback  # noqa: F401  (the fixtures, fetched by name below)
from tests.review.fake_forge import FakeForge
from tests.review.test_approval_bookkeeping import ROSTER, START, fates, on_main
from tests.turn.team_harness import Member, draft_branches, hourly, seed_remote, state_events

EDIT = "A reviewer's sentence.\n"


def drafted(
    tmp_path: Path, request: pytest.FixtureRequest, fake_forge: Callable[..., FakeForge]
) -> tuple[Path, FakeForge, Member, dict[str, object], str, int]:
    remote: Path = request.getfixturevalue("bare")
    url: str = request.getfixturevalue("loopback")
    seed_remote(tmp_path, remote, url, hourly("@priya", ["@omar"]), toml=ROSTER)
    fake = fake_forge(remote)
    priya, omar = Member.join(tmp_path, "priya", url), Member.join(tmp_path, "omar", url)
    for member in (priya, omar):
        member.environ.update(fake.environ)
    priya.tick(START)
    (placed,) = [e for e in state_events(remote) if e["kind"] == "draft.placed"]
    branch = draft_branches(remote)[0].removeprefix("refs/heads/")
    (pull,) = fake.pulls()
    omar.tick(START + timedelta(minutes=5))
    return remote, fake, omar, placed, branch, int(pull["number"])


@pytest.mark.parametrize("method", ["squash", "merge", "rebase"])
def test_each_merge_method_is_an_approval_by_its_merger(
    tmp_path: Path, request: pytest.FixtureRequest, fake_forge: Callable[..., FakeForge], method: str
) -> None:
    remote, fake, omar, placed, branch, number = drafted(tmp_path, request, fake_forge)
    path = str(placed["data"]["asset"]).partition(":")[2]  # type: ignore[index]
    text = subprocess.run(["git", "--git-dir", str(remote), "show", f"{branch}:{path}"], capture_output=True,
                          check=True).stdout.decode() + EDIT  # fmt: skip
    fake.edit_and_merge(number, path, text, by="rita-gh", method=method)

    woken = omar.tick(START + timedelta(minutes=20))
    approvals = fates(remote)
    assert [(e["data"]["key"], e["data"]["approver"]) for e in approvals] == [(placed["data"]["key"], "@rita")], woken  # type: ignore[index]
    assert 0 < approvals[0]["data"]["share_changed"] < 1
    assert on_main(remote, path).decode() == text
    omar.tick(START + timedelta(minutes=25))
    assert fates(remote) == approvals and fates(remote, "draft.rejected") == []


def test_a_pull_request_closed_unmerged_is_a_rejection_by_its_closer_and_reopening_changes_nothing(
    tmp_path: Path, request: pytest.FixtureRequest, fake_forge: Callable[..., FakeForge]
) -> None:
    """Issue 19, finding 4: the rejection names who closed the pull request, through the roster. A pull
    request reopened after its rejection was recorded stays rejected (a fate is recorded once)."""
    remote, fake, omar, placed, _, number = drafted(tmp_path, request, fake_forge)
    fake.close(number, by="rita-gh")  # the branch stays on the remote
    omar.tick(START + timedelta(minutes=20))
    rejected = fates(remote, "draft.rejected")
    assert [(e["data"]["key"], e["data"]["by"]) for e in rejected] == [(placed["data"]["key"], "@rita")]  # type: ignore[index]
    assert fates(remote) == []
    fake.reopen(number)
    omar.tick(START + timedelta(minutes=25))
    assert fates(remote, "draft.rejected") == rejected and fates(remote) == []


def test_a_merge_by_someone_the_roster_does_not_list_approves_nothing(
    tmp_path: Path, request: pytest.FixtureRequest, fake_forge: Callable[..., FakeForge]
) -> None:
    """Before: an unlisted merger was recorded as their own login (`@sam-gh`). Only a member approves."""
    remote, fake, omar, _, _, number = drafted(tmp_path, request, fake_forge)
    fake.merge(number, by="sam-gh", method="squash")
    omar.tick(START + timedelta(minutes=20))
    assert fates(remote) == [] and fates(remote, "draft.rejected") == []


def test_a_tick_without_the_forge_leaves_a_web_merge_to_one_that_can_name_its_merger(
    tmp_path: Path, request: pytest.FixtureRequest, fake_forge: Callable[..., FakeForge]
) -> None:
    """The forge commits a merge made on its web page under its own name: a tick with no token cannot tell
    who merged, so it records nothing (rather than @unknown, once and for good); one with the forge does."""
    remote, fake, omar, placed, _, number = drafted(tmp_path, request, fake_forge)
    fake.merge(number, by="rita-gh", method="squash")
    no_forge = {k: v for k, v in omar.environ.items() if k not in fake.environ}
    omar.tick(START + timedelta(minutes=20), no_forge)
    assert fates(remote) == []
    omar.tick(START + timedelta(minutes=25))
    assert [(e["data"]["key"], e["data"]["approver"]) for e in fates(remote)] == [(placed["data"]["key"], "@rita")]  # type: ignore[index]
