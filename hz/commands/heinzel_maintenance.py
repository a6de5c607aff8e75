"""`hz heinzel prune`, `reindex` and `repair`: expiry of bodies and requests, the index, broken spines."""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import TextIO

from hz.config import load_user_config
from hz.heinzel.prune import prune
from hz.session.store import Store


def prune_command(out: TextIO, *, json_output: bool, environ: Mapping[str, str], now: datetime | None = None) -> int:
    """Delete turn bodies, inbox requests and cached sources older than `[heinzel] retention_days`.

    0 keeps everything. The source cache holds fetched content too, so it expires with the bodies.
    """
    from hz.sources.cache import prune_sources

    days = load_user_config(environ).heinzel.retention_days
    moment = now or datetime.now(UTC)
    compacted: list[str] = []
    with Store.from_environ(environ) as store:
        pruned = prune(store, now=moment, retention_days=days, compacted=compacted)
        deleted = [str(path.relative_to(store.root)) for path in pruned]
    sources = prune_sources(environ, moment)
    if json_output:
        found = {"retention_days": days, "deleted": deleted, "source_files": sources, "compacted": compacted}
        out.write(json.dumps(found, indent=2) + "\n")
    elif days <= 0:
        out.write("retention_days is 0: bodies are kept forever, nothing pruned\n")
    else:
        out.write(f"pruned {len(deleted)} file(s) and {sources} source cache file(s) older than {days} days\n")
    return 0


def reindex_command(out: TextIO, *, environ: Mapping[str, str]) -> int:
    with Store.from_environ(environ) as store:
        count = store.reindex()
    out.write(f"rebuilt the index from {count} spine(s)\n")
    return 0


def repair_command(out: TextIO, name: str, *, environ: Mapping[str, str], now: datetime | None = None) -> int:
    """Unfreeze NAME: the lines of its spine from the break on are set aside (`hz.session.repair`)."""
    from hz.heinzel.lifecycle import resolve
    from hz.session.repair import repair

    with Store.from_environ(environ) as store:
        row = resolve(store, name)
        done = repair(store, row["id"], now=now or datetime.now(UTC))
    if done is None:
        out.write(f"{row['name']}: its spine is whole; nothing to repair\n")
        return 0
    out.write(
        f"{row['name']}: kept seq 1-{done.kept_seq}, set {done.lines} line(s) from seq {done.kept_seq + 1} on aside"
        f" in {done.path}\n  it wakes again; what those lines recorded may run once more\n"
    )
    return 0
