"""`hz mcp`: click wiring only; the server is `hz.mcp.server`."""

from __future__ import annotations

import os

import click


@click.command("mcp")
@click.option(
    "--allow-approve",
    is_flag=True,
    help="Let the client approve and reject without asking its person (else it asks, or is refused).",
)
def mcp(allow_approve: bool) -> int:
    """Serve hz's operations to an MCP client over stdin and stdout (the tools have the CLI's names)."""
    import anyio

    from hz.mcp.server import serve_stdio
    from hz.ops import Context

    anyio.run(lambda: serve_stdio(Context.here(os.environ), allow_approve=allow_approve))
    return 0
