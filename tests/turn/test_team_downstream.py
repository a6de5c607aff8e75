"""A downstream contract runs once its upstream is approved, and once per approval (issue 19, finding 7).

`pulse-digest` reads `contract:team-pulse#summary` (required) and runs daily; `team-pulse` drafts hourly.
Before anything of the pulse is approved the digest waits, spending nothing and saying for what (the path
named as of its slot, never as a `{slot:…}` template); the tick after Rita merges the pulse's draft runs
it, and the tick after she merges the next one wakes it again (cause `source-changed`). The team harness:
separate `hz tick` processes, the hook-guarded remote over loopback `git daemon`, a reviewer's clone.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from tests.gitstate.conftest import bare, loopback  # noqa: F401  (the fixtures, fetched by name below)
from tests.turn.team_harness import Member, Reviewer, draft_branches, hourly, seed_remote, state_events

NINE = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)
ROSTER = '\n[team.members]\n"@rita" = ["rita@example.com"]\n"@priya" = ["priya@example.com"]\n'
DIGEST_ID = "01KC5555555555555555555555"
DIGEST = f"""---
name: pulse-digest
kind: responsibility
id: {DIGEST_ID}
description: A daily digest of the team's approved pulse.
hz:
  schema: 1
  title: Pulse digest
  owner: "@priya"
  scope: team
  schedule: "0 18 * * *"
  inputs:
    pulse:
      source: "contract:team-pulse#summary"
  outputs:
    digest:
      target: "state:digest/{{slot:%Y-%m-%d}}.md"
      facets: [summary]
---

# Pulse digest

### Goal

The approved pulse, digested.

### Requires

- `pulse`: the team's approved pulse.

### Maintains

- `digest`: the digest.

#### summary

Material: the pulse.

### Done when

- [ ] the pulse is digested
"""


def digest(woken: list[dict[str, Any]]) -> list[tuple[str, Any]]:
    """The digest's turns and skips in a tick (a draft's fate is bookkeeping, not a run)."""
    turns = ("started", "resumed", "skipped")
    return [(e["action"], e.get("disposition") or e.get("reason")) for e in woken
            if e["agent"] == "pulse-digest" and e["action"] in turns]  # fmt: skip


def digest_turns(remote: Path) -> list[str]:
    started = [e for e in state_events(remote) if e["kind"] == "turn.started"]
    return [e["data"]["cause"] for e in started if e["id"] == f"hz-{DIGEST_ID}"]


def merge_pulse(rita: Reviewer, remote: Path, hour: int) -> None:
    """Rita squash-merges the pulse's draft of `hour` with a line of her own (the offline runner drafts the
    same summary every hour: her line is what moves the digest's input)."""
    branch = next(b for b in draft_branches(remote) if "/pulse@" in b).removeprefix("refs/heads/")

    def edit(clone: Path) -> None:
        with (clone / f"pulse/20261102T{hour:02d}00.md").open("a", encoding="utf-8") as page:
            page.write(f"\nRita read the {hour}:00 pulse.\n")

    rita.squash_merge(branch, edit, message="Pulse, reviewed")


def test_a_downstream_waits_for_its_upstreams_approval_then_runs_once_per_approval(
    tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    remote: Path = request.getfixturevalue("bare")
    url: str = request.getfixturevalue("loopback")
    seed_remote(tmp_path, remote, url, hourly("@priya", ["@omar"]), toml=ROSTER,
                others={"pulse-digest.prose.md": DIGEST})  # fmt: skip
    priya, rita = Member.join(tmp_path, "priya", url), Reviewer.join(tmp_path, url, "Rita", "rita@example.com")

    # 09:00 nothing of the pulse is approved: the digest waits, says for what, and spends nothing
    woken = priya.tick(NINE)
    said = "waiting for an approved team:team-pulse"
    assert digest(woken) == [("skipped", said)], woken
    (why,) = [d for d in priya_team(priya, NINE + timedelta(minutes=1)) if d["contract"] == "pulse-digest"]
    assert (why["state"], why["upstream"]) == ("waiting", "team:team-pulse")
    assert why["reason"] == (
        "input pulse: contract:team-pulse#summary: waiting for an approved team:team-pulse: "
        "nothing on main at pulse/20261101T1800.md (nor another slot of it) yet"  # its missed slot, 18:00
    )
    assert digest_turns(remote) == []

    # Rita merges the 09:00 pulse: the next tick runs the digest, and the one after does not
    merge_pulse(rita, remote, 9)
    assert digest(priya.tick(NINE + timedelta(minutes=10))) == [("started", "drafted")]
    assert digest(priya.tick(NINE + timedelta(minutes=20))) == []

    # the 10:00 pulse, merged: the digest wakes once more, on the moved input
    priya.tick(NINE + timedelta(hours=1))
    merge_pulse(rita, remote, 10)
    assert digest(priya.tick(NINE + timedelta(hours=1, minutes=10))) == [("started", "drafted")]
    assert digest(priya.tick(NINE + timedelta(hours=1, minutes=20))) == []
    assert digest_turns(remote) == ["schedule", "source-changed"]  # its missed 18:00 slot (with created), then the move


def priya_team(priya: Member, now: datetime) -> list[dict[str, Any]]:
    import json

    from tests.turn.test_late_runner import hz

    done = hz("tick", "--now", now.isoformat(), "--json", cwd=priya.clone, environ=priya.environ)
    assert done.returncode == 0, done.stdout + done.stderr
    team: list[dict[str, Any]] = json.loads(done.stdout)["team"]
    return team
