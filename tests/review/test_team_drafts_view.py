"""`hz drafts` shows the team's drafts from the remote, to a reviewer on any machine (issue 11, finding 3).

The reviewer has a fresh clone and an empty home and never ticked; the owner drafts in their own
`hz tick` process. Another team repository with drafts of its own must not show up.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

from tests.gitstate.conftest import bare, loopback  # noqa: F401  (the fixtures, fetched by name below)
from tests.review.conftest import PulseOnForge
from tests.turn.team_harness import bare_remote, fresh_clone, key_branch, pulse_team, push_main
from tests.turn.test_late_runner import CONTRACT_ID, LEASE, hz
from tests.turn.test_team import git

SLOT = datetime(2026, 10, 26, 11, 0, tzinfo=UTC)
KEY = f"{LEASE}@v1@2026-10-26T11:00Z@state:pulse/20261026T1100.md"


def test_a_reviewer_elsewhere_sees_the_team_s_draft_with_its_pull_request(
    tmp_path: Path,
    bare: Path,  # noqa: F811
    loopback: str,  # noqa: F811
    pulse_on_forge: PulseOnForge,
) -> None:
    fake, [priya] = pulse_on_forge("priya")
    priya.tick(SLOT + timedelta(minutes=1))

    clone, environ = fresh_clone(tmp_path, loopback, "reviewer")
    environ.update(fake.environ)
    listed = hz("drafts", "--json", cwd=clone, environ=environ)
    assert (listed.returncode, listed.stderr) == (0, "")
    rows = json.loads(listed.stdout)
    assert len(rows) == 1
    row = rows[0]
    assert {k: row[k] for k in ("scope", "contract", "output", "slot", "key", "branch")} == {
        "scope": "team",
        "contract": CONTRACT_ID,
        "output": "pulse",
        "slot": "2026-10-26T11:00Z",
        "key": KEY,
        "branch": key_branch(CONTRACT_ID, "pulse", "state:pulse/20261026T1100.md"),
    }
    assert row["pull"] == fake.pulls()[0]["html_url"]
    assert row["age_s"] >= 0 and row["placed_at"].endswith("Z")

    text = hz("drafts", cwd=clone, environ=environ).stdout
    assert "team team-pulse · pulse  slot 2026-10-26T11:00Z" in text  # named as main has it, not by id
    assert f"key {KEY}" in text and fake.pulls()[0]["html_url"] in text
    assert "no drafts wait" not in text

    # the owner, on their machine, sees it once: the remote's row, not the index's copy beside it
    mine = json.loads(hz("drafts", "--json", cwd=priya.clone, environ=priya.environ).stdout)
    assert [(r.get("scope"), r["key"]) for r in mine] == [("team", KEY)]


def test_an_unreachable_remote_shows_the_last_fetch_with_a_note(
    tmp_path: Path,
    bare: Path,  # noqa: F811
    loopback: str,  # noqa: F811
) -> None:
    [priya] = pulse_team(tmp_path, bare, loopback, "priya")
    priya.tick(SLOT + timedelta(minutes=1))
    clone, environ = fresh_clone(tmp_path, loopback, "reviewer")
    assert json.loads(hz("drafts", "--json", cwd=clone, environ=environ).stdout)[0]["key"] == KEY
    moved = bare.with_name("moved.git")
    bare.rename(moved)  # the daemon now serves nothing at that path
    try:
        shown = hz("drafts", cwd=clone, environ=environ)
    finally:
        moved.rename(bare)
    assert shown.returncode == 0
    assert shown.stdout.startswith("note: the team remote could not be reached")
    assert f"key {KEY}" in shown.stdout


def test_another_repository_s_team_drafts_are_not_listed(
    tmp_path: Path,
    bare: Path,  # noqa: F811
    loopback: str,  # noqa: F811
) -> None:
    [priya] = pulse_team(tmp_path, bare, loopback, "priya")
    priya.tick(SLOT + timedelta(minutes=1))
    # a second team repository whose remote holds a draft branch of some other contract
    other = bare_remote(tmp_path, "other.git")
    state = f'[state]\nremote = "{other}"\n'
    seed = push_main(tmp_path, other, {"hz.toml": state}, seed="other-seed", message="other team")
    git("push", "-q", str(other), "HEAD:refs/heads/hz/draft/01KC9999999999999999999999/notes", cwd=seed)
    clone = tmp_path / "other-clone"
    git("clone", "-q", str(other), str(clone))

    # the same home for both: each repository lists its own remote's drafts only
    environ = dict(priya.environ)
    here = json.loads(hz("drafts", "--json", cwd=clone, environ=environ).stdout)
    assert [r["contract"] for r in here if r.get("scope") == "team"] == ["01KC9999999999999999999999"]
    there = json.loads(hz("drafts", "--json", cwd=priya.clone, environ=environ).stdout)
    assert [r["contract"] for r in there if r.get("scope") == "team"] == [CONTRACT_ID]
