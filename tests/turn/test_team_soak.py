"""A simulated day of a team: each of 24 hourly slots runs once, whoever arrives when (issue 10, "Tests").

Three members (priya owns the contract, omar and lena maintain it) keep their clone and `$HZ_HOME` from
tick to tick; an Actions-like run starts from a fresh clone, an empty home and no git identity each time.
All of them are separate `hz tick --now` processes against one bare remote with hz's pre-receive hook,
served by `git daemon` on loopback. The clock is pinned; the arrival times within each hour are drawn
from a seeded random generator, so a failure replays. The day includes the owner offline for some hours,
arrivals long after the runner's lease expired, an owner stopped (SIGSTOP) past its lease while it thinks
and continued after a maintainer ran the slot, and a maintainer killed (kill -9) mid-turn whose slot is
taken over once its lease expired, and one hour where all four arrive at the same instant as concurrent
processes. Set HZ_SOAK_SEED to replay another day (tests/turn/test_team_chaos.py goes further, opt-in).
Afterwards, for every slot: one `turn.started` and one `turn.finished` on `hz/state`, one draft branch on
the remote, a lease chain whose tokens only rise, and a clean lint.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import time
from collections import Counter
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from tests.gitstate.conftest import bare, loopback  # noqa: F401  (the fixtures, fetched by name below)
from tests.turn.team_harness import (
    Member,
    actions_run,
    draft_branches,
    fresh_clone,
    hourly,
    key_branch,
    lease_log,
    seed_remote,
    state_events,
)
from tests.turn.test_fenced_drafts import slow_claude, wait_for
from tests.turn.test_late_runner import LEASE, hz
from tests.turn.test_team import git

DAY = datetime(2026, 10, 26, tzinfo=UTC)
HOURS = 24
SEED = int(os.environ.get("HZ_SOAK_SEED", "20261026"))  # another seed replays another day
STOPPED = 6  # the owner is stopped past its lease in this hour's turn
KILLED = 15  # the owner is offline and lena is killed mid-turn
RACE = 20  # everyone arrives at once, past the grace period
GRACE = timedelta(minutes=10)  # two tick intervals: before it, only the owner takes a slot


def key(hour: int) -> str:
    return f"{LEASE}@{(DAY + timedelta(hours=hour)):%Y-%m-%dT%H:%MZ}"


@dataclass(frozen=True)
class Arrival:
    at: datetime
    who: str  # a member's name or "actions"


def arrivals(rng: random.Random) -> tuple[list[Arrival], set[int]]:
    """The day's random arrivals outside the scripted hours, in time order, and the hours the owner is offline."""
    ordinary = [h for h in range(HOURS) if h not in (STOPPED, KILLED, RACE)]
    offline = set(rng.sample(ordinary, 6)) | {KILLED}
    with_actions = set(rng.sample(ordinary, 6))
    late = rng.choice([h for h in ordinary if h not in offline])  # an hour that surely has an arrival after the lease
    solo = rng.choice(sorted(offline - {KILLED, KILLED + 1}))  # an hour only an Actions run can take
    found: list[Arrival] = []
    for hour in ordinary:
        slot = DAY + timedelta(hours=hour)
        if hour == solo:
            found.append(Arrival(slot + timedelta(minutes=rng.uniform(11, 59)), "actions"))
            continue
        hourly: list[Arrival] = []
        if hour not in offline:
            hourly.append(Arrival(slot + timedelta(minutes=rng.uniform(0, 10 if hour == late else 50)), "priya"))
        if hour == late:
            hourly.append(Arrival(slot + timedelta(minutes=rng.uniform(40, 59)), "actions"))  # fresh: never settled
        for name in ("omar", "lena"):
            if rng.random() < 0.6:
                hourly.append(Arrival(slot + timedelta(minutes=rng.uniform(0, 60)), name))
        if hour in with_actions:
            hourly.append(Arrival(slot + timedelta(minutes=rng.uniform(0, 60)), "actions"))
        if hour in offline and not any(a.at > slot + GRACE + timedelta(minutes=1) for a in hourly):
            hourly.append(Arrival(slot + timedelta(minutes=rng.uniform(11, 59)), rng.choice(["omar", "actions"])))
        found.extend(hourly)
    # lena comes back the hour after she was killed (at the latest), and must find her open turn's slot done elsewhere
    found.append(Arrival(DAY + timedelta(hours=KILLED + 1, minutes=rng.uniform(0, 50)), "lena"))
    return sorted(found, key=lambda a: a.at), offline


def woke(woken: list[dict[str, Any]]) -> list[tuple[str, Any]]:
    """What the tick's agents did; the drafts' bookkeeping (each hour's draft replaces the one before on the
    output's branch, and is recorded superseded by whoever ticks next) is counted on hz/state instead."""
    kept = [e for e in woken if e["action"] not in ("rejected", "superseded", "approved")]
    return [(e["action"], e.get("reason") or e.get("disposition")) for e in kept]


def forged_push(clone: Path, url: str) -> str:
    """Push a hand-made commit onto hz/state over the loopback remote; git's words (it must fail)."""
    git("checkout", "-q", "-b", "forged", "origin/hz/state", cwd=clone)
    (clone / "forged.json").write_text("{}")
    git("add", "forged.json", cwd=clone)
    git("-c", "user.name=someone", "-c", "user.email=someone@example.com", "commit", "-q", "-m", "forged", cwd=clone)
    pushed = subprocess.run(["git", "push", url, "HEAD:refs/heads/hz/state"], cwd=clone, capture_output=True,
                            text=True, check=False)  # fmt: skip
    assert pushed.returncode == 1, pushed.stderr
    return pushed.stderr


class Day:
    """The team and its remote, and the Actions runs of the day."""

    def __init__(self, tmp_path: Path, url: str) -> None:
        self.tmp_path, self.url = tmp_path, url
        self.members = {name: Member.join(tmp_path, name, url) for name in ("priya", "omar", "lena")}
        self.runs = 0

    def actions(self) -> Member:
        """The next Actions run: a fresh clone and an empty home every time."""
        self.runs += 1
        return Member("actions", *actions_run(self.tmp_path, self.url, 9000 + self.runs))

    def arrive(self, arrival: Arrival) -> list[tuple[str, Any]]:
        runner = self.actions() if arrival.who == "actions" else self.members[arrival.who]
        return woke(runner.tick(arrival.at))

    def stopped_owner(self, hour: int) -> None:
        """The owner thinks, is stopped past its lease; omar runs the slot; the owner, continued, places nothing."""
        slot = DAY + timedelta(hours=hour)
        priya, omar = self.members["priya"], self.members["omar"]
        folder = self.tmp_path / "stopped"
        owner = priya.start(slot + timedelta(seconds=30), priya.with_runner(slow_claude(folder), folder / "config"))
        try:
            wait_for(folder / "ready", owner)
            os.kill(owner.pid, signal.SIGSTOP)
            assert woke(omar.tick(slot + timedelta(minutes=20))) == [("started", "drafted")]
        finally:
            os.kill(owner.pid, signal.SIGCONT)
            (folder / "go").touch()
        out, err = owner.communicate(timeout=120)
        assert owner.returncode == 0, out + err
        assert ("fenced", None) in [(e["action"], e.get("disposition")) for e in json.loads(out)["woken"]]

    def killed_holder(self, hour: int) -> None:
        """lena takes the slot (the owner is offline) and is killed thinking; omar waits for her lease, then runs it."""
        slot = DAY + timedelta(hours=hour)
        lena, omar = self.members["lena"], self.members["omar"]
        folder = self.tmp_path / "killed"
        holder = lena.start(slot + timedelta(minutes=11), lena.with_runner(slow_claude(folder), folder / "config"))
        try:
            wait_for(folder / "ready", holder)
        finally:
            os.kill(holder.pid, signal.SIGKILL)
            holder.communicate(timeout=60)
            (folder / "go").touch()  # lets the orphaned `claude` of the killed tick end
        held = woke(omar.tick(slot + timedelta(minutes=14)))
        assert [(action, str(reason).split("/")[0]) for action, reason in held] == [("skipped", "held by @lena")]
        assert woke(omar.tick(slot + timedelta(minutes=25))) == [("started", "drafted")]

    def race(self, hour: int) -> None:
        """The three members and an Actions run tick at the same instant, as concurrent processes: one runs it."""
        now = DAY + timedelta(hours=hour, minutes=12)
        racing = [*self.members.values(), self.actions()]
        started = [(m.name, m.start(now, m.environ)) for m in racing]
        woken: dict[str, list[tuple[str, Any]]] = {}
        for name, proc in started:
            out, err = proc.communicate(timeout=120)
            assert proc.returncode == 0, out + err
            woken[name] = woke(json.loads(out)["woken"])
        assert sum(("started", "drafted") in done for done in woken.values()) == 1, woken


@pytest.mark.slow
def test_a_team_day_runs_every_slot_exactly_once(tmp_path: Path, request: pytest.FixtureRequest) -> None:
    began = time.monotonic()
    remote: Path = request.getfixturevalue("bare")
    url: str = request.getfixturevalue("loopback")
    seed_remote(tmp_path, remote, url, hourly("@priya", ["@omar", "@lena"]))
    day = Day(tmp_path, url)
    planned, offline = arrivals(random.Random(SEED))
    scripted = {STOPPED: day.stopped_owner, KILLED: day.killed_holder, RACE: day.race}
    ran_elsewhere: list[tuple[int, datetime]] = []
    back = False  # whether lena ticked since she was killed
    for hour in range(HOURS):
        if hour in scripted:
            scripted[hour](hour)
        for arrival in [a for a in planned if DAY + timedelta(hours=hour) <= a.at < DAY + timedelta(hours=hour + 1)]:
            done = day.arrive(arrival)
            if ("skipped", "ran-elsewhere") in done:
                ran_elsewhere.append((hour, arrival.at))
            if arrival.who == "lena" and hour > KILLED and not back:
                assert ("resumed", "ran-elsewhere") in done  # her killed turn is abandoned, its model never asked
                back = True

    events = state_events(remote)
    for kind in ("turn.started", "turn.finished"):
        per_slot = Counter(e["key"] for e in events if e["kind"] == kind)
        assert per_slot == Counter({key(h): 1 for h in range(HOURS)}), kind
    # one branch per hour's page (each hour is its own idempotency key): nothing replaced, nothing lost
    rejected = Counter(e["key"] for e in events if e["kind"] in ("draft.rejected", "draft.superseded"))
    assert rejected == Counter()
    placed = [e for e in events if e["kind"] == "draft.placed"]
    contract = LEASE.removeprefix("hz-")
    branches = sorted(f"refs/heads/{key_branch(contract, 'pulse', e['data']['asset'])}" for e in placed)
    assert draft_branches(remote) == branches and len(branches) == HOURS

    outsider, environ = fresh_clone(tmp_path, url, "outsider")
    chain = lease_log(outsider, environ, LEASE)
    tokens = [r["token"] for r in chain]
    assert tokens == sorted(tokens)  # renewals keep their term's token, a new term raises it
    terms: dict[int, set[tuple[str, str]]] = {}
    for record in chain:
        terms.setdefault(record["token"], set()).add((record["slot"], record["holder"]))
    assert all(len(held) == 1 for held in terms.values()), terms  # a token is one holder's, for one slot
    slots = [next(iter(terms[t]))[0] for t in sorted(terms)]
    assert slots == sorted(slots)  # each new term is for its slot or a later one
    ran_by = {e["key"]: e["token"] for e in events if e["kind"] == "turn.finished"}
    for hour in range(HOURS):
        stamp = f"{(DAY + timedelta(hours=hour)):%Y-%m-%dT%H:%M:%SZ}"
        assert ran_by[key(hour)] == max(t for t in terms if next(iter(terms[t]))[0] == stamp)
    lint = hz("state", "lint", cwd=outsider, environ=environ)
    assert (lint.returncode, lint.stdout, lint.stderr) == (0, "hz/state: clean\n", "")

    # the remote the day ran against is guarded: a push to hz/state that is not hz's is refused by the hook
    assert "(pre-receive hook declined)" in forged_push(outsider, url)

    # the day had what it was meant to have
    roles = Counter(e["data"]["role"] for e in events if e["kind"] == "turn.started")
    assert set(roles) == {"owner", "delegate", "actions"}, roles
    assert len(offline) == 7 and back
    expiry = {
        r["slot"]: datetime.fromisoformat(r["expires"]) for r in chain
    }  # the slot's last term's, the chain in order
    skew = timedelta(seconds=30)
    expired = [
        at for hour, at in ran_elsewhere if at > expiry[f"{DAY + timedelta(hours=hour):%Y-%m-%dT%H:%M:%SZ}"] + skew
    ]
    assert expired, ran_elsewhere  # some runners came after the runner's lease was over, and took nothing
    print(f"soak: {HOURS} slots, {sum(len(m.woken) for m in day.members.values())} member ticks, "
          f"{day.runs} Actions runs, {len(chain)} lease commits, roles {dict(roles)}, "
          f"{len(ran_elsewhere)} found their slot done, {len(expired)} of them after its lease expired, "
          f"{time.monotonic() - began:.1f}s")  # fmt: skip
