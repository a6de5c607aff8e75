"""Live drafts, graph and why pages: `/events/drafts`, `/events/graph`, `/events/why` (see `hz.web.live`).

Each of these pages draws one operation's result (drafts, graph, why). Its stream watches what that result
is made of: the index (this machine's agents, their drafts and fates; every spine append moves it) and
the repository's hz refs (`refs/hz/…`: what the last fetch brought of the team's state, drafts and
leases; `refs/heads/hz/…`: this clone's draft branches; `packed-refs`). When one of them moves, the
operation is asked again and, only when its result differs from what the page shows, a `changed` event
goes out; the page's script then fetches the page anew from this server and swaps its content (what a
reload would show, without losing the place). The page names the digest of the result it drew in the
stream's URL (`since`), so a change between drawing and connecting is not missed; a reconnect's
`Last-Event-ID` is the digest it last heard. Pages with the same arguments share one read per change.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar
from urllib.parse import urlencode

from hz.errors import HzError
from hz.gitdir import git_dir
from hz.web.live import Event, signature

if TYPE_CHECKING:
    from starlette.requests import Request
    from starlette.responses import Response
    from starlette.routing import Route

    from hz.ops import Context

VOLATILE = frozenset({"age_s"})  # fields that move with the clock alone: no reason to redraw a page


def routes() -> list[Route]:
    from starlette.routing import Route

    return [
        Route("/events/drafts", drafts_events, methods=["GET"]),
        Route("/events/graph", graph_events, methods=["GET"]),
        Route("/events/why", why_events, methods=["GET"]),
    ]


def digest(result: Any) -> str:
    """What a page's content is made of, in 16 hex digits (the clock's own fields left out)."""
    text = json.dumps(_steady(result), sort_keys=True, default=str, ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _steady(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _steady(v) for k, v in value.items() if k not in VOLATILE}
    if isinstance(value, list):
        return [_steady(v) for v in value]
    return value


def stream_url(path: str, query: dict[str, str], result: Any) -> str:
    """The stream of a page that drew `result` with these query arguments."""
    return f"{path}?{urlencode({**query, 'since': digest(result)})}"


# --- what the pages are drawn from (one function each, shared by the page and its stream) ------------


def drafts_result(ctx: Context) -> Any:
    from hz.web.operations import call

    return call(ctx, "drafts", {})


def graph_result(ctx: Context) -> Any:
    """The graph as the graph operation gives it, observed: what the page draws."""
    import importlib

    ops = importlib.import_module("hz.ops.graph")
    return ops.as_data(ops.load(ctx, observed=True))


def why_result(ctx: Context, contract: str, slot: str | None) -> Any:
    from hz.web.operations import call

    return call(ctx, "why", {"contract": contract, "slot": slot})


# --- the files they are made of -----------------------------------------------------------------------


def watched(ctx: Context) -> list[Path]:
    """The index and its log, and the repository's hz refs (folders are watched as trees: `live.signature`)."""
    from hz.session.index import INDEX
    from hz.session.store import Store
    from hz.web.streams import hold_open

    index = Store.from_environ(ctx.environ).root / INDEX
    hold_open(index)
    found = [index, index.with_name(index.name + "-wal")]
    refs = git_dir(ctx.root) if ctx.root is not None else None
    if refs is not None:
        found += [refs / "refs" / "hz", refs / "refs" / "heads" / "hz", refs / "packed-refs"]
    return found


class PageSource:
    """One open page of a kind; `read` gives the result the page draws."""

    _shared: ClassVar[dict[str, tuple[Any, str]]] = {}
    _lock = threading.Lock()

    def __init__(self, ctx: Context, key: str, read: Callable[[], Any], since: str | None) -> None:
        self.read = read
        self.files = watched(ctx)
        self.key = json.dumps([key, *map(str, self.files)])  # two homes served by one process never share
        self.since = since
        self.sent: str | None = None

    def paths(self) -> list[Path]:
        return self.files

    def current(self) -> str:
        """The digest of the result now; pages of the same key share one read per change of the files."""
        with self._lock:
            moment = tuple(signature(p) for p in self.files)
            found = self._shared.get(self.key)
            if found is not None and found[0] == moment:
                return found[1]
            now = digest(self.read())
            self._shared[self.key] = (moment, now)
            return now

    def start(self, last_event_id: str | None) -> list[Event]:
        self.sent = last_event_id or self.since
        return self.changed()

    def changed(self) -> list[Event]:
        now = self.current()
        if now == self.sent:
            return []
        self.sent = now
        return [Event("changed", {"digest": now}, now)]


async def _open(request: Request, key: str, read: Callable[[], Any]) -> Response:
    """The stream, or the page's error as a plain answer when the operation refuses (as a page would)."""
    from starlette.concurrency import run_in_threadpool

    from hz.web.streams import bad, respond

    source = PageSource(request.app.state.context, key, read, request.query_params.get("since") or None)
    try:
        await run_in_threadpool(source.current)
    except HzError as error:
        return bad(error)
    return await respond(request, source)


async def drafts_events(request: Request) -> Response:
    ctx = request.app.state.context
    return await _open(request, "drafts", lambda: drafts_result(ctx))


async def graph_events(request: Request) -> Response:
    ctx = request.app.state.context
    return await _open(request, "graph", lambda: graph_result(ctx))


async def why_events(request: Request) -> Response:
    ctx = request.app.state.context
    contract = request.query_params.get("contract") or ""
    slot = request.query_params.get("slot") or None
    key = "why " + json.dumps([contract, slot])
    return await _open(request, key, lambda: why_result(ctx, contract, slot))
