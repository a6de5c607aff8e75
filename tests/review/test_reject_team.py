"""`hz reject KEY` for a team draft, from a reviewer's machine (issue 11, finding 3): the pull request is
closed, the remote branch deleted and `draft.rejected` recorded on `hz/state`, once."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from tests.gitstate.conftest import bare, loopback  # noqa: F401  (the fixtures, fetched by name below)
from tests.review.conftest import PulseOnForge
from tests.turn.team_harness import draft_branches, fresh_clone, key_branch, pulse_team, state_events
from tests.turn.test_late_runner import CONTRACT_ID, LEASE, hz

SLOT = datetime(2026, 10, 26, 11, 0, tzinfo=UTC)
KEY = f"{LEASE}@v1@2026-10-26T11:00Z@state:pulse/20261026T1100.md"


def test_a_reviewer_rejects_a_team_draft_closing_its_pull_request_deleting_its_branch_with_a_receipt(
    tmp_path: Path,
    bare: Path,  # noqa: F811
    loopback: str,  # noqa: F811
    pulse_on_forge: PulseOnForge,
) -> None:
    fake, [priya] = pulse_on_forge("priya")
    priya.tick(SLOT + timedelta(minutes=1))
    branch = key_branch(CONTRACT_ID, "pulse", "state:pulse/20261026T1100.md")
    assert draft_branches(bare) == [f"refs/heads/{branch}"]

    clone, environ = fresh_clone(tmp_path, loopback, "omar")
    environ.update(fake.environ, HZ_HANDLE="@omar")
    rejected = hz("reject", KEY, cwd=clone, environ=environ)
    assert (rejected.returncode, rejected.stderr) == (0, "")
    assert rejected.stdout.startswith(f"rejected {KEY}; branch {branch} deleted on the team remote")
    assert draft_branches(bare) == []
    assert [p["state"] for p in fake.pulls()] == ["closed"]
    receipts = [e for e in state_events(bare) if e["kind"] == "draft.rejected"]
    assert [(e["key"], e["data"]["asset"], e["data"]["by"]) for e in receipts] == [
        (KEY, "state:pulse/20261026T1100.md", "@omar")
    ]  # issue 19 finding 4: the rejector is named

    again = hz("reject", KEY, cwd=clone, environ=environ)
    assert (again.returncode, again.stderr.splitlines()[0]) == (1, f"error: {KEY} was decided already")

    # the owner's next tick pushes nothing back, records nothing twice, and is no longer waiting for it
    priya.tick(SLOT + timedelta(minutes=20))
    assert draft_branches(bare) == []
    assert len([e for e in state_events(bare) if e["kind"] in ("draft.rejected", "approval.observed")]) == 1
    mine = hz("drafts", "--json", cwd=priya.clone, environ=priya.environ)
    assert mine.stdout.strip() == "[]"
    lint = hz("state", "lint", cwd=clone, environ=environ)
    assert (lint.returncode, lint.stderr) == (0, "")


def test_the_owner_rejects_by_their_own_key(tmp_path: Path, bare: Path, loopback: str) -> None:  # noqa: F811
    [priya] = pulse_team(tmp_path, bare, loopback, "priya")
    priya.tick(SLOT + timedelta(minutes=1))
    import json

    local = [r for r in json.loads(hz("heinzel", "list", "--json", cwd=priya.clone, environ=priya.environ).stdout)]
    agent = local[0]["id"]
    own_key = f"{agent}@v1@2026-10-26T11:00Z@state:pulse/20261026T1100.md"
    rejected = hz("reject", own_key, cwd=priya.clone, environ=priya.environ)
    assert (rejected.returncode, rejected.stderr) == (0, "")
    assert draft_branches(bare) == []
    assert [e["key"] for e in state_events(bare) if e["kind"] == "draft.rejected"] == [KEY]


def test_an_unknown_key_is_said_plainly(tmp_path: Path, bare: Path, loopback: str) -> None:  # noqa: F811
    pulse_team(tmp_path, bare, loopback)
    clone, environ = fresh_clone(tmp_path, loopback, "omar")
    said = hz("reject", f"{LEASE}@v1@2026-10-26T11:00Z@state:pulse/x.md", cwd=clone, environ=environ)
    assert said.returncode == 1
    assert said.stderr.startswith(f"error: no draft waits under {LEASE}@")
