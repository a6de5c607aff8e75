"""`hz source list`: every distinct source the repository's contracts watch, as the cache last saw it."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import click

from hz.commands.source_common import describe_spec, duration, repository_watches, spec_line, watchers
from hz.sources.cache import SourceCache
from hz.sources.watch import Group, group
from hz.sources.window import iso


def run_list(*, as_json: bool = False, environ: Mapping[str, str] = os.environ, cwd: Path | None = None) -> int:
    from hz.repo import find_root

    groups = group(repository_watches(find_root(cwd), environ, cwd))
    cache = SourceCache.from_environ(environ)
    rows = [_row(g, cache) for g in groups]
    if as_json:
        click.echo(json.dumps(rows, indent=2, ensure_ascii=False))
        return 0
    if not rows:
        click.echo("no contract of this repository reads a source")
        return 0
    for g, row in zip(groups, rows, strict=True):
        click.echo(_text(g, row))
    return 0


def _row(g: Group, cache: SourceCache) -> dict[str, Any]:
    entry = cache.read(g.spec.key)
    next_recheck: str | None = "next tick"
    if entry is not None and g.recheck is not None:
        next_recheck = iso(entry.as_of + g.recheck)
    return {
        **describe_spec(g.spec),
        "watchers": watchers(g),
        "recheck": duration(g.recheck) or "every tick",
        "as_of": iso(entry.as_of) if entry else None,
        "next_recheck": next_recheck,
        "fingerprints": dict(entry.fingerprints) if entry else {},
    }


def _text(g: Group, row: Mapping[str, Any]) -> str:
    lines = [spec_line(g.spec)]
    lines.append("  watched by: " + ", ".join(f"{w['contract']}.{w['input']}" for w in row["watchers"]))
    lines.append(f"  recheck: {row['recheck']}; next: {row['next_recheck']}")
    lines.append(f"  as of: {row['as_of'] or 'never fetched'}")
    for facet, fp in row["fingerprints"].items():
        lines.append(f"  {facet}: {fp}")
    return "\n".join(lines)
