"""`hz serve`: click wiring only; the server is `hz.web.serve`."""

from __future__ import annotations

import os

import click

HOST = click.option(
    "--host",
    default="127.0.0.1",
    show_default=True,
    type=click.Choice(["127.0.0.1", "::1", "localhost"]),
    help="A loopback address to listen on.",
)
PORT = click.option("--port", default=8765, show_default=True, type=click.IntRange(0, 65535),
                    help="The port (0: any free one).")  # fmt: skip
NEW_TOKEN = click.option(
    "--new-token", is_flag=True, help="Mint a new token: every logged-in browser and REST client must log in again."
)


@click.command()
@HOST
@PORT
@NEW_TOKEN
def serve(host: str, port: int, new_token: bool) -> int:
    """Serve the pages, the REST API (/api/v1) and MCP (/mcp) on loopback, behind a token."""
    from hz.web.serve import Options, serve_command

    return serve_command(Options(host, port, new_token), os.environ)
