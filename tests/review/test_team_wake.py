"""A turn a person starts on a team contract takes the team path (issue 19, finding 6).

`hz heinzel wake` (and chat, retry, resume, which go the same way) on a team contract takes the lease of
its slot, pushes its receipts and draft branch in one push that also releases the lease, and the forge
opens the pull request: the draft is in every member's `hz drafts`. The team harness: separate `hz`
processes, the hook-guarded remote over loopback `git daemon`, the fake GitHub.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

from tests.gitstate.conftest import bare, loopback  # noqa: F401  (the fixtures, fetched by name below)
from tests.review.conftest import PulseOnForge
from tests.turn.team_harness import draft_branches, fresh_clone, key_branch, lease_log, state_events
from tests.turn.test_late_runner import CONTRACT_ID, LEASE, hz

NINE = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)
KEY = f"{LEASE}@v1@2026-11-02T09:07Z@state:pulse/20261102T0907.md"


def test_a_wake_on_a_team_contract_takes_the_lease_pushes_and_opens_the_pull_request(
    tmp_path: Path,
    bare: Path,  # noqa: F811
    loopback: str,  # noqa: F811
    pulse_on_forge: PulseOnForge,
) -> None:
    fake, [priya, omar] = pulse_on_forge("priya", "omar")
    priya.tick(NINE)  # adopts the contract and runs the 09:00 slot
    omar.tick(NINE + timedelta(minutes=1))  # adopts it too; the slot is the owner's for now

    # omar, a maintainer, wakes it by hand at 09:07: no grace period for a turn a person asked for
    woke = hz("heinzel", "wake", "team-pulse", "--now", (NINE + timedelta(minutes=7)).isoformat(),
              cwd=omar.clone, environ=omar.environ)  # fmt: skip
    assert (woke.returncode, woke.stderr) == (0, ""), woke.stdout
    assert woke.stdout.startswith("team-pulse: started -> drafted"), woke.stdout
    started = [e for e in state_events(bare) if e["kind"] == "turn.started" and e["data"]["cause"] == "asked"]
    assert [(e["id"], e["data"]["role"]) for e in started] == [(LEASE, "delegate")]
    assert KEY in [e["key"] for e in state_events(bare) if e["kind"] == "draft.placed"]
    assert f"refs/heads/{key_branch(CONTRACT_ID, 'pulse', KEY.rpartition('@')[2])}" in draft_branches(bare)
    chain = [(r["token"], r["state"], r["holder"].split("/")[0]) for r in lease_log(omar.clone, omar.environ, LEASE)]
    assert chain[-2:] == [(2, "held", "@omar"), (2, "released", "@omar")]
    assert len(fake.pulls()) == 2  # each draft's own pull request: 09:00's and the wake's (another key)

    # a reviewer anywhere sees omar's draft
    clone, environ = fresh_clone(tmp_path, loopback, "reviewer")
    listed = hz("drafts", "--json", cwd=clone, environ={**environ, **fake.environ})
    assert (listed.returncode, listed.stderr) == (0, "")
    assert KEY in [row["key"] for row in json.loads(listed.stdout)]
