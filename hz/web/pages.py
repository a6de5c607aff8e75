"""The pages (GET, server-rendered, readable without JavaScript): each asks one operation and draws it."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from hz.errors import HzError

if TYPE_CHECKING:
    from starlette.requests import Request
    from starlette.responses import Response
    from starlette.routing import Route

    from hz.ops import Context

TIMELINE = 200  # the latest turns an agent's page shows; `?turns=all` shows every one
STATES = ("proposed", "asleep", "awake", "waiting", "paused", "retired", "frozen")


def routes() -> list[Route]:
    from starlette.routing import Route

    return [
        Route("/", agents_page, methods=["GET"]),
        Route("/heinzel/{name}", agent_page, methods=["GET"]),
        Route("/drafts", drafts_page, methods=["GET"]),
        Route("/graph", graph_page, methods=["GET"]),
        Route("/graph.css", graph_css, methods=["GET"]),
        Route("/why", why_page, methods=["GET"]),
    ]


def context(request: Request) -> Context:
    found: Context = request.app.state.context
    return found


def guarded(request: Request, draw: Callable[[], Response]) -> Response:
    """A foreseeable error (an unknown agent, a bad filter) is a page that says it, not a traceback."""
    from hz.web.operations import status_of
    from hz.web.render import error_page

    try:
        return draw()
    except HzError as error:
        return error_page(request, error, status_of(error))


def agents_page(request: Request) -> Response:
    from hz.ops.agents import list_agents
    from hz.ops.models_agents import ListRequest
    from hz.web.render import page

    query = request.query_params
    state = query.get("state") or None
    filters = {
        "state": state if state in STATES else None,
        "artifact": query.get("artifact") or None,
        "contract": query.get("contract") or None,
        "everywhere": query.get("all") == "1",
    }

    def draw() -> Response:
        result = list_agents(context(request), ListRequest(**filters))  # type: ignore[arg-type]
        return page(request, "list.html", title="My Heinzelmännchen", agents=result["agents"], filters=filters,
                    states=STATES, stream="/events/list")  # fmt: skip

    return guarded(request, draw)


def agent_page(request: Request) -> Response:
    """The latest `TIMELINE` turns, older ones a page at a time (`?before=SEQ`), or all (`?turns=all`)."""
    from hz.ops.contract_text import ContractRequest, contract_text
    from hz.ops.models_agents import ShowRequest
    from hz.ops.show import show_agent
    from hz.web.render import page

    name = request.path_params["name"]
    every = request.query_params.get("turns") == "all"
    before = request.query_params.get("before", "")
    older = int(before) if before.isdigit() and len(before) < 19 and not every else None

    def draw() -> Response:
        ctx = context(request)
        shown = ShowRequest(name=name, turns=None if every else TIMELINE, before=older)
        agent = show_agent(ctx, shown)["agent"]
        texts = contract_text(ctx, ContractRequest(name=agent["id"]))
        return page(request, "agent.html", title=f"{agent['namespace']}:{agent['name']}", agent=agent,
                    contract=texts, chat=agent["chat"], stream=f"/events/heinzel/{agent['id']}",
                    seq=agent["spine"]["last_seq"] or 0, timeline=agent["timeline"], newer=older is not None,
                    older=agent["timeline_older"])  # fmt: skip

    return guarded(request, draw)


def drafts_page(request: Request) -> Response:
    from hz.web.page_streams import drafts_result, stream_url
    from hz.web.render import page

    def draw() -> Response:
        result = drafts_result(context(request))
        return page(request, "drafts.html", title="Drafts", result=result,
                    stream=stream_url("/events/drafts", {}, result))  # fmt: skip

    return guarded(request, draw)


def graph_page(request: Request) -> Response:
    """`hz graph --html` grown into a page of the app: the same drawing and cards (with the runs, their
    actors, dispositions and costs, and the pending drafts), then the outputs drafted and published."""
    import importlib

    from hz import graph_html
    from hz.web.page_streams import stream_url
    from hz.web.render import page

    def draw() -> Response:
        ops = importlib.import_module("hz.ops.graph")
        loaded = ops.load(context(request), observed=True)
        seen = loaded.seen
        assert seen is not None
        titles = {c.qualified_name: c.contract.frontmatter.hz.title for c in loaded.compiled.contracts if c.contract}
        writes = sorted(seen.writes, key=lambda w: (w.contract, w.asset))
        stream = stream_url("/events/graph", {}, ops.as_data(loaded))  # what `page_streams.graph_result` reads
        return page(request, "graph.html", title="Graph", parts=graph_html.drawing(loaded.graph, titles, seen),
                    state=graph_html.state_line(seen), writes=writes, stream=stream)  # fmt: skip

    return guarded(request, draw)


def graph_css(request: Request) -> Response:
    from starlette.responses import Response

    from hz.graph_html import DRAWING_STYLE

    return Response(DRAWING_STYLE, media_type="text/css")


def why_page(request: Request) -> Response:
    from hz.web.page_streams import stream_url, why_result
    from hz.web.render import page

    contract = request.query_params.get("contract") or ""
    slot = request.query_params.get("slot") or None

    def draw() -> Response:
        if not contract:
            return page(request, "why.html", title="Why", result=None, contract=contract, slot="")
        result = why_result(context(request), contract, slot)
        stream = stream_url("/events/why", {"contract": contract, **({"slot": slot} if slot else {})}, result)
        return page(request, "why.html", title="Why", result=result, contract=contract, slot=slot or "",
                    stream=stream)  # fmt: skip

    return guarded(request, draw)
