"""One tick's worth of sources: every watched source fetched at most once, however many contracts read it.

Given all watches of all contracts and `now`, group them by source identity, resolve each group once
(from the cache when its recheck is not due) and hand every watcher its input's facets and
fingerprints. A source that fails is reported once for its group; each watcher then sees the failure
as an error (`required: true`) or as a stated gap (`required: false`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from hz.sources.base import SourceError
from hz.sources.cache import SourceCache
from hz.sources.inputs import InputValue, assemble
from hz.sources.resolve import Resolved, resolve
from hz.sources.watch import Group, Watch, group


@dataclass
class TickFetch:
    groups: list[Group]
    results: dict[str, Resolved | SourceError] = field(default_factory=dict)  # spec key -> outcome

    @property
    def fetches(self) -> int:
        """Sources actually read this tick (not answered from the cache)."""
        return sum(1 for r in self.results.values() if isinstance(r, SourceError) or r.fetched)

    def inputs(self) -> dict[tuple[str, str], InputValue]:
        """(contract, input) -> the input's facets and fingerprints, gaps and errors included."""
        by_input: dict[tuple[str, str], list[Watch]] = {}
        for g in self.groups:
            for watch in g.watches:
                by_input.setdefault((watch.contract, watch.input), []).append(watch)
        return {
            where: assemble([(w.spec, self.results[w.spec.key]) for w in watches], required=watches[0].required)
            for where, watches in sorted(by_input.items())
        }


def fetch_all(
    watches: Iterable[Watch],
    *,
    now: datetime,
    environ: Mapping[str, str],
    root: Path | None,
    cache: SourceCache | None = None,
    slot: datetime | None = None,
    force: bool = False,
) -> TickFetch:
    """Resolve every distinct source once at `slot` (default: `now`)."""
    store = cache or SourceCache.from_environ(environ)
    report = TickFetch(group(watches))
    for g in report.groups:
        try:
            report.results[g.spec.key] = resolve(
                g.spec, store, slot=slot or now, now=now, environ=environ, root=root, recheck=g.recheck, force=force
            )
        except SourceError as exc:
            report.results[g.spec.key] = exc
    return report
