"""Where hz keeps things and the user's settings, read from the environment passed in.

Paths: `$HZ_HOME` (default: the platform's user data dir for "heinzel") holds sessions, the index and
the source cache; `$HZ_CONFIG_HOME` (default: the platform's user config dir for "heinzel") holds
`config.toml` and the user layer of contracts (`workflows/`).
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from hz.errors import ConfigError


def hz_home(environ: Mapping[str, str] = os.environ) -> Path:
    if value := environ.get("HZ_HOME"):
        return Path(value)
    import platformdirs

    return Path(platformdirs.user_data_dir("heinzel"))


def config_home(environ: Mapping[str, str] = os.environ) -> Path:
    if value := environ.get("HZ_CONFIG_HOME"):
        return Path(value)
    import platformdirs

    return Path(platformdirs.user_config_dir("heinzel"))


@dataclass(frozen=True)
class HeinzelSettings:
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


@dataclass(frozen=True)
class UserConfig:
    handle: str | None
    timezone: str | None
    heinzel: HeinzelSettings
    raw: Mapping[str, Any]


def load_user_config(environ: Mapping[str, str] = os.environ) -> UserConfig:
    """Read `config.toml` from the config home; a missing file means all defaults."""
    path = config_home(environ) / "config.toml"
    raw: dict[str, Any] = {}
    if path.exists():
        try:
            raw = tomllib.loads(path.read_text(encoding="utf-8"))
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"{path}: {exc}", hint="fix the TOML syntax") from exc
    handle = environ.get("HZ_HANDLE") or raw.get("user", {}).get("handle")
    timezone = raw.get("hz", {}).get("timezone")
    return UserConfig(handle, timezone, _heinzel_settings(path, raw.get("heinzel", {})), raw)


def _heinzel_settings(path: Path, table: Mapping[str, Any]) -> HeinzelSettings:
    known = {f.name: f.type for f in fields(HeinzelSettings)}
    values: dict[str, Any] = {}
    for key, value in table.items():
        if key not in known:
            raise ConfigError(f"{path}: unknown key heinzel.{key}", hint=f"known keys: {', '.join(known)}")
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ConfigError(f"{path}: heinzel.{key} must be a number, got {value!r}")
        values[key] = value
    return HeinzelSettings(**values)
