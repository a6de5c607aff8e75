"""One source at one slot: from the staged snapshot, from cached records, or by fetching it.

The order is what makes a slot where nothing moved cheap and a crash harmless: a slot that was staged
is answered from its snapshot (never fetched twice); a source whose recheck is not due is answered from
its cached records; only a due source is read, conditionally when the source allows, and its canonical
result is written to the cache before anyone can be woken by it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from hz.sources.base import FetchContext, Fetched, SourceSpec, adapter_for, select
from hz.sources.cache import Entry, SourceCache
from hz.sources.canonical import facet_fingerprints
from hz.sources.window import Window, utc


@dataclass(frozen=True)
class Resolved:
    spec: SourceSpec
    facets: Mapping[str, Any]
    fingerprints: Mapping[str, str]
    as_of: datetime
    how: str  # "fetched" | "not-modified" | "cached" | "staged"
    requests: int = 0

    @property
    def fetched(self) -> bool:
        return self.how in {"fetched", "not-modified"}


def resolve(
    spec: SourceSpec,
    cache: SourceCache,
    *,
    slot: datetime,
    now: datetime,
    environ: Mapping[str, str],
    root: Path | None,
    recheck: timedelta | None = None,
    force: bool = False,
    live: bool = False,
) -> Resolved:
    """The canonical facets of `spec` at `slot`; SourceError when a needed read fails (cache untouched).

    `live`: what the source holds now (when its recheck is due), not what `slot` was staged with: the
    tick's look for moved inputs, so a file changed within the minute is seen at the next tick, not the
    next minute. What it finds is staged for `slot` in turn, so the turn it wakes sees the same."""
    from hz.contract.sourceshape import refuse_shape

    slot, now = utc(slot), utc(now)
    adapter = adapter_for(spec.scheme)
    refuse_shape(spec.uri)  # `feed://host/x` said "outside the repository", `git:https://…` "needs a repository"
    window = Window.of(slot, spec.window)
    entry = cache.read(spec.key)
    if entry is not None and not force:
        staged = None if live else cache.staged(entry, slot)
        if staged is not None:
            facets, fingerprints = staged
            return Resolved(spec, facets, fingerprints, entry.as_of, "staged")
        if not entry.due(now, recheck) and entry.covers_window(window):
            return _stage(cache, entry, spec, slot, window, "cached", 0)
    ctx = FetchContext(slot=slot, now=now, environ=environ, root=root, previous=entry.to_json() if entry else None)
    fetched = adapter.fetch(spec, ctx)
    how = "fetched"
    if fetched.not_modified and entry is not None:
        fetched = fetched.with_(records=entry.records, covers=_widen(entry.covers, fetched.covers))
        how = "not-modified"
    facets = select(adapter.build(spec, fetched.records, window), spec)
    fingerprints = facet_fingerprints(facets)
    fresh = _entry(spec, slot, now, fetched, fingerprints)
    if entry is not None:
        fresh.staged.update(entry.staged)  # what earlier slots saw stays readable
    cache.write(fresh)  # the canonical result is durable before anyone can be woken by it
    return _stage(cache, fresh, spec, slot, window, how, fetched.requests, facets, fingerprints)


def rebuilt(
    spec: SourceSpec, cache: SourceCache, *, slot: datetime, keep: Callable[[Mapping[str, Any]], bool]
) -> Resolved | None:
    """The facets `spec` has at `slot` from the records the cache holds, only those `keep` says yes to
    (records are lists of mappings under a name, as the `git:` adapter keeps commits and merges).

    Nothing is read from the source and nothing is written: the tick asks what an input's fingerprint
    would be without some records (its own draft's merge, hz.turn.self_wake). None when nothing is cached."""
    entry = cache.read(spec.key)
    if entry is None or not isinstance(entry.records, Mapping):
        return None
    records = {
        name: [r for r in value if not isinstance(r, Mapping) or keep(r)] if isinstance(value, list) else value
        for name, value in entry.records.items()
    }
    if isinstance(records.get("authors"), list):
        records["authors"] = _authors_kept(entry.records, records)
    adapter = adapter_for(spec.scheme)
    facets = select(adapter.build(spec, records, Window.of(utc(slot), spec.window)), spec)
    return Resolved(spec, facets, facet_fingerprints(facets), entry.as_of, "cached")


def _authors_kept(before: Mapping[str, Any], after: Mapping[str, Any]) -> list[Any]:
    """The `authors` list (plain names, as the `git:` walk keeps them) without the names only records that
    were left out had: a name also on a kept record, or on no record at all (a merge off the first-parent
    line), stays."""

    def names(records: Mapping[str, Any]) -> set[str]:
        return {
            str(r["author"])
            for value in records.values()
            if isinstance(value, list)
            for r in value
            if isinstance(r, Mapping) and "author" in r
        }

    gone = names(before) - names(after)
    return [name for name in after["authors"] if name not in gone]


def _stage(
    cache: SourceCache,
    entry: Entry,
    spec: SourceSpec,
    slot: datetime,
    window: Window,
    how: str,
    requests: int,
    facets: Mapping[str, Any] | None = None,
    fingerprints: Mapping[str, str] | None = None,
) -> Resolved:
    if facets is None:
        adapter = adapter_for(spec.scheme)
        facets = select(adapter.build(spec, entry.records, window), spec)
    if fingerprints is None:
        fingerprints = facet_fingerprints(facets)
    cache.stage(entry, slot, facets, fingerprints)
    return Resolved(spec, facets, fingerprints, entry.as_of, how, requests)


def _entry(spec: SourceSpec, slot: datetime, now: datetime, fetched: Fetched, fps: Mapping[str, str]) -> Entry:
    return Entry(
        key=spec.key,
        identity=spec.identity(),
        slot=slot,
        as_of=now,
        records=fetched.records,
        fingerprints=fps,
        covers=fetched.covers,
        validators=fetched.validators,
        cursor=fetched.cursor,
    )


def _widen(
    old: tuple[datetime | None, datetime | None], new: tuple[datetime | None, datetime | None]
) -> tuple[datetime | None, datetime | None]:
    """A 304 confirms the old records are still complete, from their old start on."""
    low = None if old[0] is None or new[0] is None else min(old[0], new[0])
    return (low, new[1])
