"""The Starlette application: its routes, the login, the static files, all behind `hz.web.guard.Guard`.

`build_app` is the only constructor; the guard wraps the whole app, so a route added here is guarded
without a line of its own (a test enumerates the routes and asks each one without the token).
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

from hz.web.auth import Keys
from hz.web.guard import Guard, cookie_name
from hz.web.live import Watcher
from hz.web.render import STATIC

if TYPE_CHECKING:
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import Response

    from hz.ops import Context


def build_app(keys: Keys, port: int, context: Context, *, mcp: bool = True) -> Guard:
    from starlette.applications import Starlette
    from starlette.routing import Mount, Route
    from starlette.staticfiles import StaticFiles

    from hz.web import actions, api, new_page, page_streams, pages, streams
    from hz.web.mcp_http import MCP_PATH, LazyMCP

    watcher = Watcher()
    pool = ThreadPoolExecutor(max_workers=4, thread_name_prefix="hz-op")  # turns the pages start
    mounted = LazyMCP(context, port) if mcp else None

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        yield
        await watcher.close()
        if mounted is not None:
            await mounted.close()
        pool.shutdown(wait=False, cancel_futures=True)

    routes: list[Any] = [
        Route("/login", login, methods=["GET"]),
        Route("/logout", logout, methods=["POST"]),
        *pages.routes(),
        *actions.routes(),
        *new_page.routes(),
        *streams.routes(),
        *page_streams.routes(),
        *api.routes(),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    if mounted is not None:
        routes.append(Route(MCP_PATH, mounted, methods=["GET", "POST", "DELETE"]))
    app = Starlette(routes=routes, lifespan=lifespan)
    app.state.keys = keys
    app.state.port = port
    app.state.context = context
    app.state.watcher = watcher
    app.state.pool = pool
    guard = Guard(app, keys, port)
    guard.watcher = watcher
    return guard


def login(request: Request) -> Response:
    """Spend the one-time code, set the session cookie, and go to the list (the code leaves the URL bar)."""
    from starlette.responses import PlainTextResponse, RedirectResponse

    keys: Keys = request.app.state.keys
    if request.state.hz_auth is None and not keys.spend_login(request.query_params.get("code", "")):
        return PlainTextResponse(
            "401: this login link was used already, has expired or is wrong; run `hz serve` for a new one\n",
            status_code=401,
        )
    response = RedirectResponse("/", status_code=303)
    response.set_cookie(cookie_name(request.app.state.port), keys.session, httponly=True, samesite="strict", path="/")
    return response


def logout(request: Request) -> Response:
    from starlette.responses import PlainTextResponse

    response = PlainTextResponse("logged out; open a new login link from `hz serve` to come back\n")
    response.delete_cookie(cookie_name(request.app.state.port), path="/", httponly=True, samesite="strict")
    return response
