"""`hz mcp`'s server (hz.mcp.server) over streamable HTTP at /mcp, inside the app and behind its guard.

The endpoint is an ordinary route behind the same gate (the guard's tests enumerate it like any other).
The `mcp` SDK takes seconds to import, more than the rest of `hz serve`, so the server and its session
manager are built on the first request to /mcp, not at start-up: the manager's task group then runs in a
task of its own until the app shuts down. The SDK's own Host and Origin checks stay on, narrowed to this
server's loopback names and port. Approving stays a person's act: the server asks through elicitation
where the client supports it, and otherwise refuses and names the page and the command.
"""

from __future__ import annotations

import asyncio
from typing import Any

from hz.ops import Context

MCP_PATH = "/mcp"
LOOPBACK = ("127.0.0.1", "localhost", "[::1]")


class LazyMCP:
    """An ASGI endpoint that builds the MCP server on its first request."""

    def __init__(self, ctx: Context, port: int) -> None:
        self.ctx, self.port = ctx, port
        self._endpoint: Any = None
        self._lock = asyncio.Lock()
        self._stop: asyncio.Event | None = None
        self._task: asyncio.Task[None] | None = None

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        endpoint = self._endpoint or await self._start()
        await endpoint(scope, receive, send)

    async def _start(self) -> Any:
        async with self._lock:
            if self._endpoint is not None:
                return self._endpoint
            endpoint, manager = await asyncio.to_thread(self._build)
            ready, self._stop = asyncio.Event(), asyncio.Event()
            self._task = asyncio.get_running_loop().create_task(self._run(manager, ready, self._stop))
            await ready.wait()
            self._endpoint = endpoint
            return endpoint

    def _build(self) -> tuple[Any, Any]:
        from mcp.server.streamable_http_manager import StreamableHTTPASGIApp, StreamableHTTPSessionManager
        from mcp.server.transport_security import TransportSecuritySettings

        from hz.mcp.server import build_server

        security = TransportSecuritySettings(
            enable_dns_rebinding_protection=True,
            allowed_hosts=[f"{name}:{self.port}" for name in LOOPBACK],
            allowed_origins=[f"http://{name}:{self.port}" for name in LOOPBACK],
        )
        server = build_server(self.ctx, page=f"http://127.0.0.1:{self.port}/drafts")
        manager = StreamableHTTPSessionManager(app=server, security_settings=security)
        return StreamableHTTPASGIApp(manager), manager

    @staticmethod
    async def _run(manager: Any, ready: asyncio.Event, stop: asyncio.Event) -> None:
        async with manager.run():
            ready.set()
            await stop.wait()

    async def close(self) -> None:
        if self._stop is not None and self._task is not None:
            self._stop.set()
            await self._task
