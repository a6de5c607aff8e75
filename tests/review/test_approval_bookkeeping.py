"""Approval is bookkeeping, not a wake: a team draft's fate is recorded once, by whoever ticks first.

Each test is a team on a hooked loopback remote: `hz tick` processes of the owner (@priya) and a
maintainer (@omar), Actions runs, and a reviewer (Rita, a person with a clone and no hz) who merges on
the remote. Every push of hz/state passes the remote's hook (the state lint, tokens against the lease
chains), so a receipt recorded without a lease is one the hook accepted.
"""

from __future__ import annotations

import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from hz.canonical import fingerprint_bytes
from tests.gitstate.conftest import bare, loopback  # noqa: F401  (the fixtures, fetched by name below)
from tests.turn.team_harness import Member, Reviewer, actions_run, draft_branches, hourly, seed_remote, state_events
from tests.turn.test_late_runner import hz

START = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)  # a Monday, 09:00: priya's created turn drafts this hour
ROSTER = '\n[team.members]\n"@rita" = ["rita@example.com", "rita-gh"]\n"@priya" = ["priya@example.com"]\n'
RITA_EDIT = "Rita's line: the reviewer's edit.\n"


def team(tmp_path: Path, request: pytest.FixtureRequest, *, roster: str = ROSTER) -> tuple[Path, str, Member, Member]:
    remote: Path = request.getfixturevalue("bare")
    url: str = request.getfixturevalue("loopback")
    seed_remote(tmp_path, remote, url, hourly("@priya", ["@omar"]), toml=roster)
    return remote, url, Member.join(tmp_path, "priya", url), Member.join(tmp_path, "omar", url)


def placed_draft(remote: Path, priya: Member) -> tuple[dict[str, Any], str]:
    """priya's created turn places the draft of 09:00: its draft.placed and its branch."""
    woken = priya.tick(START)
    assert [(e["action"], e.get("disposition")) for e in woken] == [("started", "drafted")], woken
    placed = [e for e in state_events(remote) if e["kind"] == "draft.placed"]
    branches = draft_branches(remote)
    assert len(placed) == 1 and len(branches) == 1
    return placed[0], branches[0].removeprefix("refs/heads/")


def fates(remote: Path, kind: str = "approval.observed") -> list[dict[str, Any]]:
    return [e for e in state_events(remote) if e["kind"] == kind]


def edit(path: str) -> Any:
    def change(clone: Path) -> None:
        with (clone / path).open("a", encoding="utf-8") as file:
            file.write(RITA_EDIT)

    return change


def on_main(remote: Path, path: str) -> bytes:
    return subprocess.run(
        ["git", "--git-dir", str(remote), "show", f"main:{path}"], capture_output=True, check=True
    ).stdout


def lint_clean(member: Member) -> None:
    done = hz("state", "lint", cwd=member.clone, environ=member.environ)
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_maintainers_tick_records_a_squash_merge_while_the_owner_holds_the_lease(
    tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    """Before: the maintainer's approval wake was `early` forever (a non-schedule wake's slot is now), one
    seen while another member held the lease was settled as skipped, a squash was no approval (ancestry),
    and the approver was whoever's tick noticed. Now the first tick to see it records it, with the merger."""
    remote, url, priya, omar = team(tmp_path, request)
    placed, branch = placed_draft(remote, priya)
    omar.tick(START + timedelta(minutes=2))  # his daemon saw the draft's branch before the merge deleted it
    path = placed["data"]["asset"].partition(":")[2]
    rita = Reviewer.join(tmp_path, url, "Rita", "rita@example.com")
    rita.squash_merge(branch, edit(path), message="Pulse of 09:00, edited")

    woken = omar.tick(START + timedelta(minutes=5))  # priya's lease for 09:00 runs until 09:10
    approvals = fates(remote)
    assert len(approvals) == 1, woken
    data = approvals[0]["data"]
    assert data["key"] == placed["data"]["key"] and data["approver"] == "@rita"
    assert data["output_fp"] == fingerprint_bytes(on_main(remote, path))
    assert 0 < data["share_changed"] < 1
    assert approvals[0]["lease"] == placed["lease"] and approvals[0]["token"] == placed["token"]
    assert {"agent": "approvals", "action": "approved", "key": placed["data"]["key"], "approver": "@rita",
            "share_changed": data["share_changed"]} in woken  # fmt: skip

    priya.tick(START + timedelta(minutes=6))  # the owner sees it too: nothing is written twice
    assert fates(remote) == approvals
    lint_clean(omar)


def test_an_approval_coalesced_with_a_schedule_wake_still_records(
    tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    """Before: the owner's next tick coalesced the approval with the 10:00 schedule wake and the approval
    step, run only for a turn's first cause, never ran: the draft was settled with no approval.observed."""
    remote, url, priya, _ = team(tmp_path, request)
    placed, branch = placed_draft(remote, priya)
    path = placed["data"]["asset"].partition(":")[2]
    Reviewer.join(tmp_path, url, "Rita", "rita@example.com").squash_merge(branch, edit(path))

    woken = priya.tick(START + timedelta(hours=1))
    assert ("started", "drafted") in [(e["action"], e.get("disposition")) for e in woken]  # the 10:00 slot ran
    approvals = fates(remote)
    assert [(e["data"]["key"], e["data"]["approver"]) for e in approvals] == [(placed["data"]["key"], "@rita")]
    lint_clean(priya)


def test_a_strangers_trailer_approves_nothing_and_deletes_nothing_then_a_members_edited_squash_is_seen(
    tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    """Issue 19, findings 1 and 2. Before: Sam, whom the roster does not list, pushed a commit to main that
    only names the draft in a `Hz-Draft` line; the next tick recorded "approved by @unknown" and deleted the
    branch. And a member's `git merge --squash` with an edited line and their own message, the branch kept,
    was never seen. Now the trailer approves and deletes nothing, and the member's squash is the approval."""
    remote, url, priya, omar = team(tmp_path, request)
    placed, branch = placed_draft(remote, priya)
    # issue 19, finding 12: the owner's `hz heinzel show` names the draft by the team's key, as `hz drafts` does
    shown = hz("heinzel", "show", "team-pulse", cwd=priya.clone, environ=priya.environ).stdout
    assert f"  draft {placed['data']['key']} at {branch}\n" in shown, shown
    omar.tick(START + timedelta(minutes=2))
    sam = Reviewer.join(tmp_path, url, "Sam", "sam@elsewhere.example")
    sam.git("fetch", "-q", "origin")
    (sam.clone / "NOTES.md").write_text("unrelated\n")
    sam.git("add", "NOTES.md")
    sam.git("commit", "-q", "-m", f"Notes\n\nHz-Draft: {placed['data']['key']}\n")
    sam.git("push", "-q", "origin", "HEAD:main")

    woken = omar.tick(START + timedelta(minutes=5))
    assert fates(remote) == [] and fates(remote, "draft.rejected") == [], woken
    assert draft_branches(remote) == [f"refs/heads/{branch}"]

    path = placed["data"]["asset"].partition(":")[2]
    rita = Reviewer.join(tmp_path, url, "Rita", "rita@example.com")
    rita.squash_merge(branch, edit(path), message="Pulse of 09:00, reviewed", delete=False)
    woken = omar.tick(START + timedelta(minutes=8))
    (approval,) = fates(remote)
    assert (approval["data"]["key"], approval["data"]["approver"]) == (placed["data"]["key"], "@rita"), woken
    assert 0 < approval["data"]["share_changed"] < 0.5 and "self_approved" not in approval["data"]
    assert approval["data"]["output_fp"] == fingerprint_bytes(on_main(remote, path))
    omar.tick(START + timedelta(minutes=9))
    assert draft_branches(remote) == []  # decided: now its branch goes
    lint_clean(omar)


def test_a_branch_deleted_unmerged_is_a_rejection_recorded_once(tmp_path: Path, request: pytest.FixtureRequest) -> None:
    remote, url, priya, omar = team(tmp_path, request)
    placed, branch = placed_draft(remote, priya)
    Reviewer.join(tmp_path, url, "Rita", "rita@example.com").git("push", "-q", "origin", "--delete", branch)

    woken = omar.tick(START + timedelta(minutes=5))
    assert {"agent": "approvals", "action": "rejected", "key": placed["data"]["key"], "by": "@unknown"} in woken
    clone, environ = actions_run(tmp_path, url, 1)
    Member("actions", clone, environ).tick(START + timedelta(minutes=6))
    rejected = fates(remote, "draft.rejected")
    assert [e["data"] for e in rejected] == [
        {"key": placed["data"]["key"], "asset": placed["data"]["asset"], "by": "@unknown"}
    ]
    assert fates(remote) == []


def test_two_ticks_racing_record_the_approval_once(tmp_path: Path, request: pytest.FixtureRequest) -> None:
    """omar and an Actions run see the same merge at once: the remote's compare-and-swap lets one record it;
    the other looks again, finds it there and writes nothing. Squashed unedited: none of them holds the draft,
    and an edited one waits for a clone that does (test_a_member_who_never_saw_the_draft_records_a_true_…)."""
    remote, url, priya, omar = team(tmp_path, request)
    placed, branch = placed_draft(remote, priya)
    Reviewer.join(tmp_path, url, "Rita", "rita@example.com").squash_merge(branch)
    clones = [(omar.clone, omar.environ)] + [actions_run(tmp_path, url, run) for run in (7, 8)]
    when = (START + timedelta(minutes=5)).isoformat()
    argv = [sys.executable, "-m", "hz", "tick", "--now", when, "--json"]
    running = [subprocess.Popen(argv, cwd=c, env=e, stdout=subprocess.PIPE, stderr=subprocess.PIPE) for c, e in clones]
    for process in running:
        out, err = process.communicate(timeout=120)
        assert process.returncode == 0, out + err
    approvals = fates(remote)
    assert [(e["data"]["key"], e["data"]["approver"]) for e in approvals] == [(placed["data"]["key"], "@rita")]
    lint_clean(omar)
