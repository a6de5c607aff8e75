"""Team draft branches are named for what they draft and cleaned up (issue 11, finding 3); one branch and
one pull request per idempotency key, so drafts of different slots wait side by side (issue 19, finding 3).

Members are separate `hz tick` processes with their own clones and homes, against one bare remote with
hz's hook over loopback `git daemon`; the pull requests go to the fake GitHub (tests/review/fake_forge.py),
which merges and closes on that same bare repository.
"""

from __future__ import annotations

import json
import subprocess
from datetime import UTC, datetime, timedelta
from pathlib import Path

from tests.gitstate.conftest import bare, loopback  # noqa: F401  (the fixtures, fetched by name below)
from tests.review.conftest import PulseOnForge
from tests.turn.team_harness import draft_branches, key_branch, pulse_team, state_events
from tests.turn.test_late_runner import CONTRACT_ID, LEASE, hz
from tests.turn.test_team import git

SLOT = datetime(2026, 10, 26, 11, 0, tzinfo=UTC)
ELEVEN = "state:pulse/20261026T1100.md"
BRANCH = key_branch(CONTRACT_ID, "pulse", ELEVEN)


def trailers(remote: Path, rev: str) -> dict[str, str]:
    said = git("--git-dir", str(remote), "log", "-1", "--format=%(trailers:only,unfold)", rev)
    return dict(line.split(": ", 1) for line in said.splitlines() if line)


def test_the_draft_branch_is_named_for_the_contract_with_trailers_and_a_subject_for_a_branch(
    tmp_path: Path,
    bare: Path,  # noqa: F811
    loopback: str,  # noqa: F811
) -> None:
    priya, _ = pulse_team(tmp_path, bare, loopback, "priya", "omar")
    priya.tick(SLOT + timedelta(minutes=1))
    assert draft_branches(bare) == [f"refs/heads/{BRANCH}"]
    subject = git("--git-dir", str(bare), "log", "-1", "--format=%s", BRANCH)
    assert subject == "hz draft: team-pulse · pulse for 2026-10-26T11:00Z"
    assert "delete this line" not in git("--git-dir", str(bare), "log", "-1", "--format=%B", BRANCH)
    assert trailers(bare, BRANCH) == {
        "Hz-Draft": f"{LEASE}@v1@2026-10-26T11:00Z@state:pulse/20261026T1100.md",
        "Hz-Slot": "2026-10-26T11:00Z",
        "Hz-Contract": CONTRACT_ID,
        "Hz-Output": "pulse",
    }
    # one commit on the team's main, changing the one file: a clean pull request
    assert git("--git-dir", str(bare), "rev-parse", f"{BRANCH}^") == git("--git-dir", str(bare), "rev-parse", "main")
    changed = git("--git-dir", str(bare), "diff", "--name-only", "main", BRANCH)
    assert changed == "pulse/20261026T1100.md"
    placed = [e for e in state_events(bare) if e["kind"] == "draft.placed"]
    assert [e["key"] for e in placed] == [trailers(bare, BRANCH)["Hz-Draft"]]


def test_the_branch_is_named_for_the_idempotency_key() -> None:
    assert f"hz/draft/{CONTRACT_ID}/pulse@state-pulse-20261026T1100-md-ab29e3057c" == BRANCH


def test_two_slots_wait_side_by_side_each_on_its_branch_and_both_are_approved(
    bare: Path,  # noqa: F811
    pulse_on_forge: PulseOnForge,
) -> None:
    """An hourly `{slot}` page is a new key each hour: the 12:00 draft leaves the 11:00 one pending, with
    its own branch and pull request (it used to replace it unreviewed), and a reviewer merges both later."""
    fake, (priya, omar) = pulse_on_forge("priya", "omar")
    for hour in (0, 1):
        woken = priya.tick(SLOT + timedelta(hours=hour, minutes=1))
        assert [e for e in woken if e["action"] == "error"] == []
    twelve = key_branch(CONTRACT_ID, "pulse", "state:pulse/20261026T1200.md")
    assert draft_branches(bare) == sorted([f"refs/heads/{BRANCH}", f"refs/heads/{twelve}"])
    assert trailers(bare, BRANCH)["Hz-Slot"] == "2026-10-26T11:00Z"
    assert trailers(bare, twelve)["Hz-Slot"] == "2026-10-26T12:00Z"
    pulls = fake.pulls()
    assert sorted((p["head"]["ref"], p["state"]) for p in pulls) == sorted([(BRANCH, "open"), (twelve, "open")])
    assert [e["kind"] for e in state_events(bare) if e["kind"] in ("draft.superseded", "draft.rejected")] == []

    for pull in pulls:
        fake.merge(pull["number"], by="omar")
    omar.tick(SLOT + timedelta(hours=1, minutes=20))
    approved = sorted((e["key"], e["data"]["approver"]) for e in state_events(bare) if e["kind"] == "approval.observed")
    assert approved == [(f"{LEASE}@v1@2026-10-26T{hour}:00Z@state:pulse/20261026T{hour}00.md", "@omar")
                        for hour in (11, 12)]  # fmt: skip
    assert draft_branches(bare) == []


def test_a_merged_draft_s_branch_is_deleted_by_the_next_tick_of_anyone(
    bare: Path,  # noqa: F811
    pulse_on_forge: PulseOnForge,
) -> None:
    fake, (priya, omar) = pulse_on_forge("priya", "omar")
    priya.tick(SLOT + timedelta(minutes=1))
    number = fake.pulls()[0]["number"]
    fake.edit_and_merge(number, "pulse/20261026T1100.md", "the reviewer's pulse\n", by="omar", method="squash")

    omar.tick(SLOT + timedelta(minutes=20))  # the maintainer's tick: recorded, and the branch deleted
    assert draft_branches(bare) == []
    approvals = [e for e in state_events(bare) if e["kind"] == "approval.observed"]
    assert [e["key"] for e in approvals] == [f"{LEASE}@v1@2026-10-26T11:00Z@state:pulse/20261026T1100.md"]
    priya.tick(SLOT + timedelta(minutes=25))  # and the owner's next tick does not push it back
    assert draft_branches(bare) == []
    assert git("branch", "--list", "hz/draft/*", cwd=priya.clone) == ""


def test_a_draft_closed_on_the_forge_loses_its_branch_and_the_next_draft_opens_a_new_request(
    bare: Path,  # noqa: F811
    pulse_on_forge: PulseOnForge,
) -> None:
    fake, (priya, omar) = pulse_on_forge("priya", "omar")
    priya.tick(SLOT + timedelta(minutes=1))
    fake.close(fake.pulls()[0]["number"])
    omar.tick(SLOT + timedelta(minutes=20))
    assert draft_branches(bare) == []
    assert [e["kind"] for e in state_events(bare) if e["kind"] == "draft.rejected"] == ["draft.rejected"]
    priya.tick(SLOT + timedelta(hours=1, minutes=1))
    assert draft_branches(bare) == [f"refs/heads/{key_branch(CONTRACT_ID, 'pulse', 'state:pulse/20261026T1200.md')}"]
    assert [p["state"] for p in fake.pulls()] == ["closed", "open"]


def test_a_forge_that_fails_is_said_in_the_tick_and_asked_again_by_the_next(
    bare: Path,  # noqa: F811
    pulse_on_forge: PulseOnForge,
) -> None:
    fake, (priya, _) = pulse_on_forge("priya", "omar")
    fake.fail(502, times=50)
    ticked = hz("tick", "--now", (SLOT + timedelta(minutes=1)).isoformat(), "--json", cwd=priya.clone,
                environ=priya.environ)  # fmt: skip
    assert ticked.returncode == 1  # a tick that met an error says so
    errors = [e["error"] for e in json.loads(ticked.stdout)["woken"] if e["action"] == "error"]
    assert len(errors) == 1 and errors[0].startswith(f"the pull request of {BRANCH} waits for the next tick")
    assert fake.token not in " ".join(errors)
    assert draft_branches(bare) == [f"refs/heads/{BRANCH}"]  # the branch stays
    fake.clear_faults()
    woken = priya.tick(SLOT + timedelta(minutes=6))  # nothing due: the ask alone makes this tick work
    assert [e for e in woken if e["action"] == "error"] == []
    assert [(p["head"]["ref"], p["state"]) for p in fake.pulls()] == [(BRANCH, "open")]


def test_no_forge_means_branches_alone(tmp_path: Path, bare: Path, loopback: str) -> None:  # noqa: F811
    priya, _ = pulse_team(tmp_path, bare, loopback, "priya", "omar")
    woken = priya.tick(SLOT + timedelta(minutes=1))
    assert [e for e in woken if e["action"] == "error"] == []
    assert draft_branches(bare) == [f"refs/heads/{BRANCH}"]
    assert subprocess.run(["git", "--git-dir", str(bare), "rev-parse", "--verify", "-q", BRANCH]).returncode == 0
