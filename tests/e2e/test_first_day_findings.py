"""A new team's first day with hz, as found: each test pins one thing that went wrong.

The team is the one the README's "Set up a team" builds: `hz init --owner @alice` in an empty repository,
the roster filled in, pushed to a hooked bare remote; alice owns the example contract, carol is a member
who owns nothing, bob reviews. Each person is a separate `hz tick` process with their own clone and home.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from tests.gitstate.conftest import bare  # noqa: F401  (fixture: the team's bare remote)
from tests.review.fake_forge import FakeForge
from tests.turn.team_harness import Member, Reviewer, base_environ, draft_branches, state_events
from tests.turn.test_late_runner import hz
from tests.turn.test_team import git

ROSTER = '"@alice" = ["alice@example.com", "alice"]\n"@bob" = ["bob@example.com", "bob"]\n'
CONTRACT = "workflows/repo-digest.prose.md"


def publishing_to(issue: int) -> Any:
    """An edit of the example contract: after approval, comment the digest on issue `issue`."""

    def edit(clone: Path) -> None:
        path = clone / CONTRACT
        text = path.read_text()
        publish = (
            "  publishes:\n    - action: github.issue.comment\n      output: digest\n"
            f'      target: "github:team/hz-team#{issue}"\n'
        )
        facets = "      facets: [summary, changes]\n"
        path.write_text(text.replace(facets, facets + publish))

    return edit


def first_day(tmp_path: Path, remote: Path, url: str, edit: Any = None) -> None:
    """Alice scaffolds the empty repository with `hz init`, names the members, pushes; the hook guards it."""
    git("--git-dir", str(remote), "symbolic-ref", "HEAD", "refs/heads/main")
    setup = tmp_path / "setup"
    git("clone", "-q", url, str(setup))
    environ = base_environ(tmp_path / "setup-home", HZ_HANDLE="@alice")
    done = hz("init", "--owner", "@alice", cwd=setup, environ=environ)
    assert done.returncode == 0, done.stdout + done.stderr
    with (setup / "hz.toml").open("a") as toml:
        toml.write(ROSTER)
    if edit is not None:
        edit(setup)
    checked = hz("workflow", "validate", cwd=setup, environ=environ)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    git("add", "-A", cwd=setup)
    git("commit", "-q", "-m", "Set up hz", cwd=setup)
    git("push", "-q", "origin", "HEAD:main", cwd=setup)
    installed = hz("state", "install-hook", str(remote), cwd=tmp_path, environ=environ)
    assert installed.returncode == 0, installed.stderr


def alice_joined(tmp_path: Path, remote: Path, forge: FakeForge | None = None) -> tuple[Member, datetime]:
    """After the first day, alice's clone and home (talking to `forge` when given) and the minute she ticks."""
    alice = Member.join(tmp_path, "alice", str(remote))
    if forge is not None:
        alice.environ.update(forge.environ)
    return alice, datetime.now(UTC).replace(second=0, microsecond=0)


def digest(remote: Path, branch: str) -> str:
    """The path of the digest a draft branch holds (its week depends on today's date)."""
    (path,) = git("--git-dir", str(remote), "ls-tree", "-r", "--name-only", branch, "--", "reports").splitlines()
    return path


def push_note(clone: Path, name: str, when: datetime) -> None:
    """A member's commit of a new file, dated `when`, pushed to main."""
    (clone / name).write_text("notes\n")
    git("add", name, cwd=clone)
    stamp = when.strftime("%Y-%m-%dT%H:%M:%S+0000")
    dated = {**os.environ, "GIT_AUTHOR_DATE": stamp, "GIT_COMMITTER_DATE": stamp}
    subprocess.run(["git", "commit", "-q", "-m", f"Add {name}"], cwd=clone, env=dated, check=True)
    git("push", "-q", "origin", "HEAD:main", cwd=clone)


def last_slot(now: datetime) -> datetime:
    """The example's schedule slot the first tick catches up on: the latest Monday 08:00 UTC not after now."""
    monday = (now - timedelta(days=now.weekday())).replace(hour=8, minute=0)
    return monday if monday <= now else monday - timedelta(days=7)


def kinds(remote: Path, kind: str) -> list[dict[str, Any]]:
    return [e for e in state_events(remote) if e["kind"] == kind]


@pytest.fixture
def forge(bare: Path) -> Iterator[FakeForge]:  # noqa: F811
    with FakeForge(bare) as fake:
        yield fake


def test_the_examples_publish_runs_once_after_its_pull_request_is_merged(
    tmp_path: Path,
    bare: Path,  # noqa: F811
    forge: FakeForge,
) -> None:
    """hz init's example keeps its owner in workflows/_defaults.yaml; the publish step loaded the contract
    from main without those defaults, found it invalid (no owner) and never ran the publish."""
    issue = forge.open_issue("Weekly digests")
    first_day(tmp_path, bare, str(bare), publishing_to(issue))
    alice, now = alice_joined(tmp_path, bare, forge)
    alice.tick(now)
    (pull,) = forge.pulls()
    forge.edit_and_merge(pull["number"], digest(bare, pull["head"]["ref"]), "## summary\n\nQuiet week.\n", by="bob")
    carol = Member.join(tmp_path, "carol", str(bare))
    carol.environ.update(forge.environ)
    carol.tick(now + timedelta(minutes=1))
    alice.tick(now + timedelta(minutes=2))
    (approval,) = kinds(bare, "approval.observed")
    assert approval["data"]["approver"] == "@bob"
    assert len(forge.comments(issue)) == 1, "the publish never ran"
    assert len(kinds(bare, "publish.done")) == 1


def test_a_newer_draft_updates_the_pull_request_rather_than_opening_another(
    tmp_path: Path,
    bare: Path,  # noqa: F811
    forge: FakeForge,
) -> None:
    first_day(tmp_path, bare, str(bare))
    alice, now = alice_joined(tmp_path, bare, forge)
    alice.tick(now)
    (first,) = forge.pulls()
    push_note(alice.clone, "NOTES.md", last_slot(now) - timedelta(days=1))  # into the week the draft reports on
    woken = alice.tick(now + timedelta(minutes=20))
    assert len(kinds(bare, "draft.placed")) == 2, woken
    (pull,) = forge.pulls()
    assert pull["number"] == first["number"] and pull["state"] == "open"
    assert draft_branches(bare) == [f"refs/heads/{first['head']['ref']}"]


def merged_by_bob(tmp_path: Path, remote: Path) -> tuple[Member, datetime]:
    """Alice's first tick drafts the example; bob merges its branch by hand (`git merge --no-ff`), as the
    README's step 6 does."""
    first_day(tmp_path, remote, str(remote))
    alice, now = alice_joined(tmp_path, remote)
    alice.tick(now)
    (branch,) = draft_branches(remote)
    bob = Reviewer.join(tmp_path, str(remote), "Bob", "bob@example.com")
    bob.git("fetch", "-q", "origin")
    bob.git("merge", "-q", "--no-ff", "-m", "Approve the weekly digest", branch.replace("refs/heads/", "origin/"))
    bob.git("push", "-q", "origin", "HEAD:main")
    return alice, now


def test_the_tick_that_records_an_approval_says_who_approved_what(tmp_path: Path, bare: Path) -> None:  # noqa: F811
    """It said `approvals: approved -> approved`: neither the draft nor the approver."""
    alice, now = merged_by_bob(tmp_path, bare)
    done = hz("tick", "--now", (now + timedelta(minutes=1)).isoformat(), cwd=alice.clone, environ=alice.environ)
    assert done.returncode == 0, done.stdout + done.stderr
    (line,) = [line for line in done.stdout.splitlines() if line.startswith("approvals:")]
    (approval,) = kinds(bare, "approval.observed")
    assert approval["key"] in line and "approved by @bob" in line, line


def test_state_log_names_the_approver_not_the_holder_of_the_drafts_lease(tmp_path: Path, bare: Path) -> None:  # noqa: F811
    """`hz state log` (the README's step 7) showed the approval as run by `@alice/m-… (owner)`: the holder of
    the lease the draft was placed under, since an approval is recorded with the draft's token."""
    alice, now = merged_by_bob(tmp_path, bare)
    alice.tick(now + timedelta(minutes=1))
    shown = hz("state", "log", cwd=alice.clone, environ=alice.environ)
    assert shown.returncode == 0, shown.stderr
    (line,) = [line for line in shown.stdout.splitlines() if "approval.observed" in line]
    assert "@bob" in line and "@alice" not in line, line


def squashed_unseen_by_carol(
    tmp_path: Path, remote: Path, edit: Callable[[str], str]
) -> tuple[Member, Member, datetime]:
    """Alice's first tick drafts the example; bob squash-merges its branch with `edit` applied to the draft's
    text (the branch deleted); carol, whose clone never held the draft branch, ticks a minute later and records
    no approval. Alice, carol and the minute of alice's first tick."""
    first_day(tmp_path, remote, str(remote))
    alice, now = alice_joined(tmp_path, remote)
    alice.tick(now)
    (branch,) = draft_branches(remote)
    bob = Reviewer.join(tmp_path, str(remote), "Bob", "bob@example.com")
    path = digest(remote, branch)

    def edited(clone: Path) -> None:
        (clone / path).write_text(edit((clone / path).read_text()))

    bob.squash_merge(branch.removeprefix("refs/heads/"), edit=edited, message="Weekly digest")
    carol = Member.join(tmp_path, "carol", str(remote))
    carol.tick(now + timedelta(minutes=1))
    assert kinds(remote, "approval.observed") == []
    return alice, carol, now


def test_a_member_who_never_saw_the_draft_records_a_true_share_changed(tmp_path: Path, bare: Path) -> None:  # noqa: F811
    """A tick with no copy of the placed draft (the squash merge deleted its branch before this clone fetched
    it) recorded share_changed=1.0, as if the reviewer had rewritten everything. It leaves the approval to a
    clone that holds the draft (its owner's), for an hour at most."""
    # one word of the draft's ~70 changed
    alice, _, now = squashed_unseen_by_carol(tmp_path, bare, lambda text: text.replace("## summary", "## Summary", 1))
    alice.tick(now + timedelta(minutes=2))
    (approval,) = kinds(bare, "approval.observed")
    assert approval["data"]["approver"] == "@bob"
    assert approval["data"]["share_changed"] < 0.2, approval["data"]


def test_an_approval_nobody_holding_the_draft_records_waits_an_hour_at_most(tmp_path: Path, bare: Path) -> None:  # noqa: F811
    """The owner's clone gone: past an hour, a member without the draft records the approval (the share then
    counts the whole text as changed, as nothing says how much of the draft survived)."""
    _, carol, now = squashed_unseen_by_carol(tmp_path, bare, lambda _: "## summary\n\nQuiet week.\n")
    carol.tick(now + timedelta(hours=1, minutes=2))
    (approval,) = kinds(bare, "approval.observed")
    assert approval["data"]["approver"] == "@bob" and approval["data"]["share_changed"] == 1.0


def test_the_owners_second_tick_does_not_draft_the_example_again(tmp_path: Path, bare: Path) -> None:  # noqa: F811
    """AgentWork._moved compared the inputs the catch-up turn gathered for its slot (the example's last Monday)
    with the inputs as of now: `hz init`'s own commit, dated after that slot, made the owner's next tick a
    source-changed turn that drafted again within minutes. The weekly page's watch now asks whether the
    week it reports on changed: a commit of this week waits for next Monday's page, one dated inside the
    reported week (a late push) redrafts it. The ticks' clock is past the commits, as a real tick's is (a
    commit dated past the clock is listed as `future` by the git source, whatever the window)."""
    first_day(tmp_path, bare, str(bare))
    alice = Member.join(tmp_path, "alice", str(bare))
    now = datetime.now(UTC).replace(second=0, microsecond=0) + timedelta(minutes=1)
    alice.tick(now)
    woken = alice.tick(now + timedelta(minutes=1))
    assert len(kinds(bare, "draft.placed")) == 1, woken
    push_note(alice.clone, "TODAY.md", now - timedelta(seconds=30))
    woken = alice.tick(now + timedelta(minutes=2))
    assert len(kinds(bare, "draft.placed")) == 1, woken
    push_note(alice.clone, "LATE.md", last_slot(now) - timedelta(days=2))
    woken = alice.tick(now + timedelta(minutes=3))
    assert [e.get("disposition") for e in woken] == ["drafted"] and len(kinds(bare, "draft.placed")) == 2, woken


def test_hz_drafts_names_the_team_contract_not_only_its_id(tmp_path: Path, bare: Path) -> None:  # noqa: F811
    """A reviewer's `hz drafts` said `team 01M8… · digest`: the id tells nobody which contract waits."""
    first_day(tmp_path, bare, str(bare))
    alice = Member.join(tmp_path, "alice", str(bare))
    alice.tick(datetime.now(UTC).replace(second=0, microsecond=0))
    carol = Member.join(tmp_path, "carol", str(bare))
    shown = hz("drafts", cwd=carol.clone, environ=carol.environ)
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.startswith("team repo-digest · digest  slot "), shown.stdout
    listed = hz("drafts", "--json", cwd=carol.clone, environ=carol.environ)
    assert [row["name"] for row in json.loads(listed.stdout)] == ["repo-digest"]


def edited_merge_stays_quiet(tmp_path: Path, bare: Path, forge: FakeForge, method: str) -> None:  # noqa: F811
    """Alice drafts the example until it has nothing more to draft; bob edits the draft on the forge and merges
    it by `method`: alice's next tick records the approval and drafts nothing."""
    first_day(tmp_path, bare, str(bare))
    alice, now = alice_joined(tmp_path, bare, forge)
    for minutes in range(3):
        alice.tick(now + timedelta(minutes=minutes))
    placed = len(kinds(bare, "draft.placed"))
    (pull,) = [p for p in forge.pulls() if p["state"] == "open"]
    path = digest(bare, pull["head"]["ref"])
    forge.edit_and_merge(pull["number"], path, "## summary\n\nQuiet week.\n", by="bob", method=method)
    git("pull", "-q", "--ff-only", cwd=alice.clone)
    woken = alice.tick(now + timedelta(minutes=40))
    assert len(kinds(bare, "approval.observed")) == 1
    assert len(kinds(bare, "draft.placed")) == placed, woken


def test_a_squash_merge_on_the_forge_does_not_wake_the_example_on_its_own_draft(
    tmp_path: Path,
    bare: Path,  # noqa: F811
    forge: FakeForge,
) -> None:
    """GitHub's squash of an edited draft ends its message with `Co-authored-by: hz <hz>` (the draft commit's
    author): the `Hz-Draft:` line is then in the body, not the last paragraph."""
    edited_merge_stays_quiet(tmp_path, bare, forge, "squash")


def test_merging_an_edited_draft_does_not_wake_the_example_on_its_own_draft(
    tmp_path: Path,
    bare: Path,  # noqa: F811
    forge: FakeForge,
) -> None:
    """_own_merge counted a merge as the contract's own only when every commit it brought had hz's trailers:
    the reviewer's edit commit on the draft branch (the usual review) has none, so the contract woke on its
    own approved output and drafted again."""
    edited_merge_stays_quiet(tmp_path, bare, forge, "merge")


def test_the_owners_tick_after_a_rejection_says_which_draft(tmp_path: Path, bare: Path) -> None:  # noqa: F811
    """It said `repo-digest: rejected -> rejected`."""
    first_day(tmp_path, bare, str(bare))
    alice, now = alice_joined(tmp_path, bare)
    alice.tick(now)
    bob = Member.join(tmp_path, "bob", str(bare))
    (row,) = json.loads(hz("drafts", "--json", cwd=bob.clone, environ=bob.environ).stdout)
    rejected = hz("reject", row["key"], cwd=bob.clone, environ=bob.environ)
    assert rejected.returncode == 0, rejected.stdout + rejected.stderr
    done = hz("tick", "--now", (now + timedelta(minutes=1)).isoformat(), cwd=alice.clone, environ=alice.environ)
    (line,) = [line for line in done.stdout.splitlines() if "rejected" in line]
    assert line.startswith("repo-digest: hz-") and line.endswith(" rejected"), line


def test_a_plain_merge_of_the_unedited_draft_does_not_wake_the_example(tmp_path: Path, bare: Path) -> None:  # noqa: F811
    """The README's step 6 (`git merge --no-ff` of the draft branch), then the owner pulls and ticks."""
    first_day(tmp_path, bare, str(bare))
    alice, now = alice_joined(tmp_path, bare)
    for minutes in range(3):  # a few ticks: the example drafts once, then has nothing more to draft
        alice.tick(now + timedelta(minutes=minutes))
    placed = len(kinds(bare, "draft.placed"))
    (branch,) = draft_branches(bare)
    bob = Reviewer.join(tmp_path, str(bare), "Bob", "bob@example.com")
    bob.git("merge", "-q", "--no-ff", "-m", "Approve the weekly digest", branch.replace("refs/heads/", "origin/"))
    bob.git("push", "-q", "origin", "HEAD:main")
    git("pull", "-q", "--ff-only", cwd=alice.clone)
    woken = alice.tick(now + timedelta(minutes=40))
    assert len(kinds(bare, "approval.observed")) == 1
    assert len(kinds(bare, "draft.placed")) == placed, woken
