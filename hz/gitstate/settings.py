"""The team's settings for state and leases: the `[state]` table of `hz.toml` at the repository root.

    [state]
    remote = "origin"        # where hz/state and the leases live (a remote name, a path or a URL)
    tick_interval_s = 300    # how often members' daemons tick; the unit of the grace period
    grace_intervals = 2      # a delegate or Actions run may take a slot this many ticks after it was due
    lease_ttl_s = 900        # how long an acquisition or renewal holds
    clock_skew_s = 30        # safety margin for clocks that disagree
    push_attempts = 5        # replays of a push refused because hz/state moved, before waiting a tick

Every key is optional; a missing file means these defaults.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, fields
from datetime import timedelta
from pathlib import Path
from typing import Any

from hz.errors import ConfigError


@dataclass(frozen=True)
class StateSettings:
    remote: str = "origin"
    tick_interval_s: int = 300
    grace_intervals: int = 2
    lease_ttl_s: int = 900
    clock_skew_s: int = 30
    push_attempts: int = 5

    @property
    def grace(self) -> timedelta:
        return timedelta(seconds=self.tick_interval_s * self.grace_intervals)

    @property
    def skew(self) -> timedelta:
        return timedelta(seconds=self.clock_skew_s)

    @property
    def ttl(self) -> timedelta:
        return timedelta(seconds=self.lease_ttl_s)


def load_state_settings(root: Path) -> StateSettings:
    path = root / "hz.toml"
    if not path.exists():
        return StateSettings()
    try:
        table = tomllib.loads(path.read_text(encoding="utf-8")).get("state", {})
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: {exc}", hint="fix the TOML syntax") from exc
    return _settings(path, table)


def _settings(path: Path, table: dict[str, Any]) -> StateSettings:
    known = {f.name: f.type for f in fields(StateSettings)}
    values: dict[str, Any] = {}
    for key, value in table.items():
        if key not in known:
            raise ConfigError(f"{path}: unknown key state.{key}", hint=f"known keys: {', '.join(known)}")
        wants_str = key == "remote"
        ok = isinstance(value, str) if wants_str else isinstance(value, int) and not isinstance(value, bool)
        if not ok or (not wants_str and value < 0):
            kind = "a string" if wants_str else "a whole number of at least 0"
            raise ConfigError(f"{path}: state.{key} must be {kind}, got {value!r}")
        values[key] = value
    return StateSettings(**values)
