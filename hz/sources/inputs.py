"""An input's value from its sources: facets, per-facet fingerprints, and stated gaps.

An input with one source passes that source's facets on as they are. An input with several sources
passes, per facet, a mapping from source URI to that source's value, so the order in which the sources
are listed never matters. A source that failed under `required: false` becomes an explicit gap marker
`{"gap": <code>, "source": <uri>}` with its own fingerprint: a failing source never reads as "nothing
moved". Under `required: true` the failure is the input's error.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from hz.sources.base import SourceError, SourceSpec
from hz.sources.canonical import combined
from hz.sources.fastjcs import fingerprint
from hz.sources.resolve import Resolved

GAP = "gap"


@dataclass(frozen=True)
class InputValue:
    values: Mapping[str, Any]  # facet -> canonical value (or the gap marker under "gap")
    fingerprints: Mapping[str, str]  # facet -> fingerprint
    error: SourceError | None = None  # set when a required source failed
    gaps: tuple[Mapping[str, str], ...] = ()

    @property
    def fingerprint(self) -> str:
        """The whole input's fingerprint: the hash of its facet fingerprint map."""
        return combined(self.fingerprints)


def gap_marker(spec: SourceSpec, error: SourceError) -> dict[str, str]:
    return {GAP: error.code, "source": spec.uri, "message": error.message}


def assemble(parts: Sequence[tuple[SourceSpec, Resolved | SourceError]], *, required: bool) -> InputValue:
    failures = [(spec, r) for spec, r in parts if isinstance(r, SourceError)]
    if failures and required:
        return InputValue({}, {}, error=failures[0][1])
    gaps = tuple(gap_marker(spec, err) for spec, err in failures)
    if len(parts) == 1:
        only = parts[0][1]
        if isinstance(only, SourceError):
            return InputValue({GAP: gaps[0]}, {GAP: fingerprint(_gap_identity(gaps[0]))}, gaps=gaps)
        return InputValue(dict(only.facets), dict(only.fingerprints))
    return _merge(parts, gaps)


def _gap_identity(gap: Mapping[str, str]) -> dict[str, str]:
    # The message may name a time or a request id; the code and source are what the gap is.
    return {GAP: gap[GAP], "source": gap["source"]}


def _merge(
    parts: Sequence[tuple[SourceSpec, Resolved | SourceError]], gaps: tuple[Mapping[str, str], ...]
) -> InputValue:
    facet_names = sorted({f for _, r in parts if isinstance(r, Resolved) for f in r.facets})
    values: dict[str, Any] = {}
    fingerprints: dict[str, str] = {}
    for facet in facet_names:
        per_source = {spec.uri: r.facets[facet] for spec, r in parts if isinstance(r, Resolved) and facet in r.facets}
        per_fp = {spec.uri: r.fingerprints[facet] for spec, r in parts if isinstance(r, Resolved) and facet in r.facets}
        values[facet] = per_source
        fingerprints[facet] = fingerprint(per_fp)
    if gaps:
        values[GAP] = list(gaps)
        fingerprints[GAP] = fingerprint(sorted((_gap_identity(g) for g in gaps), key=lambda g: g["source"]))
    return InputValue(values, fingerprints, gaps=gaps)
