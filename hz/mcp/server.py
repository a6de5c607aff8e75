"""The MCP server over the operations layer: `build_server(...)` returns an `mcp` low-level `Server`.

Every tool is one operation of `hz.ops.registry.OPERATIONS`, named as there (`heinzel_list`, `drafts`,
`approve`, …), with the input schema of its request type and the output schema of its result type
(hz.ops.schemas), its annotations from the operation's hints (read-only, destructive) and its result
both as structured content and as JSON text. An operation's HzError is a tool error (`isError`) whose
text is the error and its hint, as the CLI prints them; nothing of the environment's secrets.

Approving and rejecting are a person's decisions (`Operation.person`). Where the client supports
elicitation, the server asks the person (hz.mcp.consent); otherwise it refuses and names the command and
the page that do it, unless the server was built with `allow_approve` (`hz mcp --allow-approve`).

Resources: `hz://agents/<id>` (an agent's summary, JSON) and `hz://contracts/<id>` (the contract text its
approved version holds, Markdown), for every agent this machine lists.

For `hz serve`: mount the same server over streamable HTTP behind the page's token, e.g.
`build_server(Context(root=…)).streamable_http_app(streamable_http_path="/mcp", …)` inside the ASGI app
(its lifespan runs the session manager), or call `handle_call` / `tool_list` from a handler of your own.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import anyio
import mcp_types as types
from mcp.server import Server, ServerRequestContext
from mcp.shared.exceptions import MCPError

from hz.mcp.consent import Consent
from hz.ops import Context
from hz.ops.registry import OPERATIONS, Operation
from hz.ops.schemas import parse_request, request_schema, result_schema

SERVER_NAME = "hz"
INSTRUCTIONS = (
    "hz keeps a team's Markdown contracts true with durable agents (Heinzelmännchen). List them, read one, "
    "talk to it, see the drafts that wait and why a slot ran or did not. Approving or rejecting a draft is "
    "the person's decision: the server asks them, or refuses."
)


@dataclass(frozen=True)
class Settings:
    """How the server runs: where (`ctx`) and whether a client may approve without asking (`allow_approve`)."""

    ctx: Context
    allow_approve: bool = False
    page: str | None = None
    """Where the person approves in a browser, named in a refusal (`hz serve` sets its URL)."""


def tool_list() -> list[types.Tool]:
    """Every operation as an MCP tool."""
    return [_tool(operation) for operation in OPERATIONS.values()]


def _tool(operation: Operation) -> types.Tool:
    hints = types.ToolAnnotations(
        title=operation.title,
        read_only_hint=operation.read_only,
        destructive_hint=None if operation.read_only else operation.destructive,
        open_world_hint=False,
    )
    return types.Tool(
        name=operation.name,
        title=operation.title,
        description=f"{operation.summary} (the CLI: `{operation.cli}`)",
        input_schema=request_schema(operation),
        output_schema=result_schema(operation),
        annotations=hints,
    )


async def handle_call(
    settings: Settings, request: ServerRequestContext[Any], params: types.CallToolRequestParams
) -> types.CallToolResult | types.InputRequiredResult:
    """Run one tool call: check the arguments, ask the person where it is their decision, run the operation."""
    from pydantic import ValidationError

    operation = OPERATIONS.get(params.name)
    if operation is None:
        raise MCPError(types.INVALID_PARAMS, f"no tool named {params.name!r}")
    try:
        parsed = parse_request(operation, params.arguments)
    except ValidationError as exc:
        return _error(f"the arguments do not fit {operation.name}: {_first_error(exc)}")
    if operation.person and not settings.allow_approve:
        consent = Consent(operation, parsed, settings.page)
        answer = await consent.ask(request, params)
        if not isinstance(answer, bool):
            return answer  # the modern protocol: the question goes back with the call's result
        if not answer:
            return _error(consent.refusal(request))
    return await anyio.to_thread.run_sync(_run, settings.ctx, operation, parsed)


def _run(ctx: Context, operation: Operation, parsed: Any) -> types.CallToolResult:
    """The operation in a worker thread: it reads SQLite and git, and a turn may call a model for minutes."""
    from hz.errors import HzError
    from hz.secrets import scrub

    try:
        result = operation.run(ctx, parsed)
    except HzError as exc:
        return _error(scrub(exc.render(), ctx.environ))
    text = json.dumps(result, ensure_ascii=False)
    return types.CallToolResult(content=[types.TextContent(text=text)], structured_content=result)


def _error(text: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(text=text)], is_error=True)


def _first_error(exc: Any) -> str:
    first = exc.errors()[0]
    where = ".".join(str(part) for part in first["loc"]) or "(arguments)"
    return f"{where}: {first['msg']}"


def build_server(ctx: Context | None = None, *, allow_approve: bool = False, page: str | None = None) -> Server[Any]:
    """The MCP server of hz for the repository and home of `ctx` (default: this process's directory and
    environment); `page` is the URL a refusal names for deciding in a browser. One per process is enough."""
    import os

    from hz.mcp import resources

    ctx = ctx or Context.here(os.environ)
    settings = Settings(ctx, allow_approve, page)

    async def list_tools(
        request: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tool_list())

    async def call_tool(
        request: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult | types.InputRequiredResult:
        return await handle_call(settings, request, params)

    async def list_resources(
        request: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListResourcesResult:
        return await anyio.to_thread.run_sync(resources.listed, ctx)

    async def read_resource(
        request: ServerRequestContext[Any], params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        return await anyio.to_thread.run_sync(resources.read, ctx, str(params.uri))

    from hz import __version__

    return Server(
        SERVER_NAME, version=__version__, instructions=INSTRUCTIONS, on_list_tools=list_tools,
        on_call_tool=call_tool, on_list_resources=list_resources, on_read_resource=read_resource,
    )  # fmt: skip


async def serve_stdio(ctx: Context, *, allow_approve: bool = False) -> None:
    """Serve over this process's stdin and stdout until the client closes them."""
    from mcp.server.stdio import stdio_server

    server = build_server(ctx, allow_approve=allow_approve)
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())
