"""Approval is judged on `main`'s content, by members of the roster on `main` (issue 19, findings 1, 9,
11; issue 20, finding 11), attacked as an outsider would: text pasted by hand, a roster edited in the
work tree, a trailer while the pull request is open, the owner merging their own agent's draft.

Each participant is a separate `hz tick` process on the hooked loopback remote (tests/turn/team_harness).
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

import pytest

from hz.canonical import fingerprint_bytes
from tests.gitstate.conftest import bare, loopback  # noqa: F401  (the fixtures, fetched by name below)
from tests.review.fake_forge import FakeForge
from tests.review.test_approval_bookkeeping import ROSTER, START, edit, fates, lint_clean, placed_draft, team
from tests.review.test_approval_forge import drafted
from tests.turn.team_harness import Member, Reviewer, draft_branches, hourly, seed_remote, state_events
from tests.turn.test_late_runner import hz

SAM = '"@sam" = ["sam@elsewhere.example"]\n'


def test_text_pasted_by_a_non_member_approves_nothing_whatever_the_work_trees_roster_says(
    tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    """Before: omar's clone, on a branch whose hz.toml lists Sam (a pull request not merged yet), mapped
    Sam's commit through that roster: Sam pasted the draft's text onto main by hand, deleted its branch,
    and omar's tick recorded "approved by @sam". The roster is main's: no approval; omar is told once."""
    remote, url, priya, omar = team(tmp_path, request)
    placed, branch = placed_draft(remote, priya)
    path = placed["data"]["asset"].partition(":")[2]
    with (omar.clone / "hz.toml").open("a", encoding="utf-8") as toml:
        toml.write(SAM)
    sam = Reviewer.join(tmp_path, url, "Sam", "sam@elsewhere.example")
    sam.git("fetch", "-q", "origin")
    sam.git("checkout", "-q", f"origin/{branch}", "--", path)  # the draft's text, pasted by hand
    sam.git("commit", "-q", "-m", "Pulse")
    sam.git("push", "-q", "origin", "HEAD:main")
    sam.git("push", "-q", "origin", "--delete", branch)

    woken = omar.tick(START + timedelta(minutes=5))
    assert fates(remote) == [], woken
    warnings = [e for e in woken if e["action"] == "warning"]
    assert warnings == [
        {
            "agent": "hz.toml",
            "action": "warning",
            "warning": "hz.toml here differs from main in [team.members]: main's are used (the team's, as "
            "reviewed); pull main, or propose the change by pull request",
        }
    ]
    said = hz("tick", "--now", (START + timedelta(minutes=6)).isoformat(), cwd=omar.clone, environ=omar.environ)
    assert said.stdout.splitlines().count(f"hz.toml: warning: {warnings[0]['warning']}") == 1, said.stdout
    assert fates(remote) == []


def test_the_owner_merging_their_own_agents_draft_is_flagged_self_approved(
    tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    """Issue 19, finding 11: priya owns the contract and squash-merges her own agent's draft; the receipt,
    the tick's line and `hz state log` say so."""
    remote, url, priya, omar = team(tmp_path, request)
    placed, branch = placed_draft(remote, priya)
    path = placed["data"]["asset"].partition(":")[2]
    Reviewer.join(tmp_path, url, "Priya", "priya@example.com").squash_merge(branch, edit(path), message="Mine")

    done = hz("tick", "--now", (START + timedelta(minutes=5)).isoformat(), cwd=priya.clone, environ=priya.environ)
    (approval,) = fates(remote)
    assert (approval["data"]["approver"], approval["data"]["self_approved"]) == ("@priya", True)
    share = round(100 * approval["data"]["share_changed"])
    line = f"approvals: {placed['data']['key']} approved by @priya ({share}% of it changed, self-approved: the member"
    assert any(row.startswith(line) for row in done.stdout.splitlines()), done.stdout
    shown = hz("state", "log", cwd=omar.clone, environ=omar.environ)
    (row,) = [row for row in shown.stdout.splitlines() if "approval.observed" in row]
    assert row.endswith("approved by @priya (self-approved)"), row
    logged = json.loads(hz("state", "log", "--json", cwd=omar.clone, environ=omar.environ).stdout)
    assert [e["event"]["data"].get("self_approved") for e in logged if e["event"]["kind"] == "approval.observed"] == [
        True
    ]
    lint_clean(omar)


def test_an_open_pull_request_is_never_approved_whatever_main_holds(
    tmp_path: Path, request: pytest.FixtureRequest, fake_forge: Callable[..., FakeForge]
) -> None:
    """Before: Rita pasted the draft onto main in a commit naming it (`Hz-Draft`) while its pull request was
    still under review; the next tick recorded the approval and deleted the branch under the open pull
    request. While it is open nothing is recorded; once closed, the member's commit is the approval."""
    remote, fake, omar, placed, branch, number = drafted(tmp_path, request, fake_forge)
    path = str(placed["data"]["asset"]).partition(":")[2]  # type: ignore[index]
    rita = Reviewer.join(tmp_path, str(request.getfixturevalue("loopback")), "Rita", "rita@example.com")
    rita.git("fetch", "-q", "origin")
    rita.git("checkout", "-q", f"origin/{branch}", "--", path)
    rita.git("commit", "-q", "-m", f"Pulse\n\nHz-Draft: {placed['data']['key']}\n")  # type: ignore[index]
    rita.git("push", "-q", "origin", "HEAD:main")

    omar.tick(START + timedelta(minutes=20))
    assert fates(remote) == [] and draft_branches(remote) == [f"refs/heads/{branch}"]
    fake.close(number, by="rita-gh")
    omar.tick(START + timedelta(minutes=25))
    assert [(e["data"]["approver"], e["data"]["share_changed"]) for e in fates(remote)] == [("@rita", 0.0)]
    assert fates(remote, "draft.rejected") == []


WRITE = '  publishes:\n    - action: state.file.write\n      output: pulse\n      target: "state:published/pulse.md"\n'
SECOND = "\n[review]\nrequire_other_member = true\n"


def test_with_review_requiring_another_member_a_self_approval_publishes_only_after_a_second_member(
    tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    """`[review] require_other_member = true`: priya's merge of her own agent's draft is recorded as
    self-approved and its publish waits; she cannot second it herself; omar's `hz approve KEY` records
    `approval.seconded` and the next tick publishes."""
    remote: Path = request.getfixturevalue("bare")
    url: str = request.getfixturevalue("loopback")
    pulse = hourly("@priya", ["@omar"]).replace("  scope: team\n", "  scope: team\n" + WRITE)
    seed_remote(tmp_path, remote, url, pulse, toml=SECOND + ROSTER + '"@omar" = ["omar@example.com"]\n')
    priya, omar = Member.join(tmp_path, "priya", url), Member.join(tmp_path, "omar", url)
    placed, branch = placed_draft(remote, priya)
    Reviewer.join(tmp_path, url, "Priya", "priya@example.com").squash_merge(branch, message="Mine")

    omar.tick(START + timedelta(minutes=5))
    (approval,) = fates(remote)
    assert approval["data"]["self_approved"] is True
    assert [e for e in state_events(remote) if e["kind"] == "publish.done"] == []
    key = placed["data"]["key"]
    listed = hz("drafts", cwd=omar.clone, environ=omar.environ).stdout
    wait = f"{key} was approved by @priya, the member whose agent drafted it: its publishes wait for a second"
    assert wait in listed, listed
    own = hz("approve", key, cwd=priya.clone, environ=priya.environ)
    assert (own.returncode, own.stderr.splitlines()[0]) == (
        1,
        f"error: @priya drafted or approved {key}: another member seconds it",
    )
    seconded = hz("approve", key, cwd=omar.clone, environ=omar.environ)
    assert (seconded.returncode, seconded.stdout) == (
        0, f"seconded {key}: approved by @priya (self-approved) and by @omar; the next tick publishes it\n"
    )  # fmt: skip
    assert [e["data"] for e in state_events(remote) if e["kind"] == "approval.seconded"] == [
        {"key": key, "asset": placed["data"]["asset"], "approver": "@omar"}
    ]
    omar.tick(START + timedelta(minutes=30))  # past the grace period: any member takes the publish over
    assert len([e for e in state_events(remote) if e["kind"] == "publish.done"]) == 1
    lint_clean(omar)


def test_a_merge_reverted_before_any_tick_is_still_the_members_approval(
    tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    """An outsider's revert does not undo a member's approval, nor does it make one: Rita squash-merges
    the edited draft, Sam reverts it before any tick looked; the approval is Rita's, its text the merged
    one (docs/decisions.md, the edge cases of the rule)."""
    remote, url, priya, _ = team(tmp_path, request)
    placed, branch = placed_draft(remote, priya)
    path = placed["data"]["asset"].partition(":")[2]
    merged = Reviewer.join(tmp_path, url, "Rita", "rita@example.com").squash_merge(branch, edit(path))
    sam = Reviewer.join(tmp_path, url, "Sam", "sam@elsewhere.example")
    sam.git("fetch", "-q", "origin")
    sam.git("checkout", "-q", "origin/main")
    sam.git("revert", "--no-edit", merged)
    sam.git("push", "-q", "origin", "HEAD:main")

    priya.tick(START + timedelta(minutes=5))
    (approval,) = fates(remote)
    text = subprocess.run(["git", "--git-dir", str(remote), "show", f"{merged}:{path}"], capture_output=True,
                          check=True).stdout  # fmt: skip
    assert approval["data"]["approver"] == "@rita" and approval["data"]["output_fp"] == fingerprint_bytes(text)
    assert fates(remote, "draft.rejected") == []
