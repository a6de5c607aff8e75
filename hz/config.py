"""Where hz keeps things and the user's settings, read from the environment passed in.

Paths: `$HZ_HOME` (default: the platform's user data dir for "heinzel") holds sessions, the index and
the source cache; `$HZ_CONFIG_HOME` (default: the platform's user config dir for "heinzel") holds
`config.toml` and the user layer of contracts (`workflows/`).
"""

# No `from __future__ import annotations` here: NamedTuple would compile each string annotation at
# import time (about 2 ms of every idle tick); these annotations are cheap to evaluate as they are.

import os
import re
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any, NamedTuple

from hz.errors import ConfigError

APP = "heinzel"


def hz_home(environ: Mapping[str, str] = os.environ) -> Path:
    if value := environ.get("HZ_HOME"):
        return Path(value)
    if xdg := _xdg_dir(environ, "XDG_DATA_HOME", ".local/share"):
        return xdg
    import platformdirs

    return Path(platformdirs.user_data_dir(APP))


class UnsafeHome(ConfigError):
    """`$HZ_HOME` is a folder other users can change, or not a folder at all."""


def private_home(environ: Mapping[str, str] = os.environ) -> Path:
    """`hz_home`, made 0700 if hz is the one creating it; refused when others could write to it.

    Whoever can write there can edit sessions, plant links or swap the index, so a home writable by
    group or others, or owned by someone else, is refused rather than used. A home that exists and is
    merely readable by others is used as it is: hz's files in it are 0600 and its folders 0700, and
    hz does not change the mode of a folder the user chose (it may be their own home directory).
    """
    home = hz_home(environ)
    _check_parents(home, os.getuid())
    try:
        found = os.lstat(home)
    except OSError:  # missing, or unreachable (a parent is a file, no permission): private_dir says which
        from hz.fsio import private_dir

        return private_dir(home)
    _check_home(home, found)
    return home


def _check_parents(home: Path, uid: int) -> None:
    """The folders above the home, as written and where its links lead, must be safe from other users.

    Whoever can write a folder can rename what is in it and put their own in its place, so a private
    home inside a folder others can write is not private. A shared folder with the sticky bit (/tmp) is
    fine: others can add names there but not move the user's. A folder owned by another user is refused
    too, except for root: a CI container runs as root in a home of the runner's user (/github/home).
    """
    import stat

    written = Path(os.path.abspath(home)).parents
    for folder in dict.fromkeys([*written, *Path(os.path.realpath(home)).parents]):
        try:
            found = os.stat(folder)
        except OSError:  # missing (hz makes it, 0700) or not reachable (the home's own checks say why)
            continue
        if _others_can_write(found) and not found.st_mode & stat.S_ISVTX:
            mode = stat.S_IMODE(found.st_mode)
            raise UnsafeHome(
                f"hz's data folder {home} is in {folder}, which other users can write (mode {mode:04o}):"
                " they could replace it",
                hint=f"chmod go-w {folder}, or point HZ_HOME at a folder of your own",
            )
        if uid != 0 and found.st_uid not in (0, uid):
            raise UnsafeHome(
                f"hz's data folder {home} is in {folder}, which belongs to another user (uid {found.st_uid}):"
                " they could replace it",
                hint="point HZ_HOME at a folder of your own",
            )


def _others_can_write(found: os.stat_result) -> bool:
    """Writable by everyone, or by a group that is not the user's own: with a umask of 002, folders such
    as ~/.local/share are group-writable by the user's private group, which holds only them."""
    return bool(found.st_mode & 0o002 or (found.st_mode & 0o020 and found.st_gid != os.getgid()))


def _check_home(home: Path, found: os.stat_result) -> None:
    import stat

    if found.st_uid != os.getuid():
        raise UnsafeHome(
            f"hz's data folder {home} belongs to another user (uid {found.st_uid}), not to you (uid {os.getuid()})",
            hint="point HZ_HOME at a folder of your own",
        )
    if stat.S_ISLNK(found.st_mode):  # a link of yours: what it points at must pass the same checks
        try:
            target = os.stat(home)
        except OSError as exc:  # dangling, or a loop of links
            raise UnsafeHome(f"hz's data folder {home} is a link hz cannot follow ({exc.strerror})",
                             hint="point the link at a folder of yours, or set HZ_HOME") from None  # fmt: skip
        _check_home(home, target)
        return
    if not stat.S_ISDIR(found.st_mode):
        raise UnsafeHome(f"hz's data folder {home} is not a folder", hint="move that file away, or set HZ_HOME")
    if found.st_mode & 0o022:
        raise UnsafeHome(
            f"hz's data folder {home} can be written by other users (mode {stat.S_IMODE(found.st_mode):04o})",
            hint=f"chmod 700 {home}",
        )


def config_home(environ: Mapping[str, str] = os.environ) -> Path:
    if value := environ.get("HZ_CONFIG_HOME"):
        return Path(value)
    if xdg := _xdg_dir(environ, "XDG_CONFIG_HOME", ".config"):
        return xdg
    import platformdirs

    return Path(platformdirs.user_config_dir(APP))


def _xdg_dir(environ: Mapping[str, str], variable: str, under_home: str) -> Path | None:
    """On Linux, the folder platformdirs names, worked out without importing it (about 10 ms of every
    idle tick): `$<variable>/heinzel` for an absolute path, `$HOME/<under_home>/heinzel` when the variable
    is unset or blank. None leaves every other case to platformdirs (other systems, Android, a relative
    path, no absolute HOME), where its versions differ."""
    if sys.platform != "linux" or "ANDROID_DATA" in environ:
        return None
    base = environ.get(variable, "")
    if os.path.isabs(base):
        return Path(base, APP)
    home = environ.get("HOME", "")
    if base.strip() or not os.path.isabs(home):
        return None
    return Path(home, under_home, APP)


# Immutable value objects as NamedTuples rather than frozen dataclasses: every idle tick imports this
# module, and `dataclasses` pulls in `inspect` (several ms of a fresh process).
class HeinzelSettings(NamedTuple):
    """The `[heinzel]` table of the user's config.toml, with the defaults the specification names."""

    retention_days: int = 90
    max_usd: float = 1.0
    max_usd_per_day: float = 5.0
    max_wakes_per_tick: int = 10
    max_resumes: int = 3
    max_wait_days: int = 7
    summary_after_turns: int = 20
    summary_after_chars: int = 24_000
    summary_keep_turns: int = 5
    lock_timeout_s: float = 10.0


class UserConfig(NamedTuple):
    handle: str | None
    timezone: str | None
    heinzel: HeinzelSettings
    raw: Mapping[str, Any]


def load_user_config(environ: Mapping[str, str] = os.environ) -> UserConfig:
    """Read `config.toml` from the config home; a missing file means all defaults.

    Every table and key is checked for its type and range here, where the values enter: a `heinzel = 5`
    or a `retention_days` of 20 digits is a ConfigError naming the key, never a crash deep in a command.
    """
    path = config_home(environ) / "config.toml"
    raw = _read_toml(path)
    user = _table(path, raw, "user")
    configured = _handle(_text(path, user, "user.handle"), f"[user] handle in {path}")
    handle = _handle(environ.get("HZ_HANDLE"), "HZ_HANDLE") or configured
    timezone = _text(path, _table(path, raw, "hz"), "hz.timezone")
    return UserConfig(handle, timezone, _heinzel_settings(path, _table(path, raw, "heinzel")), raw)


def _read_toml(path: Path) -> dict[str, Any]:
    if not path.exists():
        return {}
    import tomllib  # here: an idle tick only needs the paths above, and most machines have no file

    from hz.textfile import read_text_file  # a FIFO, a device or bytes that are not UTF-8 are named, not read

    text = read_text_file(path, hint="config.toml is a small UTF-8 TOML file")
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: {exc}", hint="fix the TOML syntax") from exc
    except ValueError:  # what tomllib lets through: Python's limit on the digits of a number
        raise ConfigError(f"{path}: a number has more than 4,300 digits", hint="fix the TOML syntax") from None
    except RecursionError:  # `a = [[[[…]]]]`: tomllib reads nesting by recursion
        raise ConfigError(f"{path}: arrays or tables nest too deeply to read", hint="fix the TOML syntax") from None


def _table(path: Path, raw: Mapping[str, Any], name: str) -> Mapping[str, Any]:
    table = raw.get(name, {})
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: {name} must be a table, got {_shown(table)}", hint=f"write it as [{name}]")
    return table


def _text(path: Path, table: Mapping[str, Any], key: str) -> str | None:
    value = table.get(key.rpartition(".")[2])
    if value is not None and not isinstance(value, str):
        raise ConfigError(
            f"{path}: {key} must be text in quotes, got {_shown(value)}", hint=f"write it as {_EXAMPLES[key]}"
        )
    return value


_EXAMPLES = {"user.handle": 'handle = "@you" under [user]', "hz.timezone": 'timezone = "Europe/Berlin" under [hz]'}


def _handle(value: str | None, source: str) -> str | None:
    """A GitHub login with its `@` (added when missing), the way spines and leases record members."""
    if not value:
        return None
    if not _HANDLE.match(value):
        from hz.gitstate.identity import NoIdentity

        raise NoIdentity(
            f"not a handle: {_shown(value)} (from {source})",
            hint='a handle looks like @priya (letters, digits, dashes); set [user] handle = "@you" in config.toml, '
            "or HZ_HANDLE",
        )
    return value if value.startswith("@") else "@" + value


_HANDLE = re.compile(r"@?[A-Za-z0-9][A-Za-z0-9-]{0,38}\Z")


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:60] + "…"


# The range each [heinzel] key takes. Whole numbers stay whole (days, counts); the bounds keep every
# value inside what timedelta, SQLite and a budget comparison can hold (nan would pass every cap).
_RANGES: dict[str, tuple[type, float, float]] = {
    "retention_days": (int, 0, 36_500),  # 0 keeps bodies forever
    "max_usd": (float, 0, 1_000_000),
    "max_usd_per_day": (float, 0, 1_000_000),
    "max_wakes_per_tick": (int, 1, 100_000),
    "max_resumes": (int, 0, 1_000),
    "max_wait_days": (int, 0, 3_650),
    "summary_after_turns": (int, 1, 1_000_000),
    "summary_after_chars": (int, 1, 1_000_000_000),
    "summary_keep_turns": (int, 0, 1_000_000),
    "lock_timeout_s": (float, 0, 86_400),
}


def _heinzel_settings(path: Path, table: Mapping[str, Any]) -> HeinzelSettings:
    known = HeinzelSettings._fields
    values: dict[str, Any] = {}
    for key, value in table.items():
        if key not in known:
            raise ConfigError(f"{path}: unknown key heinzel.{key}", hint=f"known keys: {', '.join(known)}")
        values[key] = _number(path, key, value, *_RANGES[key])
    return HeinzelSettings(**values)


def _number(path: Path, key: str, value: Any, kind: type, low: float, high: float) -> int | float:
    said = f"{path}: heinzel.{key} must be"
    hint = f"leave it out for the default, {HeinzelSettings._field_defaults[key]}"
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ConfigError(f"{said} a number, got {_shown(value)}", hint=hint)
    if kind is int and not isinstance(value, int):
        raise ConfigError(f"{said} a whole number, got {_shown(value)}", hint=hint)
    if not low <= value <= high:  # also refuses nan and inf
        raise ConfigError(f"{said} between {low} and {high}, got {_shown(value)}", hint=hint)
    return value
