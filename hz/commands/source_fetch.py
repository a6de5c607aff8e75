"""`hz source fetch [CONTRACT|URI]`: fetch now, ignoring rechecks, and print canonical facets and fingerprints."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import click

from hz.commands.source_common import describe_spec, repository_watches, spec_line, text_argument, watchers
from hz.errors import HzError
from hz.sources.base import SourceError, SourceSpec
from hz.sources.fetcher import TickFetch, fetch_all
from hz.sources.watch import Watch
from hz.sources.window import iso


def run_fetch(
    target: str | None,
    *,
    query: str | None = None,
    window: str | None = None,
    as_json: bool = False,
    environ: Mapping[str, str] = os.environ,
    cwd: Path | None = None,
    now: datetime | None = None,
) -> int:
    """Exit 0 when every source was read, 1 when any failed (each failure is printed)."""
    text_argument(target, "the source or contract")
    text_argument(query, "--query")
    root = _root(cwd)
    watches = _watches(target, query, window, root, environ, cwd)
    report = fetch_all(watches, now=now or datetime.now(UTC), environ=environ, root=root, force=True)
    rows = [_row(report, g.spec, watchers(g)) for g in report.groups]
    if as_json:
        click.echo(json.dumps(rows, indent=2, ensure_ascii=False))
    else:
        _print(rows, report)
    return 1 if any("error" in row for row in rows) else 0


def _root(cwd: Path | None) -> Path | None:
    from hz.errors import NotInRepository
    from hz.repo import find_root

    try:
        return find_root(cwd)
    except NotInRepository:
        return None  # a URI that needs no repository (feed:https://…, github:, jira:) still works


def _watches(
    target: str | None,
    query: str | None,
    window: str | None,
    root: Path | None,
    environ: Mapping[str, str],
    cwd: Path | None,
) -> list[Watch]:
    from hz.registry import SOURCE_SCHEMES

    if target is not None and target.partition(":")[0] in SOURCE_SCHEMES and ":" in target:
        return [Watch("(command line)", "source", SourceSpec(target, query=query, window=_window(window)), None)]
    if query or window:
        raise HzError("--query and --window apply to a source URI", hint="a contract's inputs carry their own")
    if root is None:
        from hz.repo import find_root

        root = find_root(cwd)  # outside a repository this raises NotInRepository with its own message
    watches = repository_watches(root, environ, cwd)
    if target is None:
        return watches
    from hz.contract.project import compile_repository

    wanted = compile_repository(root, environ, cwd=cwd).get(target).qualified_name
    chosen = [w for w in watches if w.contract == wanted]
    if not chosen:
        raise HzError(f"{wanted} reads no source", hint="its contract has no inputs, or it is disabled")
    return chosen


def _window(text: str | None) -> Any:
    if text is None:
        return None
    from pydantic_core import PydanticCustomError

    from hz.contract.model import parse_duration

    try:
        return parse_duration(text)
    except PydanticCustomError as exc:
        from hz.sources.canonical import escaped_name

        shown = escaped_name(text if len(text) <= 40 else text[:40] + "…")
        said = "is longer than 3650d" if exc.type == "duration_too_long" else "is not a duration"
        raise HzError(
            f"--window {shown!r} {said}", hint="write a number and a unit, at most 3650d: 90m, 12h, 7d, 2w"
        ) from None


def _row(report: TickFetch, spec: SourceSpec, who: list[dict[str, Any]]) -> dict[str, Any]:
    outcome = report.results[spec.key]
    row: dict[str, Any] = {**describe_spec(spec), "watchers": who}
    if isinstance(outcome, SourceError):
        row["error"] = {"code": outcome.code, "message": outcome.message, "hint": outcome.hint}
        return row
    row.update(
        how=outcome.how,
        requests=outcome.requests,
        as_of=iso(outcome.as_of),
        fingerprints=dict(outcome.fingerprints),
        facets=dict(outcome.facets),
    )
    return row


def _print(rows: list[dict[str, Any]], report: TickFetch) -> None:
    if not rows:
        click.echo("no contract of this repository reads a source")
    for spec_row, g in zip(rows, report.groups, strict=True):
        click.echo(spec_line(g.spec))
        if "error" in spec_row:
            error = report.results[g.spec.key]
            assert isinstance(error, SourceError)
            click.echo("  " + error.render().replace("\n", "\n  "), err=True)
            continue
        click.echo(f"  {spec_row['how']} as of {spec_row['as_of']}")
        for facet, fp in spec_row["fingerprints"].items():
            value = json.dumps(spec_row["facets"][facet], indent=2, ensure_ascii=False)
            click.echo(f"  {facet}: {fp}")
            click.echo("    " + value.replace("\n", "\n    "))
