"""A per-slot page's watch: the input over the window that page reports on, read again now.

A contract whose output is one page per slot (`reports/{slot:%G-W%V}.md`) drafts each page from the
window before its slot. Asked "did my input move?", such a page means that window: a commit made after
the slot belongs to the next page, which the schedule drafts. The answer is a fresh read of the local
history for the last turn's slot, never the staged snapshot (it would always say "unchanged") and never
written to the source cache (the tick's own gather keeps it for now's window). Only this repository's
`git:` history is read so, being local and cheap; other sources are compared as of now (hz.tick.agentwork).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from hz.turn.plan import Plan


def fingerprint_at(plan: Plan, name: str, slot: datetime, *, now: datetime, environ: Mapping[str, str]) -> str | None:
    """Input `name`'s watched fingerprint over the window of `slot`, read now; None when it is not read
    so (a source other than this repository's history) or the read fails."""
    from hz.sources.base import FetchContext, SourceError, adapter_for, select
    from hz.sources.canonical import facet_fingerprints
    from hz.sources.gather import watched_fingerprint
    from hz.sources.inputs import assemble
    from hz.sources.resolve import Resolved
    from hz.sources.window import Window
    from hz.turn.self_wake import _local_git, _specs

    specs = _specs(plan, name)
    if not specs or not all(_local_git(spec) for spec in specs):
        return None
    parts: list[tuple[Any, Resolved | SourceError]] = []
    for spec in specs:
        adapter = adapter_for(spec.scheme)
        context = FetchContext(slot=slot, now=now, environ=environ, root=plan.root)
        try:
            fetched = adapter.fetch(spec, context)
        except SourceError:
            return None
        facets = select(adapter.build(spec, fetched.records, Window.of(slot, spec.window)), spec)
        parts.append((spec, Resolved(spec, facets, facet_fingerprints(facets), now, "fetched")))
    required = bool(getattr(plan.contract.frontmatter.hz.inputs[name], "required", True))
    return watched_fingerprint(plan.contract, name, assemble(parts, required=required))
