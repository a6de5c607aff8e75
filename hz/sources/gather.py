"""The gather step's entry point: a contract's inputs at a slot, from the source cache.

`gather_for_turn` is what a turn calls (`hz.turn.gather`). Each source is resolved through the cache
(`hz.sources.resolve`): a slot already staged is read back without fetching, so a turn resumed after a
crash sees exactly the inputs it fingerprinted. An input's fingerprint is the hash of its facet
fingerprints; when `hz.on` names facets of that input (`on: [issues.blocked]`), only those facets count,
because they are what the contract wakes on.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from pathlib import Path
from typing import Any

from hz.sources.base import SourceError
from hz.sources.cache import SourceCache
from hz.sources.canonical import combined
from hz.sources.inputs import InputValue, assemble
from hz.sources.resolve import Resolved, resolve
from hz.sources.watch import watches_of


def gather_inputs(
    contract: Any,
    *,
    slot: datetime,
    root: Path | None,
    environ: Mapping[str, str],
    now: datetime,
    cache: SourceCache | None = None,
    fresh: bool = False,
) -> dict[str, InputValue]:
    """Input name -> its value; a required input whose source fails raises that SourceError."""
    store = cache or SourceCache.from_environ(environ)
    parts: dict[str, list[tuple[Any, Resolved | SourceError]]] = {}
    required: dict[str, bool] = {}
    for watch in watches_of(contract):
        try:
            outcome: Resolved | SourceError = resolve(
                watch.spec, store, slot=slot, now=now, environ=environ, root=root, recheck=watch.recheck, live=fresh
            )
        except SourceError as exc:
            if watch.required:
                message = f"input {watch.input}: {exc.message}"
                raise SourceError(exc.code, message, hint=exc.hint, waiting_for=exc.waiting_for) from None
            outcome = exc
        parts.setdefault(watch.input, []).append((watch.spec, outcome))
        required[watch.input] = watch.required
    return {name: assemble(found, required=required[name]) for name, found in parts.items()}


def watched_fingerprint(contract: Any, name: str, value: InputValue) -> str:
    """The fingerprint a wake compares: the facets `hz.on` names for this input, else all of them."""
    on = getattr(contract.frontmatter.hz, "on", None) or ()
    facets = [str(w).partition(".")[2] for w in on if str(w).partition(".")[0] == name and "." in str(w)]
    chosen = {f: fp for f, fp in value.fingerprints.items() if f in facets} if facets else value.fingerprints
    return combined(chosen)


def gather_for_turn(
    contract: Any, *, slot: datetime, root: Path | None, environ: Mapping[str, str], now: datetime, fresh: bool = False
) -> tuple[dict[str, dict[str, Any]], dict[str, str]]:
    """(input -> facet -> canonical value, input -> fingerprint) for one turn at `slot` (`fresh`: see resolve)."""
    inputs = gather_inputs(contract, slot=slot, root=root, environ=environ, now=now, fresh=fresh)
    values = {name: dict(v.values) for name, v in sorted(inputs.items())}
    fingerprints = {name: watched_fingerprint(contract, name, v) for name, v in sorted(inputs.items())}
    return values, fingerprints
