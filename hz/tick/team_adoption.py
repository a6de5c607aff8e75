"""Each tick adopts the team contracts on the remote's main, as the tick's fetch brought it: new ones, versions, text.

Review on main is a team contract's approval (DESIGN.md, "Team operation"): version n of a team
contract is the n-th commit on main that moved its contract fingerprint, and every member's tick and
every Actions run (a fresh clone and an empty `$HZ_HOME`) adopt it with no `hz approve`
(`hz.heinzel.adopt.adopt_team_from_main`). Only where the repository keeps team state (`[state]` in
`hz.toml`): without it a team contract is its owner's alone, adopted by hand (`hz workflow migrate`).
Without a fetched main (no remote reached) the working tree's new team contracts are adopted at v1.

An idle tick must stay cheap, so contracts are loaded only when something changed since this home last
looked: the names, sizes and modification times of `hz.toml` and `workflows/*`, and the commit of the
fetched main, make a stamp, kept for each repository as one line of `$HZ_HOME/team-contracts.seen`.
An unchanged repository costs a listing of one folder, a few stats and the read of that small file;
nothing heavy imported. When main moved, its contracts are compiled, and its history read only for a
contract that is new here or changed (`hz.heinzel.main_versions`).
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any

SEEN = "team-contracts.seen"
ADOPTING = ".adopting"  # <home>/heinzel/.adopting: the flock one adoption at a time holds
ADOPT_WAIT_S = 60.0  # an adoption of thousands of contracts on a slow disk takes seconds, not a minute


def stamp(root: Path) -> str:
    """What `hz.toml` and `workflows/` hold, as names, sizes and times ("" when neither exists)."""
    paths = [root / "hz.toml"]
    try:
        with os.scandir(root / "workflows") as entries:
            paths.extend(Path(entry.path) for entry in entries)
    except OSError:
        pass
    parts = []
    for path in sorted(paths):
        try:
            found = os.stat(path)
        except OSError:
            continue
        parts.append(f"{path.name}:{found.st_size}:{found.st_mtime_ns}")
    return ";".join(parts)


def adopt_new_team_contracts(
    store: Any, root: Path, environ: Mapping[str, str], now: datetime, main: str | None = None
) -> list[str]:
    """Adopt what changed since this home last looked; the errors met (a tick reports them, and looks again).

    `main` is the commit of the remote's main the tick's fetch brought (hz.review.sync.TeamView.main);
    without one (no fetch, or it failed) only the working tree's new team contracts are adopted."""
    current = stamp(root)
    if not current:
        return []
    if main is not None:
        current += f";main:{main}"
    seen = Path(store.root).parent / SEEN
    line = f"{root}\t{current}"
    if line in _lines(seen):
        return []
    with _adopting(Path(store.root)) as alone:
        if not alone:
            return ["another hz process is adopting this home's team contracts; looked at again next tick"]
        lines = _lines(seen)  # read again: the process waited for may have adopted this very main
        if line in lines:
            return []
        errors = _adopt(store, root, environ, now, main)
        if not errors:  # remembered only once adopted: a failure is tried again next tick
            kept = [kept for kept in lines if kept.split("\t", 1)[0] != str(root)]
            _write(seen, [*kept, line])
    return errors


@contextmanager
def _adopting(home: Path) -> Iterator[bool]:
    """One adoption of a home at a time (an flock on `<home>/.adopting`, waited for `ADOPT_WAIT_S`).

    Two ticks of one new home both found no agent in the index and each made one of every contract: the
    first's agents are in the index only once its derivation ends (hz.session.derived). The second now
    waits for the first and then finds its agents; False when the wait ran out (nothing adopted)."""
    from hz.errors import LockTimeout
    from hz.fsio import private_dir
    from hz.session.lock import lock

    try:
        held = lock(private_dir(home) / ADOPTING, ADOPT_WAIT_S)
    except LockTimeout:
        yield False
        return
    try:
        yield True
    finally:
        os.close(held)


def _adopt(store: Any, root: Path, environ: Mapping[str, str], now: datetime, main: str | None) -> list[str]:
    from hz.config import load_user_config
    from hz.errors import HzError
    from hz.heinzel.adopt import adopt_team, adopt_team_from_main
    from hz.tick.team import configured

    try:
        if not configured(root):
            return []
        config = load_user_config(environ)
        handle, tz = config.handle, config.timezone or "UTC"
        if main is not None:
            adopt_team_from_main(store, root, main, now=now, handle=handle, default_tz=tz)
        else:
            adopt_team(store, root, now=now, handle=handle, environ=environ, default_tz=tz)
    except HzError as exc:  # a name taken, a contract that does not compile: reported, tried again
        return [exc.message]
    return []


def _lines(path: Path) -> list[str]:
    try:
        return path.read_text(encoding="utf-8", errors="surrogateescape").splitlines()
    except (OSError, UnicodeDecodeError):
        return []


def _write(path: Path, lines: list[str]) -> None:
    """Replace the file in one step (0600), so a tick reading it at the same time sees the old or the new
    list. A file name that is no UTF-8 (Latin-1 on some file systems) comes through `os` as surrogates
    and is written back as the bytes it was."""
    from hz.fsio import atomic_write

    atomic_write(path, "".join(f"{line}\n" for line in lines).encode("utf-8", errors="surrogateescape"))
