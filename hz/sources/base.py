"""What every adapter speaks: a source spec in, records and canonical facets out, one error type.

An adapter module (named in `hz.registry.SOURCE_SCHEMES`) provides:

    REMOTE: bool                      # talks to a server; its records do not depend on the slot
    FACETS: tuple[str, ...]           # every facet it can produce
    def fetch(spec, ctx) -> Fetched   # read the source (conditionally, given ctx.previous)
    def build(spec, records, window) -> dict[str, Any]   # canonical facets from records, in the window

Records are canonical JSON already (volatile fields dropped); `build` only selects and groups them, so
the cache can rebuild an input for another slot from stored records without reading the source again.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from pathlib import Path
from types import ModuleType
from typing import Any, Protocol, cast

from hz.canonical import fingerprint
from hz.errors import HzError
from hz.secrets import redact_url
from hz.sources.window import Window

# Error codes a failing source is reported with (also the `gap` code of a `required: false` input).
ERROR_CODES = (
    "not-found",
    "unauthorized",
    "forbidden",
    "rate-limited",
    "server-error",
    "unavailable",
    "malformed",
    "outside-repository",
    "bad-source",
    "too-large",
)


class SourceError(HzError):
    """A source could not be read; `code` is one of ERROR_CODES, `status` the HTTP status when one said so.
    `waiting_for`: the upstream contract (`contract:`) that has nothing approved on main yet, so the reader
    waits for it rather than fails."""

    def __init__(
        self, code: str, message: str, *, hint: str | None = None, status: int | None = None,
        waiting_for: str | None = None,
    ) -> None:  # fmt: skip
        assert code in ERROR_CODES, code
        super().__init__(message, hint=hint)
        self.code = code
        self.status = status
        self.waiting_for = waiting_for


@dataclass(frozen=True)
class SourceSpec:
    """One source URI as an input reads it: the identity under which watchers share one fetch."""

    uri: str
    query: str | None = None
    window: timedelta | None = None
    facets: tuple[str, ...] = ()  # () = every facet the adapter has
    stage: str = "published"

    @property
    def scheme(self) -> str:
        return self.uri.partition(":")[0]

    @property
    def target(self) -> str:
        """The URI without its scheme (`feed:https://x/y` -> `https://x/y`)."""
        return self.uri.partition(":")[2]

    def identity(self) -> dict[str, Any]:
        return {
            "scheme": self.scheme,
            "source": redact_url(self.target),  # the cache keeps this: never a credential in a URL
            "query": self.query,
            "window": int(self.window.total_seconds()) if self.window is not None else None,
            "facets": sorted(self.facets),
            "stage": self.stage,
        }

    @property
    def key(self) -> str:
        """Hex key of the cache entry: the same for every watcher that reads the same thing."""
        return fingerprint(self.identity()).partition(":")[2][:32]


@dataclass(frozen=True)
class FetchContext:
    """Everything a fetch may use, passed in: the repository root, the slot, the clock, the environment."""

    slot: datetime
    now: datetime
    environ: Mapping[str, str]
    root: Path | None = None
    previous: Mapping[str, Any] | None = None  # the cache entry from the last fetch (validators, pages)
    max_wait_s: float = 5.0  # how long a rate-limited request may wait for `Retry-After` before failing


@dataclass(frozen=True)
class Fetched:
    """What one fetch returned: canonical records and what the next conditional request needs."""

    records: Any
    covers: tuple[datetime | None, datetime | None] = (None, None)  # the time range the records are complete for
    validators: Mapping[str, Any] = field(default_factory=dict)  # etag, last_modified, pages
    cursor: str | None = None
    not_modified: bool = False
    requests: int = 0  # HTTP requests made (pages, retries), for `hz source fetch` and the benchmark

    def with_(self, **changes: Any) -> Fetched:
        return replace(self, **changes)


class Adapter(Protocol):
    REMOTE: bool
    FACETS: tuple[str, ...]

    def fetch(self, spec: SourceSpec, ctx: FetchContext) -> Fetched: ...

    def build(self, spec: SourceSpec, records: Any, window: Window) -> dict[str, Any]: ...


def adapter_for(scheme: str) -> Adapter:
    """The adapter module registered for `scheme`; SourceError when none is."""
    from hz.registry import SOURCE_SCHEMES

    entry = SOURCE_SCHEMES.get(scheme)
    if entry is None:
        known = ", ".join(sorted(SOURCE_SCHEMES))
        raise SourceError("bad-source", f"no source adapter for the scheme {scheme!r}", hint=f"known: {known}")
    module: ModuleType = importlib.import_module(entry.module)
    return cast(Adapter, module)


def no_query(spec: SourceSpec) -> None:
    """Schemes without a query language refuse one, so a misplaced filter never silently reads everything."""
    if spec.query and spec.query.strip():
        raise SourceError(
            "bad-source",
            f"{spec.uri}: {spec.scheme}: sources take no query",
            hint="remove `query`, or use `facets`/`window` to narrow the input",
        )


def select(facets: Mapping[str, Any], spec: SourceSpec) -> dict[str, Any]:
    """The facets the input asked for (all when it named none); a facet the source lacks is an error."""
    wanted = spec.facets or tuple(facets)
    unknown = sorted(set(wanted) - set(facets))
    if unknown:
        raise SourceError(
            "bad-source",
            f"{spec.uri} has no facet {', '.join(unknown)}",
            hint=f"this source has the facets {', '.join(sorted(facets)) or '(none)'}",
        )
    return {name: facets[name] for name in wanted}
