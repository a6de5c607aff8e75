"""Is today's discovery pass for this repository still to run? Answered with one stat and one small read.

The idle tick asks this (`hz.tick.daemon.pending`), so it imports nothing but `os`: a repository without a
playbook costs one failed stat. The last day a pass ran is kept per repository in one private file,
`$HZ_HOME/heinzel/discovery`, a line `<UTC day>\\t<repository root>` each, written atomically (0600).
"""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path

DAY_FILE = "discovery"
PLAYBOOK = os.path.join("workflows", "_playbook.yaml")


def utc_day(now: datetime) -> str:
    return now.astimezone(UTC).strftime("%Y-%m-%d")


def discovery_due(root: Path | None, store_root: Path | None, now: datetime) -> bool:
    """True when the repository has a playbook and no pass ran for it on this UTC day."""
    if root is None or store_root is None or "\n" in str(root) or "\t" in str(root):
        return False
    try:
        os.stat(os.path.join(root, PLAYBOOK))
    except OSError:
        return False
    return _days(store_root).get(str(root)) != utc_day(now)


def mark_done(root: Path, store_root: Path, now: datetime) -> None:
    """Remember that today's pass ran for this repository (before it wakes anyone: see hz.tick.discover)."""
    from hz.fsio import atomic_write, private_dir

    days = _days(store_root)
    days[str(root)] = utc_day(now)
    private_dir(store_root)
    atomic_write(store_root / DAY_FILE, "".join(f"{day}\t{where}\n" for where, day in sorted(days.items())))


def _days(store_root: Path) -> dict[str, str]:
    try:
        with open(os.path.join(store_root, DAY_FILE), encoding="utf-8") as handle:
            lines = handle.read().splitlines()
    except (OSError, UnicodeDecodeError):
        return {}
    days: dict[str, str] = {}
    for line in lines:
        day, _, where = line.partition("\t")
        if where:
            days[where] = day
    return days
