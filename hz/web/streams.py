"""The pages' Server-Sent Events: `/events/list` and `/events/heinzel/{id}` (see `hz.web.live`).

An agent's stream watches its spine. On connect it sends the agent's current row (the list's summary of
it) with the spine's last seq as its id; every line appended later goes out as a `step` event whose id is
its seq, followed by the row again. A browser that reconnects with `Last-Event-ID: n` gets the lines
after n when there are at most `RESUME_MAX` of them, else the current row: never the history.

The list's stream watches the index (its file and its write-ahead log). Its id is a digest of the rows
it last sent; a reconnect with the current digest gets nothing, any other gets the rows anew, and every
change sends only the agents whose row changed.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar
from urllib.parse import urlencode

from hz.errors import HzError
from hz.web.live import Event, signature, stream

if TYPE_CHECKING:
    from starlette.requests import Request
    from starlette.responses import Response
    from starlette.routing import Route

    from hz.ops import Context

RESUME_MAX = 200
LIST_FILTERS = ("state", "artifact", "contract", "all")


def routes() -> list[Route]:
    from starlette.routing import Route

    return [
        Route("/events/list", list_events, methods=["GET"]),
        Route("/events/heinzel/{name}", agent_events, methods=["GET"]),
    ]


def _step(envelope: Any) -> Event:
    data = {"seq": envelope.seq, "ts": envelope.ts, "kind": envelope.kind, "turn": envelope.turn,
            "key": envelope.key, "data": envelope.data}  # fmt: skip
    return Event("step", data, str(envelope.seq))


class AgentSource:
    def __init__(self, ctx: Context, agent: str) -> None:
        from hz.session.lock import SPINE
        from hz.session.store import Store

        self.ctx = ctx
        self.agent = agent
        self.spine = Store.from_environ(ctx.environ).agent_dir(agent) / SPINE
        self.end, self.last_seq = 0, 0
        self.head: str | None = None

    def paths(self) -> list[Path]:
        return [self.spine]

    def row(self) -> Event:
        from hz.web.operations import call

        agents = call(self.ctx, "heinzel_list", {"everywhere": True})["agents"]
        found = next((a for a in agents if a["id"] == self.agent), None)
        return Event("row", found)

    def start(self, last_event_id: str | None) -> list[Event]:
        """The row, from where the index has read the spine to (no spine is read), or the lines after a
        reconnect's `Last-Event-ID` when it missed only a few (then the spine is read)."""
        from hz.session.spine import read_spine
        from hz.session.store import Store

        with Store.from_environ(self.ctx.environ) as store:
            known = store.index.spine_state(self.agent) or {"size": 0, "head": None, "last_seq": 0}
        since = int(last_event_id) if last_event_id and last_event_id.isdigit() and len(last_event_id) < 19 else None
        if since is not None and 0 <= known["last_seq"] - since <= RESUME_MAX:
            read = read_spine(self.spine)
            self.end, self.head, self.last_seq = read.end, read.head, read.last_seq
            return [_step(e) for e in read.events if e.seq > since] + [self.row()]
        self.end, self.head, self.last_seq = known["size"], known["head"], known["last_seq"]
        row = self.row()
        return [Event(row.kind, row.data, str(self.last_seq))]

    def changed(self) -> list[Event]:
        from hz.session.spine import read_spine

        read = read_spine(self.spine, offset=self.end, head=self.head, last_seq=self.last_seq)
        if read.broken_at is not None and not read.events:  # rewritten under us: start over from its end
            return self.start(None)
        self.end, self.head, self.last_seq = read.end, read.head, read.last_seq
        if not read.events:
            return []
        return [*(_step(e) for e in read.events), self.row()]


class ListSource:
    """Every open list page with the same filters shares one read of the list per change of the index
    (`_shared`): a hundred open pages cost one query, not a hundred."""

    _shared: ClassVar[dict[str, tuple[Any, dict[str, Any], str]]] = {}
    _lock = threading.Lock()

    def __init__(self, ctx: Context, filters: dict[str, Any]) -> None:
        from hz.session.index import INDEX
        from hz.session.store import Store

        self.ctx = ctx
        self.filters = filters
        index = Store.from_environ(ctx.environ).root / INDEX
        self.files = [index, index.with_name(index.name + "-wal")]
        self.sent: dict[str, Any] = {}
        hold_open(index)

    def paths(self) -> list[Path]:
        return self.files

    def _rows(self) -> tuple[dict[str, Any], str]:
        from hz.web.operations import call

        key = json.dumps([str(self.files[0]), self.filters], sort_keys=True)
        with self._lock:
            moment = tuple(signature(p) for p in self.files)
            found = self._shared.get(key)
            if found is not None and found[0] == moment:
                return found[1], found[2]
            agents = call(self.ctx, "heinzel_list", self.filters)["agents"]
            rows = {a["id"]: a for a in agents}
            digest = hashlib.sha256(json.dumps(agents, sort_keys=True, default=str).encode()).hexdigest()[:16]
            self._shared[key] = (moment, rows, digest)
            return rows, digest

    def start(self, last_event_id: str | None) -> list[Event]:
        rows, digest = self._rows()
        self.sent = rows
        return [] if last_event_id == digest else [Event("row", list(rows.values()), digest)]

    def changed(self) -> list[Event]:
        rows, digest = self._rows()
        moved = [row for key, row in rows.items() if self.sent.get(key) != row]
        gone = [key for key in self.sent if key not in rows]
        self.sent = rows
        events = [Event("agent", row) for row in moved] + [Event("gone", key) for key in gone]
        if events:
            events[-1] = Event(events[-1].kind, events[-1].data, digest)
        return events


_HELD: dict[Path, sqlite3.Connection] = {}


def hold_open(index: Path) -> None:
    """Keep one connection to the index open while the server runs. SQLite removes the write-ahead log
    when its last connection closes: without this, every read of the list by the server itself would
    remove that file, which the streams watch, and wake every open list page for nothing."""
    if index not in _HELD and index.exists():
        connection = sqlite3.connect(index, check_same_thread=False)
        connection.execute("SELECT count(*) FROM sqlite_master").fetchone()
        _HELD[index] = connection


def _filters(request: Request) -> dict[str, Any]:
    query = request.query_params
    found: dict[str, Any] = {k: query[k] for k in ("state", "artifact", "contract") if query.get(k)}
    if query.get("all") == "1":
        found["everywhere"] = True
    return found


def stream_url(path: str, query: dict[str, str]) -> str:
    kept = {k: v for k, v in query.items() if k in LIST_FILTERS and v}
    return f"{path}?{urlencode(kept)}" if kept else path


async def respond(request: Request, source: Any) -> Response:
    from starlette.concurrency import run_in_threadpool
    from starlette.responses import StreamingResponse

    async def run(read: Any) -> Any:
        return await run_in_threadpool(read)

    frames = stream(request.app.state.watcher, source, request.headers.get("last-event-id"), run)
    return StreamingResponse(frames, media_type="text/event-stream", headers={"x-accel-buffering": "no"})


async def list_events(request: Request) -> Response:
    from hz.web.operations import call

    filters = _filters(request)
    try:
        from starlette.concurrency import run_in_threadpool

        await run_in_threadpool(call, request.app.state.context, "heinzel_list", filters)
    except HzError as error:
        return bad(error)
    return await respond(request, ListSource(request.app.state.context, filters))


async def agent_events(request: Request) -> Response:
    from starlette.concurrency import run_in_threadpool

    ctx = request.app.state.context
    try:
        agent = await run_in_threadpool(_resolve, ctx, request.path_params["name"])
    except HzError as error:
        return bad(error)
    return await respond(request, AgentSource(ctx, agent))


def _resolve(ctx: Context, name: str) -> str:
    from hz.heinzel.lifecycle import resolve
    from hz.session.store import Store

    with Store.from_environ(ctx.environ) as store:
        return str(resolve(store, name)["id"])


def bad(error: HzError) -> Response:
    from starlette.responses import PlainTextResponse

    from hz.web.operations import status_of

    status = status_of(error)
    return PlainTextResponse(f"{status}: {error.message}\n", status_code=status)
