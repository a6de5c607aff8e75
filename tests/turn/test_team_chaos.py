"""Members as daemons, killed and stopped at random moments: still no slot runs twice (issue 10, opt-in).

Longer than CI allows (about 1.5 to 3 minutes for 12 hours), so it runs only with HZ_SOAK_CHAOS=1; set
HZ_SOAK_SEED for another day. Three members tick every five minutes or so (each with its own phase, some
hours offline), Actions runs arrive now and then, and ticks whose pinned clocks fall within 90 seconds of
each other run as concurrent processes. During the first quarter hour of each slot, where the work is,
a tick may be killed (kill -9) or stopped (SIGSTOP, continued four batches later) after a random wall
delay, so crashes and stale holders land at any point of a turn: the claim, the think step, the push.

A killed tick may have pushed its receipts or not and a stopped one may lose its lease, so a slot can
legitimately stay undone when nobody comes back in time; what must never happen is a second run: at most
one start and one finish and one draft branch per slot, rising tokens, a clean lint.
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
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from tests.gitstate.conftest import bare, loopback  # noqa: F401  (the fixtures, fetched by name below)
from tests.turn.team_harness import (
    Member,
    actions_run,
    draft_branches,
    fresh_clone,
    hourly,
    lease_log,
    seed_remote,
    state_events,
)
from tests.turn.test_late_runner import LEASE, hz
from tests.turn.test_team_soak import DAY

HOURS = 12
SEED = int(os.environ.get("HZ_SOAK_SEED", "11"))
NEAR = timedelta(seconds=90)  # ticks this close on the pinned clocks run at the same time


def schedule(rng: random.Random) -> list[tuple[datetime, str]]:
    """(pinned time, who) of every tick of the day, in time order; omar is always online."""
    offline = {"priya": set(rng.sample(range(HOURS), 3)), "lena": set(rng.sample(range(HOURS), 3)), "omar": set()}
    ticks = []
    for name, away in offline.items():
        at = DAY + timedelta(minutes=rng.uniform(0, 5))
        while at < DAY + timedelta(hours=HOURS):
            if (at - DAY) // timedelta(hours=1) not in away:
                ticks.append((at, name))
            at += timedelta(minutes=5, seconds=rng.uniform(-40, 40))
    ticks += [(DAY + timedelta(hours=h, minutes=rng.uniform(0, 60)), "actions") for h in rng.sample(range(HOURS), 4)]
    return sorted(ticks)


def batches(ticks: list[tuple[datetime, str]]) -> list[list[tuple[datetime, str]]]:
    """Ticks grouped to run together: close on the clock, one per participant."""
    grouped: list[list[tuple[datetime, str]]] = []
    for at, who in ticks:
        last = grouped[-1] if grouped else []
        if last and at - last[0][0] < NEAR and who not in {w for _, w in last}:
            last.append((at, who))
        else:
            grouped.append([(at, who)])
    return grouped


@dataclass
class Stopped:
    until: int  # the batch after which it is continued
    who: str
    proc: subprocess.Popen[str]


@pytest.mark.slow
@pytest.mark.skipif(os.environ.get("HZ_SOAK_CHAOS") != "1", reason="opt-in: HZ_SOAK_CHAOS=1 (minutes long)")
def test_no_slot_runs_twice_whoever_is_killed_or_stopped_when(tmp_path: Path, request: pytest.FixtureRequest) -> None:
    remote: Path = request.getfixturevalue("bare")
    url: str = request.getfixturevalue("loopback")
    seed_remote(tmp_path, remote, url, hourly("@priya", ["@omar", "@lena"]))
    rng = random.Random(SEED)
    members = {name: Member.join(tmp_path, name, url) for name in ("priya", "omar", "lena")}
    stopped: list[Stopped] = []
    runs = 0
    for number, batch in enumerate(batches(schedule(rng))):
        started = []
        for at, who in batch:
            if who in {s.who for s in stopped}:
                continue  # a daemon does not tick while it is stopped
            if who == "actions":
                runs += 1
                runner = Member("actions", *actions_run(tmp_path, url, 7000 + runs))
            else:
                runner = members[who]
            started.append((at, who, runner.start(at, runner.environ)))
        for at, who, proc in started:
            fate = rng.random() if (at - DAY) % timedelta(hours=1) < timedelta(minutes=16) else 1.0
            if fate < 0.4:
                time.sleep(rng.uniform(0.05, 1.2))
            if fate < 0.25:
                proc.kill()
                proc.communicate(timeout=60)
            elif fate < 0.4 and who != "actions" and proc.poll() is None:
                proc.send_signal(signal.SIGSTOP)
                stopped.append(Stopped(number + 4, who, proc))
            else:
                out, err = proc.communicate(timeout=120)
                assert proc.returncode == 0, f"{who} at {at:%H:%M:%S}: {out}{err}"
        for late in [s for s in stopped if s.until <= number]:
            stopped.remove(late)
            late.proc.send_signal(signal.SIGCONT)
            out, err = late.proc.communicate(timeout=120)
            assert late.proc.returncode == 0, f"{late.who}, continued: {out}{err}"
    for late in stopped:
        late.proc.send_signal(signal.SIGCONT)
        late.proc.communicate(timeout=120)

    events = state_events(remote)
    for kind in ("turn.started", "turn.finished"):
        twice = {k: n for k, n in Counter(e["key"] for e in events if e["kind"] == kind).items() if n > 1}
        assert twice == {}, kind
    assert len(draft_branches(remote)) <= 1  # one branch for the output, whichever hour's draft it holds
    outsider, environ = fresh_clone(tmp_path, url, "outsider")
    tokens = [r["token"] for r in lease_log(outsider, environ, LEASE)]
    assert tokens == sorted(tokens)
    lint = hz("state", "lint", cwd=outsider, environ=environ)
    assert (lint.returncode, lint.stdout, lint.stderr) == (0, "hz/state: clean\n", "")
    print(json.dumps({"seed": SEED, "finished": sum(e["kind"] == "turn.finished" for e in events), "actions": runs}))
