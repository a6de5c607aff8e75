"""Drawing a page: one Jinja2 environment with autoescape on for every template, and the page helpers.

Autoescape is on whatever a template's name ends with, so contract text, model output and names reach a
page as text. Templates never see secrets: the CSRF token is the only derived value they print, and it
is no credential on its own (it needs the cookie beside it, which a page's script cannot read).
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hz.errors import HzError

if TYPE_CHECKING:
    import jinja2
    from starlette.requests import Request
    from starlette.responses import HTMLResponse

TEMPLATES = Path(__file__).parent / "templates"
STATIC = Path(__file__).parent / "static"


@cache
def environment() -> jinja2.Environment:
    import jinja2

    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    from hz.ops.conversation import FATE_WORDS

    env.filters["fate"] = lambda value: FATE_WORDS.get(str(value), str(value))
    env.filters["usd"] = lambda value: f"{float(value or 0):.2f}"
    env.filters["when"] = lambda value: str(value or "")[:16].replace("T", " ") if value else "-"
    return env


def page(request: Request, template: str, status: int = 200, **values: Any) -> HTMLResponse:
    from starlette.responses import HTMLResponse

    from hz.secrets import scrub
    from hz.web.actions import NOTICES

    keys = request.app.state.keys
    notice = NOTICES.get(request.query_params.get("notice", ""))  # a known word only, never the query's text
    text = environment().get_template(template).render(csrf=keys.csrf(), path=request.url.path, notice=notice, **values)
    text = scrub(text)
    return HTMLResponse(text, status_code=status)


def error_page(request: Request, error: HzError, status: int = 400) -> HTMLResponse:
    return page(request, "error.html", status, title="error", message=error.message, hint=error.hint)
