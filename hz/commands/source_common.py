"""What the `hz source` commands share: the repository's watches and how a source is shown."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import timedelta
from pathlib import Path
from typing import Any

from hz.errors import HzError
from hz.secrets import redact_url
from hz.sources.base import SourceSpec
from hz.sources.watch import Group, Watch, watches_of


def repository_watches(root: Path, environ: Mapping[str, str], cwd: Path | None = None) -> list[Watch]:
    """Every watch of every enabled contract of the repository's layers."""
    from hz.contract.project import compile_repository

    compiled = compile_repository(root, environ, cwd=cwd)
    return [w for c in compiled.contracts if c.enabled and c.contract is not None for w in watches_of(c.contract)]


def text_argument(value: str | None, what: str) -> None:
    """Refuse an argument that is not UTF-8 (a Latin-1 file name typed in a shell): URIs, queries and
    contract names are text, and the cache, the index and fingerprints hold only text."""
    if value is None:
        return
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        from hz.sources.canonical import escaped_name

        raise HzError(
            f"{what} '{escaped_name(value)}' is not UTF-8 text",
            hint="match a file whose name is not UTF-8 with a glob (file:caf*.txt); it is read as caf\\xe9.txt",
        ) from None


def duration(value: timedelta | None) -> str | None:
    if value is None:
        return None
    from hz.contract.model import format_duration

    return str(format_duration(value))


def describe_spec(spec: SourceSpec) -> dict[str, Any]:
    return {
        "uri": redact_url(spec.uri),  # a feed's URI may carry its credential: never printed
        "query": spec.query,
        "window": duration(spec.window),
        "facets": list(spec.facets),
        "stage": spec.stage if spec.scheme == "contract" else None,
        "key": spec.key,
    }


def spec_line(spec: SourceSpec) -> str:
    extras = [f"{k}: {v}" for k, v in describe_spec(spec).items() if k in {"query", "window", "stage"} and v]
    if spec.facets:
        extras.append("facets: " + ", ".join(spec.facets))
    return redact_url(spec.uri) + (f"  ({'; '.join(extras)})" if extras else "")


def watchers(group: Group) -> list[dict[str, Any]]:
    return [
        {"contract": w.contract, "input": w.input, "recheck": duration(w.recheck), "required": w.required}
        for w in group.watches
    ]
