"""Who watches what: the inputs of loaded contracts as source specs, and their grouping by identity.

A contract input names one or more source URIs; each URI with the input's query, window, facets and
stage is one `SourceSpec`. Watchers of the same spec share one cache entry and one fetch per recheck,
polled at the shortest `recheck` any of them asks for.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from hz.sources.base import SourceSpec


@dataclass(frozen=True)
class Watch:
    contract: str  # qualified name
    input: str
    spec: SourceSpec
    recheck: timedelta | None  # None: every tick
    required: bool = True


@dataclass(frozen=True)
class Group:
    spec: SourceSpec
    watches: tuple[Watch, ...]

    @property
    def recheck(self) -> timedelta | None:
        """The shortest recheck among the watchers; one that wants every tick wins outright."""
        chosen: timedelta | None = None
        for watch in self.watches:
            if watch.recheck is None:
                return None
            chosen = watch.recheck if chosen is None else min(chosen, watch.recheck)
        return chosen


def specs_of(value: Any) -> tuple[SourceSpec, ...]:
    """The specs of one contract input (`hz.contract.model.Input`), one per source URI."""
    sources = value.source if isinstance(value.source, tuple | list) else (value.source,)
    return tuple(
        SourceSpec(
            uri=str(uri),
            query=value.query,
            window=value.window,
            facets=tuple(value.facets or ()),
            stage=str(getattr(value, "stage", None) or "published"),
        )
        for uri in sources
    )


def watches_of(contract: Any) -> list[Watch]:
    """Every (input, source) a loaded contract (`hz.contract.load.Contract`) watches."""
    inputs = getattr(contract.frontmatter.hz, "inputs", None) or {}
    return [
        Watch(contract.qualified_name, name, spec, getattr(value, "recheck", None), bool(value.required))
        for name, value in sorted(inputs.items())
        for spec in specs_of(value)
    ]


def group(watches: Iterable[Watch]) -> list[Group]:
    """Watches of the same source identity together, in a stable order."""
    by_key: dict[str, list[Watch]] = {}
    specs: dict[str, SourceSpec] = {}
    for watch in watches:
        by_key.setdefault(watch.spec.key, []).append(watch)
        specs.setdefault(watch.spec.key, watch.spec)
    ordered = sorted(by_key, key=lambda k: (specs[k].uri, k))
    return [Group(specs[k], tuple(by_key[k])) for k in ordered]
