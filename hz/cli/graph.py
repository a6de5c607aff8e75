"""`hz graph`: click wiring only; the work is in `hz.commands.graph`."""

from __future__ import annotations

import click


@click.command()
@click.option("--mermaid", "fmt", flag_value="mermaid", help="Print a Mermaid flowchart.")
@click.option("--json", "fmt", flag_value="json", help="Print JSON: nodes (name, height, enabled) and edges.")
@click.option(
    "--html",
    "html",
    is_flag=False,
    flag_value="-",
    default=None,
    metavar="[FILE]",
    help="Write one self-contained HTML page (no script, no network) to FILE, or print it.",
)
@click.option("--observed", is_flag=True, help="Also show what the receipts on hz/state say ran, read and wrote.")
def graph(fmt: str | None, html: str | None, observed: bool) -> int:
    """Show how contracts feed each other: explicit contract: inputs, wake order and disabled contracts."""
    from hz.commands.graph import run_graph

    if html is not None:
        return run_graph("html", html=html)
    return run_graph("mermaid" if fmt == "mermaid" else "json" if fmt == "json" else "text", observed=observed)
