"""The pages' forms (POST): each one calls one operation of `hz.ops` and goes back to a page (303).

The guard has checked the origin and the CSRF token before any of this runs. A form's fields become the
operation's request through the same validation REST uses (`hz.ops.schemas.parse_request`), so a page
can ask nothing the API could not. An operation that runs a turn (chat, wake, retry, resume) may take
as long as a model does: it runs on a worker thread, and the answer waits for it only `WAIT_S`; after
that the person goes back to the agent's page, where the stream shows the turn as it goes.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, quote

from hz.errors import HzError

if TYPE_CHECKING:
    from starlette.requests import Request
    from starlette.responses import Response
    from starlette.routing import Route

WAIT_S = 2.0
Fields = Callable[[Mapping[str, str], Mapping[str, str]], dict[str, Any]]  # (path params, form) -> arguments


def _name(path: Mapping[str, str], form: Mapping[str, str]) -> dict[str, Any]:
    return {"name": path["name"]}


def _chat(path: Mapping[str, str], form: Mapping[str, str]) -> dict[str, Any]:
    return {"name": path["name"], "message": form.get("text", ""), "after": form.get("after") == "1"}


def _answer(path: Mapping[str, str], form: Mapping[str, str]) -> dict[str, Any]:
    return {"name": path["name"], "key": form.get("key") or None, "answer": form.get("text", "")}


def _retry(path: Mapping[str, str], form: Mapping[str, str]) -> dict[str, Any]:
    return {"name": path["name"], "hint": form.get("hint") or "try again"}


def _dismiss(path: Mapping[str, str], form: Mapping[str, str]) -> dict[str, Any]:
    return {"name": path["name"], "lesson": path["lesson"]}


def _item(path: Mapping[str, str], form: Mapping[str, str]) -> dict[str, Any]:
    return {"item": form.get("item", "")}


def _key(path: Mapping[str, str], form: Mapping[str, str]) -> dict[str, Any]:
    return {"key": form.get("item", "")}


# path -> (operation, how its request is built, whether it runs a turn, what the page says after it)
FORMS: dict[str, tuple[str, Fields, bool, str]] = {
    "/heinzel/{name}/chat": ("heinzel_chat", _chat, True, "sent"),
    "/heinzel/{name}/answer": ("answer", _answer, True, "answered"),
    "/heinzel/{name}/wake": ("heinzel_wake", _name, True, "woken"),
    "/heinzel/{name}/retry": ("heinzel_retry", _retry, True, "retried"),
    "/heinzel/{name}/resume": ("heinzel_resume", _name, True, "resumed"),
    "/heinzel/{name}/stop": ("heinzel_stop", _name, False, "stopped"),
    "/heinzel/{name}/lessons/{lesson}/dismiss": ("lessons_dismiss", _dismiss, False, "dismissed"),
    "/approve": ("approve", _item, False, "approved"),
    "/reject": ("reject", _key, False, "rejected"),
}
NOTICES = {
    "sent": "sent: it steers the running turn, or starts a turn of its own",
    "answered": "answered",
    "woken": "woken",
    "retried": "retried",
    "resumed": "resumed",
    "stopped": "asked to stop",
    "dismissed": "lesson dismissed",
    "approved": "approved",
    "rejected": "rejected",
    "working": "working on it: this page shows the turn as it goes",
    "proposed": "proposed: read its contract below, then approve it",
}


def routes() -> list[Route]:
    from starlette.routing import Route

    return [Route(path, _endpoint(path, *spec), methods=["POST"]) for path, spec in FORMS.items()]


def _endpoint(path: str, operation: str, fields: Fields, runs_turn: bool, done: str) -> Callable[..., Any]:
    async def endpoint(request: Request) -> Response:
        from starlette.responses import RedirectResponse

        from hz.web.operations import status_of
        from hz.web.render import error_page

        form = {k: v[0] for k, v in parse_qs((await request.body()).decode("utf-8", errors="replace")).items()}
        back = _back(request, form)
        try:
            finished = await _run(request, operation, fields(request.path_params, form), runs_turn)
        except HzError as error:
            return error_page(request, error, status_of(error))
        notice = done if finished else "working"
        return RedirectResponse(f"{back}?notice={quote(notice)}", status_code=303)

    endpoint.__name__ = f"form_{operation}"
    return endpoint


def _back(request: Request, form: Mapping[str, str]) -> str:
    """Where to go after the form: the agent's page, or a page of this site named by the form (never
    another site: only a path that starts with one `/`)."""
    if "name" in request.path_params:
        return f"/heinzel/{quote(request.path_params['name'], safe='')}"
    back = form.get("back", "/")
    return back if back.startswith("/") and not back.startswith("//") and "\\" not in back else "/"


async def _run(request: Request, operation: str, arguments: dict[str, Any], runs_turn: bool) -> bool:
    """Run the operation on a worker thread; True when it finished (a turn gets `WAIT_S`)."""
    from hz.web.operations import call

    loop = asyncio.get_running_loop()
    pool = request.app.state.pool
    future = loop.run_in_executor(pool, call, request.app.state.context, operation, arguments)
    if not runs_turn:
        await future
        return True
    try:
        await asyncio.wait_for(asyncio.shield(future), WAIT_S)
    except TimeoutError:
        return False
    return True
