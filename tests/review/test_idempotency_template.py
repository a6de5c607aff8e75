"""A contract's own `hz.idempotency` on the team path: `{slot:%Y-%m-%d}` on an hourly pulse (issue 19).

The hours of one day are one job: each hour's draft moves the day's branch (one branch, one pull request,
the older draft `draft.superseded` by the newer), the next day gets a branch of its own, and a draft of a
day whose draft a person already approved is a correction: an `auto_approve` policy never lets it out
(before, only a draft of the same slot and asset was one, so the 11:00 draft's comment went out at once).
Real `hz tick` processes, the hook-guarded remote over loopback `git daemon`, the fake GitHub.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from tests.gitstate.conftest import bare, loopback  # noqa: F401  (the fixtures, fetched by name below)
from tests.review.fake_forge import FakeForge
from tests.review.test_approval_bookkeeping import ROSTER, START
from tests.review.test_auto_approve_tick import LIVE, POLICY, PUBLISH, on_main
from tests.turn.team_harness import Member, draft_branches, hourly, seed_remote, state_events
from tests.turn.test_late_runner import CONTRACT_ID, LEASE


def day_branch(day: str) -> str:
    from hz.review.branches import branch_name

    return f"refs/heads/{branch_name(CONTRACT_ID, 'pulse', day)}"


def draft(hour: int, day: int = 2) -> str:
    return f"{LEASE}@v1@2026-11-{day:02d}T{hour:02d}:00Z@state:pulse/202611{day:02d}T{hour:02d}00.md"


def fates(remote: Path) -> dict[str, tuple[str, str]]:
    """Each draft's fate on hz/state: (kind, who or what decided it)."""
    found: dict[str, tuple[str, str]] = {}
    for event in state_events(remote):
        kind, data = event["kind"], event["data"]
        if kind in ("approval.observed", "draft.rejected", "draft.superseded"):
            assert event["key"] not in found, f"a second fate for {event['key']}"
            found[event["key"]] = (kind, str(data.get("approver") or data.get("by")))
    return found


def drafted(member: Member, at: timedelta) -> list[dict[str, Any]]:
    woken = member.tick(START + at)
    assert ("started", "drafted") in [(e["action"], e.get("disposition")) for e in woken], woken
    return woken


def test_a_day_key_supersedes_its_hours_gives_the_next_day_a_branch_and_a_redraft_after_approval_corrects(
    tmp_path: Path, request: pytest.FixtureRequest, fake_forge: Callable[..., FakeForge]
) -> None:
    remote: Path = request.getfixturevalue("bare")
    url: str = request.getfixturevalue("loopback")
    pulse = hourly("@priya", ["@omar"]).replace("  scope: team\n", '  scope: team\n  idempotency: "{slot:%Y-%m-%d}"\n')
    seed_remote(tmp_path, remote, url, pulse.replace("  outputs:", PUBLISH.rstrip("\n") + "\n  outputs:"), toml=ROSTER)
    on_main(tmp_path, url, {"policies/auto-approve.toml": POLICY.format(**LIVE)}, "policy")
    fake = fake_forge(remote)
    assert fake.open_issue("Pulse log") == 1
    priya = Member.join(tmp_path, "priya", url)
    priya.environ.update(fake.environ)

    # 09:00 and 10:00 are one key: one branch, one pull request, the 09:00 draft superseded by the 10:00 one
    drafted(priya, timedelta())
    assert draft_branches(remote) == [day_branch("2026-11-02")]
    drafted(priya, timedelta(hours=1))
    assert draft_branches(remote) == [day_branch("2026-11-02")]
    assert fates(remote) == {draft(9): ("draft.superseded", draft(10))}
    (pull,) = fake.pulls()
    assert (pull["head"]["ref"], pull["state"]) == (day_branch("2026-11-02").removeprefix("refs/heads/"), "open")
    assert len(fake.comments(1)) == 1  # the 10:00 draft is no first proposal: the live policy let it out

    # Rita merges the day's pull request: the 10:00 draft is approved, by her
    fake.merge(pull["number"], by="rita-gh", method="squash")
    priya.tick(START + timedelta(hours=1, minutes=20))
    assert fates(remote)[draft(10)] == ("approval.observed", "@rita")
    assert draft_branches(remote) == []

    # 11:00, the same day after its approval: a correction, on a new pull request, which no policy lets out
    drafted(priya, timedelta(hours=2))
    assert draft_branches(remote) == [day_branch("2026-11-02")]
    assert len(fake.comments(1)) == 1, fake.comments(1)
    assert [p["state"] for p in fake.pulls()] == ["closed", "open"]
    assert draft(11) not in fates(remote)  # it waits for a person

    # the next day is a key of its own: its own branch beside the correction, let out by the policy at once
    drafted(priya, timedelta(days=1))
    assert draft_branches(remote) == sorted([day_branch("2026-11-02"), day_branch("2026-11-03")])
    assert len(fake.comments(1)) == 2
    assert fates(remote) == {draft(9): ("draft.superseded", draft(10)), draft(10): ("approval.observed", "@rita")}
