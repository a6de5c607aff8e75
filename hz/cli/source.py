"""`hz source list|fetch|diff`: click wiring only; the work is in `hz.commands.source_*`."""

from __future__ import annotations

import click


@click.group()
def source() -> None:
    """The sources contracts read: what is watched, fetch now, what moved since the last turn."""


@source.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def list_(as_json: bool) -> int:
    """Every distinct source this repository's contracts watch, with watchers, fingerprints and rechecks."""
    from hz.commands.source_list import run_list

    return run_list(as_json=as_json)


@source.command()
@click.argument("target", required=False)
@click.option("--query", help="The query of a source URI (as an input's `query`).")
@click.option("--window", help="The window of a source URI, such as 7d (as an input's `window`).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def fetch(target: str | None, query: str | None, window: str | None, as_json: bool) -> int:
    """Fetch now (ignoring rechecks) and print canonical facets and fingerprints.

    TARGET is a contract name, a source URI (`feed:https://…`), or nothing for every watched source.
    """
    from hz.commands.source_fetch import run_fetch

    return run_fetch(target, query=query, window=window, as_json=as_json)


@source.command()
@click.argument("contract")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def diff(contract: str, as_json: bool) -> int:
    """Which inputs of CONTRACT moved since its Heinzelmännchen's last turn."""
    from hz.commands.source_diff import run_diff

    return run_diff(contract, as_json=as_json)
