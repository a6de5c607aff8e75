"""`hz explain`: click wiring only; the work is in `hz.commands.explain`."""

from __future__ import annotations

import click


@click.command()
@click.argument("code", required=False)
@click.option(
    "--json", "as_json", is_flag=True, help="Print the entry as JSON (a list: a kind may live in two stores)."
)
@click.option("--list", "list_all", is_flag=True, help="List every code and event kind.")
@click.option("--markdown", is_flag=True, help="Print the whole reference as Markdown (docs/codes.md).")
def explain(code: str | None, as_json: bool, list_all: bool, markdown: bool) -> int:
    """Explain a code (HZC011, hzs008) or an event kind (turn.started): meaning, example, fix."""
    from hz.commands.explain import run_explain

    return run_explain(code, as_json=as_json, list_all=list_all, markdown=markdown)
