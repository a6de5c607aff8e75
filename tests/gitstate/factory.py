"""Building events, clones and remotes for the gitstate tests (shared by tests and worker processes)."""

from __future__ import annotations

import hashlib
import subprocess
from datetime import UTC, datetime, timedelta
from pathlib import Path

from hz.gitstate.events import DraftPlaced, Event, TurnEnded, TurnStarted
from hz.gitstate.types import format_utc

ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"


def hz_id(n: int) -> str:
    """A valid, readable Heinzelmännchen id: hz- and a ULID ending in the base-32 digits of n."""
    digits = ""
    while True:
        n, r = divmod(n, 32)
        digits = ALPHABET[r] + digits
        if n == 0:
            break
    return "hz-01JB" + digits.rjust(22, "0")


def turn_id(n: int) -> str:
    return "t-" + hz_id(n)[3:]


def sha(text: str) -> str:
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()


def started(agent: str, slot: str, token: int, *, turn: int = 1, role: str = "owner", ts: str | None = None) -> Event:
    key = f"{agent}@{slot}"
    data = TurnStarted(
        turn=turn_id(turn),
        cause="schedule",
        keys=[key],
        contract_version=1,
        contract_fp=sha("c"),
        token=token,
        role=role,  # type: ignore[arg-type]
    )
    return Event.make("turn.started", id=agent, key=key, ts=ts or slot, lease=agent, token=token, data=data)


def finished(agent: str, slot: str, token: int, *, turn: int = 1) -> Event:
    key = f"{agent}@{slot}"
    data = TurnEnded(
        turn=turn_id(turn),
        cause="schedule",
        keys=[key],
        disposition="drafted",
        cost_usd=0.31,
        tokens=1200,
        tokens_cached=300,
        duration_s=4.5,
        contract_fp=sha("c"),
        input_fps={"prs": sha("p")},
        draft_hash=sha("d"),
    )
    return Event.make("turn.finished", id=agent, key=key, ts=slot, lease=agent, token=token, data=data)


def placed(agent: str, n: int, token: int) -> Event:
    """The n-th draft of an agent: a cheap way to make many distinct events."""
    slot = format_utc(datetime(2026, 10, 30, tzinfo=UTC) + timedelta(minutes=n)).replace(":00Z", "Z")
    key = f"{agent}@v1@{slot}@state:reports/r{n}.md"
    data = DraftPlaced(turn=turn_id(n), key=key, asset=f"state:reports/r{n}.md", hash=sha(str(n)))
    ts = format_utc(datetime(2026, 10, 30, tzinfo=UTC))
    return Event.make("draft.placed", id=agent, key=key, ts=ts, lease=agent, token=token, data=data)


def git(*args: str, cwd: Path | None = None) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout


def new_clone(path: Path) -> Path:
    """A member's repository: hz writes objects here and talks to the remote by URL."""
    git("init", "-q", str(path))
    return path
