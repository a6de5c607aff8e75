"""A downstream runs once per team per approval of its upstream, whoever ticks when (issue 19, "downstream runs
once per approved upstream").

The owner of `pulse-digest` has two machines (a laptop and a desk, two homes, two holders of one handle),
each a separate `hz tick` process against the hook-guarded remote over loopback `git daemon`. Both have run
the digest before, so both see its `contract:` input move when Rita merges a pulse; they tick at different
minutes. A `source-changed` wake used to take the minute of the tick as its slot, so the second machine
found the lease released and its slot not done, and ran the digest again for the same approval.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from tests.gitstate.conftest import bare, loopback  # noqa: F401  (the fixtures, fetched by name below)
from tests.turn.team_harness import Member, Reviewer, base_environ, hourly, key_branch, seed_remote, state_events
from tests.turn.test_late_runner import CONTRACT_ID
from tests.turn.test_team import git
from tests.turn.test_team_downstream import DIGEST, DIGEST_ID, NINE, ROSTER, digest


def machine(tmp_path: Path, folder: str, url: str) -> Member:
    """Another machine of @priya: its own clone and home."""
    clone = tmp_path / folder / "repo"
    git("clone", "-q", url, str(clone))
    return Member(folder, clone, base_environ(tmp_path / folder / "hz", HZ_HANDLE="@priya"))


def merge_hour(rita: Reviewer, hour: int) -> None:
    """Rita squash-merges the pulse of `hour` with a line of her own (what moves the digest's input)."""
    page = f"pulse/20261102T{hour:02d}00.md"

    def edit(clone: Path) -> None:
        with (clone / page).open("a", encoding="utf-8") as text:
            text.write(f"\nRita read the {hour}:00 pulse.\n")

    rita.squash_merge(key_branch(CONTRACT_ID, "pulse", f"state:{page}"), edit, message="Pulse, reviewed")


def digest_started(remote: Path) -> list[tuple[str, str]]:
    """The digest's turns on hz/state: (cause, who ran it)."""
    started = [e for e in state_events(remote) if e["kind"] == "turn.started" and e["id"] == f"hz-{DIGEST_ID}"]
    return sorted((e["data"]["cause"], e["key"].split("@", 1)[1]) for e in started)


def ran(woken: list[dict[str, Any]]) -> bool:
    return ("started", "drafted") in digest(woken)


def test_two_machines_at_different_minutes_run_the_downstream_once_per_approval(
    tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    remote: Path = request.getfixturevalue("bare")
    url: str = request.getfixturevalue("loopback")
    seed_remote(tmp_path, remote, url, hourly("@priya", ["@omar"]), toml=ROSTER,
                others={"pulse-digest.prose.md": DIGEST})  # fmt: skip
    rita = Reviewer.join(tmp_path, url, "Rita", "rita@example.com")
    (rita.clone / "pulse").mkdir()
    (rita.clone / "pulse" / "20261101T0800.md").write_text("# Pulse\n\n## summary\n\nA quiet morning.\n")
    rita.git("add", "pulse")
    rita.git("commit", "-q", "-m", "The first pulse, by hand")
    rita.git("push", "-q", "origin", "main")
    laptop, desk = machine(tmp_path, "laptop", url), machine(tmp_path, "desk", url)

    # each machine ran the digest once (the desk yesterday's 18:00, the laptop today's), so both watch its input
    evening = NINE.replace(hour=18)
    assert ran(desk.tick(evening - timedelta(days=1)))
    assert ran(laptop.tick(evening))

    # one approval, two machines at different minutes: one run
    merge_hour(rita, 18)
    assert ran(laptop.tick(evening + timedelta(minutes=10)))
    assert not ran(desk.tick(evening + timedelta(minutes=25))), desk.woken[-1]
    # a second approval: one more, on whichever machine comes first
    desk.tick(evening + timedelta(hours=1))  # drafts the 19:00 pulse
    merge_hour(rita, 19)
    assert ran(desk.tick(evening + timedelta(hours=1, minutes=7)))
    assert not ran(laptop.tick(evening + timedelta(hours=1, minutes=31))), laptop.woken[-1]
    causes = [cause for cause, _ in digest_started(remote)]
    assert sorted(causes) == ["schedule", "schedule", "source-changed", "source-changed"], digest_started(remote)
