"""A simulated day of a team: each of 12 hourly slots runs once, whoever arrives when (issue 10, "Tests").

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

The second soak is the review half of a day (issue 19): reviewers on the fake GitHub merge late, squash
with edits, close a pull request and merge an amendment, and a daily digest reads the pulse through
`contract:`; each draft gets one fate with the right actor, none is lost, the digest runs once per approval.
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
from tests.review.conftest import fake_forge  # noqa: F401  (the fixture, fetched by name below)
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
# Half a day is enough: every fate the test names (the owner stopped, a holder killed and taken over, a
# race, an offline owner's hour only an Actions run takes, an arrival after the lease) is scripted or drawn
# to happen at least once, whatever the seed, and the checks below count that each did; a longer day only
# repeated ordinary hours, at about three seconds of `hz tick` processes each.
HOURS = 12
SEED = int(os.environ.get("HZ_SOAK_SEED", "20261026"))  # another seed replays another day
STOPPED = 3  # the owner is stopped past its lease in this hour's turn
KILLED = 6  # the owner is offline and lena is killed mid-turn
RACE = 10  # everyone arrives at once, past the grace period
OFFLINE = 3  # ordinary hours the owner is offline (besides KILLED)
WITH_ACTIONS = 3  # ordinary hours an Actions run arrives as well
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
    offline = set(rng.sample(ordinary, OFFLINE)) | {KILLED}
    with_actions = set(rng.sample(ordinary, WITH_ACTIONS))
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
    assert len(offline) == OFFLINE + 1 and back
    run_as = {e["key"]: e["data"]["role"] for e in events if e["kind"] == "turn.started"}
    assert any(run_as[key(h)] == "actions" for h in offline), run_as  # an offline owner's hour an Actions run took
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


# --- the review half of a team's day (issue 19, "Tests") ---------------------------------------------------

REVIEW_DAY = datetime(2026, 11, 2, tzinfo=UTC)
PULSE_HOURS = range(8, 19)


def page(hour: int) -> str:
    return f"pulse/20261102T{hour:02d}00.md"


def pulse_key(hour: int) -> str:
    return f"{LEASE}@v1@2026-11-02T{hour:02d}:00Z@state:{page(hour)}"


class Review:
    """Rita on the fake GitHub: the pull request of an hour's pulse merged (edited first, or not) or closed."""

    def __init__(self, fake: Any, remote: Path) -> None:
        self.fake, self.remote = fake, remote

    def number(self, hour: int) -> int:
        branch = key_branch(LEASE.removeprefix("hz-"), "pulse", f"state:{page(hour)}")
        (pull,) = [p for p in self.fake.pulls() if p["head"]["ref"] == branch and p["state"] == "open"]
        return int(pull["number"])

    def merge(self, hour: int, *, method: str = "squash", edited: bool = False) -> None:
        number = self.number(hour)
        if edited:
            branch = key_branch(LEASE.removeprefix("hz-"), "pulse", f"state:{page(hour)}")
            text = git("--git-dir", str(self.remote), "show", f"{branch}:{page(hour)}")
            self.fake.edit(number, page(hour), f"{text}\nRita's line, added before she merged.\n", by="rita-gh")
        self.fake.merge(number, by="rita-gh", method=method)

    def close(self, hour: int) -> None:
        self.fake.close(self.number(hour), by="rita-gh")


def amend_pulse(priya: Member, tmp_path: Path) -> None:
    """priya amends the pulse contract: `hz heinzel amend` puts it on its review branch with a pull request."""
    amended = tmp_path / "amended.prose.md"
    text = (priya.clone / "workflows" / "team-pulse.prose.md").read_text(encoding="utf-8")
    amended.write_text(text.replace("drafted every hour.", "drafted every hour, in three lines."), encoding="utf-8")
    done = hz("heinzel", "amend", "team-pulse", "--from", str(amended), "--why", "Shorter pulses.",
              cwd=priya.clone, environ=priya.environ)  # fmt: skip
    assert (done.returncode, done.stderr) == (0, ""), done.stdout


@pytest.mark.slow
def test_a_team_review_day_decides_every_draft_once_and_runs_the_downstream_once_per_approval(
    tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    """Hourly `{slot}` pulses (08:00-18:00) and a daily digest reading them (`contract:`), with the fake GitHub.
    priya runs her slots; omar runs the hours she is offline (11, 18) and an Actions run hour 15. Rita
    reviews late: at 12:30 she squash-merges 08 edited, merges 09 with a merge commit and closes 10; at
    14:40 she merges 11 and 12 (edited); at 16:40 she merges priya's amendment of the pulse (made at 16:05). Then:
    each slot ran once; each draft has one fate with the right actor, or waits on its branch (none lost);
    the digest waited for the first approval, then ran once for it, once for the next approvals and once
    for its 18:00 slot; the pulse's turns after the amendment's merge run version 2 on every member."""
    from tests.turn.test_team_downstream import DIGEST, DIGEST_ID

    began = time.monotonic()
    remote: Path = request.getfixturevalue("bare")
    url: str = request.getfixturevalue("loopback")
    seed_remote(tmp_path, remote, url, hourly("@priya", ["@omar"]), others={"pulse-digest.prose.md": DIGEST})
    fake = request.getfixturevalue("fake_forge")(remote)
    priya, omar = Member.join(tmp_path, "priya", url), Member.join(tmp_path, "omar", url)
    for member in (priya, omar):
        member.environ.update(fake.environ)
    rita = Review(fake, remote)
    at = REVIEW_DAY
    for hour in PULSE_HOURS:
        if hour == 11 or hour == 18:
            omar.tick(at + timedelta(hours=hour, minutes=13))  # past the grace period: a delegate's slot
        elif hour == 15:
            clone, environ = actions_run(tmp_path, url, 15)
            Member("actions", clone, {**environ, **fake.environ}).tick(at + timedelta(hours=15, minutes=12))
        else:
            priya.tick(at + timedelta(hours=hour, minutes=2))
        if hour in (9, 17):
            omar.tick(at + timedelta(hours=hour, minutes=20))  # the slot ran: nothing for him to run
        if hour == 12:
            rita.merge(8, edited=True)
            rita.merge(9, method="merge")
            rita.close(10)
        if hour == 14:
            rita.merge(11)
            rita.merge(12, edited=True)  # her line moves the digest's input (the offline pulses read alike)
        if hour == 16:
            amend_pulse(priya, tmp_path)
            (amendment,) = [p for p in fake.pulls() if p["head"]["ref"].endswith("/contract")]
            fake.merge(amendment["number"], by="rita-gh")
    priya.tick(at + timedelta(hours=18, minutes=30))  # the digest's 18:00 slot is hers

    events = state_events(remote)
    started = [e for e in events if e["kind"] == "turn.started"]
    pulse_slots = Counter(e["key"] for e in started if e["id"] == LEASE and e["data"]["cause"] != "approval")
    assert pulse_slots == Counter({f"{LEASE}@2026-11-02T{h:02d}:00Z": 1 for h in PULSE_HOURS}), pulse_slots
    versions = {e["key"][-6:-4]: e["data"]["contract_version"] for e in started if e["id"] == LEASE}
    assert versions == {f"{h:02d}": 1 if h < 17 else 2 for h in PULSE_HOURS}  # the amendment, merged on main
    roles = {e["key"][-6:-4]: e["data"]["role"] for e in started if e["id"] == LEASE}
    assert (roles["11"], roles["15"], roles["18"]) == ("delegate", "actions", "delegate")

    fates: dict[str, list[tuple[str, str]]] = {}
    for event in events:
        if event["kind"] in ("approval.observed", "draft.rejected", "draft.superseded"):
            who = event["data"].get("approver") or event["data"].get("by")
            fates.setdefault(event["key"], []).append((event["kind"], str(who)))
    assert {k: f for k, f in fates.items() if k.startswith(LEASE)} == {
        pulse_key(8): [("approval.observed", "@rita")],
        pulse_key(9): [("approval.observed", "@rita")],
        pulse_key(10): [("draft.rejected", "@rita")],
        pulse_key(11): [("approval.observed", "@rita")],
        pulse_key(12): [("approval.observed", "@rita")],
    }
    edited = next(e for e in events if e["kind"] == "approval.observed" and e["key"] == pulse_key(8))
    assert 0 < edited["data"]["share_changed"] < 0.5
    # no draft lost: each draft without a fate waits at the tip of its key's branch
    branches = draft_branches(remote)
    for placed in (e for e in events if e["kind"] == "draft.placed" and e["key"] not in fates):
        output = "pulse" if placed["id"] == LEASE else "digest"
        branch = key_branch(placed["id"].removeprefix("hz-"), output, placed["data"]["asset"])
        assert f"refs/heads/{branch}" in branches, placed["key"]
        tip = git("--git-dir", str(remote), "log", "-1", "--format=%(trailers:key=Hz-Draft,valueonly)", branch)
        assert tip.strip() == placed["key"]

    digest = [e for e in started if e["id"] == f"hz-{DIGEST_ID}"]
    assert [e["data"]["cause"] for e in sorted(digest, key=lambda e: e["ts"])] == [
        "schedule", "source-changed", "schedule"
    ]  # fmt: skip
    digest_fates = sorted(kind for k, f in fates.items() if k.startswith(f"hz-{DIGEST_ID}") for kind, _ in f)
    assert digest_fates == ["draft.superseded"]  # the day's 18:00 digest replaced its 16:00 one, same key
    outsider, environ = fresh_clone(tmp_path, url, "outsider")
    lint = hz("state", "lint", cwd=outsider, environ=environ)
    assert (lint.returncode, lint.stdout, lint.stderr) == (0, "hz/state: clean\n", "")
    print(f"review soak: {len(PULSE_HOURS)} slots, {len(events)} events, {time.monotonic() - began:.1f}s")
