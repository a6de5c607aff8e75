"""`hz mcp`'s server over streamable HTTP at /mcp, with the SDK's own client: the tools and a call behind
the bearer token, and nothing without it."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import httpx

from tests.web.conftest import Hz, Served, agent_with_draft


async def _session(served: Served, headers: dict[str, str]) -> tuple[list[str], Any]:
    import httpx2
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    async with (
        httpx2.AsyncClient(headers=headers, timeout=30) as http,
        streamable_http_client(f"{served.base}/mcp", http_client=http) as streams,
        ClientSession(streams[0], streams[1]) as session,
    ):
        await session.initialize()
        tools = await session.list_tools()
        called = await session.call_tool("heinzel_list", {})
        return sorted(t.name for t in tools.tools), called


def test_the_mcp_tools_over_http_with_the_token(hz: Hz, repo: Path, served: Served) -> None:
    from hz.ops.registry import OPERATIONS

    agent_with_draft(hz, repo)
    names, called = asyncio.run(_session(served, served.bearer))
    assert names == sorted(OPERATIONS)
    assert called.structured_content == {"schema_version": 1, "agents": json.loads(hz("heinzel", "list", "--json").out)}


def test_mcp_without_the_token_or_from_another_host_is_refused(served: Served) -> None:
    hello = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}
    assert httpx.post(f"{served.base}/mcp", json=hello).status_code == 401
    foreign = {**served.bearer, "Host": "evil.example"}
    assert httpx.post(f"{served.base}/mcp", json=hello, headers=foreign).status_code == 421
