"""A racing or writing member, run as its own process by the race and crash tests.

    python -m tests.gitstate.worker race  CLONE HOME REMOTE LEASE NAME DIR SLOTS TOTAL
    python -m tests.gitstate.worker hold  CLONE HOME REMOTE LEASE NAME DIR
    python -m tests.gitstate.worker write CLONE HOME REMOTE LEASE NAME DIR EVENTS BATCH

Processes meet through files in DIR (go-<i>, res-<i>-<name>, rel-<i>, ready, go, result.json).
"""

from __future__ import annotations

import json
import os
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from hz.gitstate import lease
from hz.gitstate.identity import whoami
from hz.gitstate.remote import TeamRemote
from hz.gitstate.settings import StateSettings
from hz.gitstate.writer import StateWriter
from tests.gitstate.factory import placed, started

BASE = datetime(2026, 10, 30, tzinfo=UTC)


def wait_for(path: Path, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not path.exists():
        if time.monotonic() > deadline:
            raise SystemExit(f"timed out waiting for {path}")
        time.sleep(0.003)


def note(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text)
    os.replace(tmp, path)


def team_of(clone: str, home: str, remote: str) -> TeamRemote:
    env = dict(os.environ, HZ_HOME=home)
    return TeamRemote(Path(clone), remote, env)


def race(team: TeamRemote, lease_id: str, name: str, folder: Path, slots: int, total: int) -> None:
    settings = StateSettings(lease_ttl_s=600, clock_skew_s=0)
    me = whoami({"HZ_HANDLE": name})
    for i in range(slots):
        wait_for(folder / f"go-{i}")
        slot = (BASE + timedelta(hours=i)).strftime("%Y-%m-%dT%H:%M:%SZ")
        now = datetime.now(UTC)
        outcome = lease.acquire(team, lease_id, slot=slot, identity=me, role="owner", now=now, settings=settings)
        token = outcome.record.token if outcome.record else 0
        note(folder / f"res-{i}-{name}", f"{outcome.status} {token}")
        if outcome.won:
            while len(list(folder.glob(f"res-{i}-*"))) - len(list(folder.glob(f"res-{i}-*.tmp"))) < total:
                time.sleep(0.003)
            lease.renew(team, lease_id, datetime.now(UTC), settings, release=True)
            note(folder / f"rel-{i}", "")


def hold(team: TeamRemote, lease_id: str, name: str, folder: Path) -> None:
    settings = StateSettings(lease_ttl_s=1, clock_skew_s=0)
    slot = "2026-10-30T15:00:00Z"
    outcome = lease.acquire(team, lease_id, slot=slot, identity=whoami({"HZ_HANDLE": name}), role="owner",
                            now=datetime.now(UTC), settings=settings)  # fmt: skip
    assert outcome.won and outcome.record is not None
    writer = StateWriter(team, settings)
    writer.queue(started(lease_id, slot, outcome.record.token))
    writer.queue(placed(lease_id, 1, outcome.record.token))
    note(folder / "ready", "")
    wait_for(folder / "go")
    result = writer.flush(datetime.now(UTC))
    summary = {"fenced": sorted(result.fenced), "landed": len(result.landed), "dropped": len(result.dropped)}
    note(folder / "result.json", json.dumps(summary))


def write(team: TeamRemote, lease_id: str, name: str, folder: Path, events: int, batch: int) -> None:
    settings = StateSettings(lease_ttl_s=3600, clock_skew_s=0, push_attempts=200)
    mine = lease.held(team, lease_id)
    if mine is None:
        outcome = lease.acquire(team, lease_id, slot="2026-10-30T15:00:00Z", identity=whoami({"HZ_HANDLE": name}),
                                role="owner", now=datetime.now(UTC), settings=settings)  # fmt: skip
        assert outcome.won and outcome.record is not None
        token = outcome.record.token
    else:
        token = mine.record.token
    writer = StateWriter(team, settings)
    with open(folder / f"landed-{name}.log", "a") as log:
        for start in range(0, events, batch):
            writer.queue(*(placed(lease_id, n, token) for n in range(start, min(events, start + batch))))
            result = writer.flush(datetime.now(UTC))
            log.write("".join(f"{e.key}\n" for e in result.landed))
            log.flush()
            os.fsync(log.fileno())
    note(folder / f"done-{name}", "")


def main(argv: list[str]) -> None:
    mode, clone, home, remote, lease_id, name, folder, *rest = argv
    team = team_of(clone, home, remote)
    if mode == "race":
        race(team, lease_id, name, Path(folder), int(rest[0]), int(rest[1]))
    elif mode == "hold":
        hold(team, lease_id, name, Path(folder))
    else:
        write(team, lease_id, name, Path(folder), int(rest[0]), int(rest[1]))


if __name__ == "__main__":
    main(sys.argv[1:])
