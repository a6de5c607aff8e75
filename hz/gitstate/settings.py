"""The team's settings for state and leases: the `[state]` table of `hz.toml` at the repository root.

    [state]
    remote = "origin"        # where hz/state and the leases live (a remote name, a path or a URL)
    tick_interval_s = 300    # how often members' daemons tick; the unit of the grace period
    grace_intervals = 2      # a delegate or Actions run may take a slot this many ticks after it was due
    lease_ttl_s = 900        # how long an acquisition or renewal holds
    clock_skew_s = 30        # safety margin for clocks that disagree
    push_attempts = 5        # replays of a push refused because hz/state moved, before waiting a tick

Every key is optional; a missing file means these defaults. The file is committed, so anyone on the
team can change it by pull request: a file that does not parse, a value of the wrong type or out of
bounds, and a remote of a shape git could read as an option or a command are errors with the file's
name (and line and column, for a syntax error), never a silent fallback.
"""

from __future__ import annotations

import os
import stat
import tomllib
from dataclasses import dataclass, fields
from datetime import timedelta
from pathlib import Path
from typing import Any

from hz.errors import ConfigError
from hz.gitstate.remote_spec import check_committed_remote
from hz.repo_paths import Refusal, walk

HZ_TOML = "hz.toml"
MAX_BYTES = 1 << 20  # a settings file; anything larger is not one
_FIX_HINT = "fix hz.toml at the repository root (TOML, https://toml.io); team contracts wait until it parses"
_WEEK = 7 * 24 * 3600
# upper bounds that keep every derived time and loop finite (no overflow, no endless retries)
_MOST = {"tick_interval_s": _WEEK, "grace_intervals": 1000, "lease_ttl_s": _WEEK, "clock_skew_s": _WEEK,
         "push_attempts": 1000}  # fmt: skip


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
    """The `[state]` settings of `root/hz.toml`; defaults without the file, ConfigError for a bad one."""
    return state_settings(read_hz_toml(root), root / HZ_TOML)


def state_settings(document: dict[str, Any] | None, path: Path) -> StateSettings:
    """The `[state]` settings of a parsed hz.toml (`path` names it in messages; its parent is the root a
    `remote` given as a path is checked against)."""
    if document is None:
        return StateSettings()
    table = document.get("state", {})
    if not isinstance(table, dict):
        raise ConfigError(
            f"{path}: state must be a table, got {_kind(table)} {_short(table)}",
            hint="write the settings under a [state] header, one key = value per line",
        )
    return _settings(path, table)


def read_hz_toml(root: Path) -> dict[str, Any] | None:
    """`root/hz.toml` parsed, None when there is none; a file hz cannot read or parse is a ConfigError.

    The one reader of the file, for every command: a committed file with a typo must stop the commands
    that need it with its line and column, never turn team coordination off without a word.
    """
    path = root / HZ_TOML
    if not os.path.lexists(path):
        return None
    real = walk(root, HZ_TOML, follow=True)  # a committed link may not make it .git/config or a file elsewhere
    if isinstance(real, Refusal):
        raise ConfigError(f"{path}: {real.reason}", hint=real.hint)
    text = _read_bounded(real, path)
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}", hint=_FIX_HINT) from exc
    except ValueError:  # what tomllib lets through: Python's limit on the digits of a number
        raise ConfigError(f"{path}: not valid TOML: a number has more than 4,300 digits", hint=_FIX_HINT) from None
    except RecursionError:  # `a = [[[[…]]]]`: tomllib parses nesting by recursion
        raise ConfigError(f"{path}: arrays or tables nest too deeply to read", hint=_FIX_HINT) from None
    no_lookalike(path, document)
    return document


def no_lookalike(path: Path, document: dict[str, Any]) -> None:
    """`[State]` or `["state "]` is another table to TOML, so the team's `[state]` would be missing and
    team contracts would run unleased on every member's machine; a table that differs only so is an error."""
    for key in document:
        if key != "state" and key.strip().casefold() == "state":
            raise ConfigError(f"{path}: the table {key!r} is not [state] (TOML keys are exact)", hint=_FIX_HINT)


def _read_bounded(real: Path, path: Path) -> str:
    """The text of a regular file of at most MAX_BYTES (a FIFO or /dev/zero would hang a plain read);
    `real` is where it is read, `path` how messages name it."""
    try:
        fd = os.open(real, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW)
    except OSError as exc:
        raise ConfigError(f"{path}: cannot be read: {exc.strerror}", hint=_FIX_HINT) from exc
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise ConfigError(f"{path}: not a regular file", hint=_FIX_HINT)
        data = os.read(fd, MAX_BYTES + 1)  # one read: a regular file gives what it has, up to the size
    finally:
        os.close(fd)
    if len(data) > MAX_BYTES:
        raise ConfigError(f"{path}: larger than {MAX_BYTES} bytes", hint=_FIX_HINT)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not UTF-8 text (byte {exc.start})", hint=_FIX_HINT) from exc


def _settings(path: Path, table: dict[str, Any]) -> StateSettings:
    known = [f.name for f in fields(StateSettings)]
    values: dict[str, Any] = {}
    for key, value in table.items():
        if key not in known:
            raise ConfigError(f"{path}: unknown key state.{key}", hint=f"known keys: {', '.join(known)}")
        values[key] = _remote(path, value) if key == "remote" else _number(path, key, value)
    return StateSettings(**values)


def _remote(path: Path, value: Any) -> str:
    if not isinstance(value, str):
        raise ConfigError(
            f"{path}: state.remote must be a string, got {_kind(value)} {_short(value)}",
            hint='for example remote = "origin"',
        )
    return check_committed_remote(path.parent, value, f"{path} [state] remote")


def _number(path: Path, key: str, value: Any) -> int:
    most = _MOST[key]
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= most:
        raise ConfigError(
            f"{path}: state.{key} must be a whole number from 0 to {most}, got {_kind(value)} {_short(value)}",
            hint=f"for example {key} = {getattr(StateSettings(), key)}",
        )
    return value


def _kind(value: Any) -> str:
    """How TOML calls the type of a parsed value, for messages."""
    kinds = {bool: "a boolean", int: "an integer", float: "a float", str: "a string", list: "an array",
             dict: "a table"}  # fmt: skip
    return next((name for cls, name in kinds.items() if isinstance(value, cls)), "a date or time")


def _short(value: Any) -> str:
    """A value for a message: its repr, cut at 60 characters (a committed file may hold anything)."""
    shown = repr(value)
    return shown if len(shown) <= 60 else shown[:57] + "..."
