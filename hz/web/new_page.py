"""The page form for `new` (`/new`): propose a Heinzelmännchen from a contract's text or from a sentence.

GET draws the form; POST (behind the guard's origin and CSRF checks, like every form) runs the `heinzel_new`
operation, the one `hz heinzel new` calls, with the form's fields validated as REST validates them. A
proposal goes to the new agent's page, which shows its contract to read before approving it. A refusal
(a contract that does not compile, a name taken) draws the form again with the error and hint above it
and every field as it was sent, so a long contract text is never lost to a typo.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, quote

from hz.errors import HzError

if TYPE_CHECKING:
    from starlette.requests import Request
    from starlette.responses import Response
    from starlette.routing import Route

NAMESPACES = ("me", "project", "team")


def routes() -> list[Route]:
    from starlette.routing import Route

    return [Route("/new", new_form, methods=["GET"]), Route("/new", propose, methods=["POST"])]


def arguments(form: Mapping[str, str]) -> dict[str, Any]:
    """The operation's request from the form: a contract's text, or a sentence when only that is given."""
    contract, say = form.get("contract", ""), form.get("say", "")
    found: dict[str, Any] = {"name": form.get("name", "").strip(), "namespace": form.get("namespace") or "me"}
    if contract.strip() or not say.strip():
        found["contract"] = contract.replace("\r\n", "\n")  # a browser sends a textarea's lines with CR LF
        found["source"] = "the web page"
    else:
        found["say"] = say.strip()
    return found


def new_form(request: Request, *, fields: Mapping[str, str] | None = None, error: HzError | None = None,
             status: int = 200) -> Response:  # fmt: skip
    from hz.web.render import page

    return page(request, "new.html", status, title="New Heinzelmännchen", fields=dict(fields or {}),
                namespaces=NAMESPACES, error=error)  # fmt: skip


async def propose(request: Request) -> Response:
    from starlette.concurrency import run_in_threadpool
    from starlette.responses import RedirectResponse

    from hz.web.operations import call, status_of

    form = {k: v[0] for k, v in parse_qs((await request.body()).decode("utf-8", errors="replace")).items()}
    try:
        result = await run_in_threadpool(call, request.app.state.context, "heinzel_new", arguments(form))
    except HzError as error:
        return new_form(request, fields=form, error=error, status=status_of(error))
    return RedirectResponse(f"/heinzel/{quote(result['id'], safe='')}?notice=proposed", status_code=303)
