"""REST under /api/v1: every operation of `hz.ops.registry` at `/api/v1/<name>` (the MCP tool's name),
GET with query parameters for a read-only one, POST with a JSON object for the rest, and the OpenAPI
document generated from the same request and result types at `/api/v1/openapi.json`.

Answers are the operation's result as JSON (with `schema_version`); a foreseeable error is
`{"error": …, "hint": …}` with 400 (404 for an unknown agent, 422 for arguments that do not fit).
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING, Any

from hz.errors import HzError

if TYPE_CHECKING:
    from starlette.requests import Request
    from starlette.responses import Response
    from starlette.routing import Route

    from hz.ops.registry import Operation

PREFIX = "/api/v1"
MAX_QUERY_VALUES = 32


def routes() -> list[Route]:
    from starlette.routing import Route

    from hz.ops.registry import OPERATIONS

    found = [Route(f"{PREFIX}/openapi.json", openapi, methods=["GET"])]
    for operation in OPERATIONS.values():
        method = "GET" if operation.read_only else "POST"
        found.append(Route(f"{PREFIX}/{operation.name}", _endpoint(operation), methods=[method]))
    return found


def _endpoint(operation: Operation) -> Any:
    async def endpoint(request: Request) -> Response:
        from starlette.concurrency import run_in_threadpool

        from hz.web.operations import call, status_of

        try:
            arguments = _query(request) if operation.read_only else await _json(request)
            result = await run_in_threadpool(call, request.app.state.context, operation.name, arguments)
        except HzError as error:
            return _error(error, status_of(error))
        return _json_response(result)

    endpoint.__name__ = f"api_{operation.name}"
    return endpoint


def _query(request: Request) -> dict[str, Any]:
    """Query parameters as the request's fields: `true`/`false` become booleans, digits numbers
    (pydantic then checks each against the field's type)."""
    items = list(request.query_params.multi_items())[:MAX_QUERY_VALUES]
    found: dict[str, Any] = {}
    for key, value in items:
        found[key] = {"true": True, "false": False}.get(value, int(value) if value.isascii() and value.isdigit()
                                                         and len(value) < 10 else value)  # fmt: skip
    return found


async def _json(request: Request) -> dict[str, Any]:
    import json

    from hz.web.operations import BadRequest

    body = await request.body()
    if not body.strip():
        return {}
    try:
        found = json.loads(body)
    except (ValueError, RecursionError):
        raise BadRequest("the body is not JSON") from None
    if not isinstance(found, dict):
        raise BadRequest("the body must be a JSON object of the operation's arguments")
    return found


def _json_response(data: Any, status: int = 200) -> Response:
    import json

    from starlette.responses import Response

    from hz.secrets import scrub

    text = scrub(json.dumps(data, ensure_ascii=False, default=str))
    return Response(text, status_code=status, media_type="application/json")


def _error(error: HzError, status: int) -> Response:
    return _json_response({"error": error.message, "hint": error.hint}, status)


async def openapi(request: Request) -> Response:
    return _json_response(document())


@cache
def document() -> dict[str, Any]:
    """The OpenAPI 3.1 document of every operation, from the pydantic schemas of its request and result."""
    from pydantic import TypeAdapter

    from hz.ops.registry import OPERATIONS

    components: dict[str, Any] = {}
    paths: dict[str, Any] = {}
    for op in OPERATIONS.values():
        request = _schema(TypeAdapter(op.request).json_schema(ref_template="#/components/schemas/{model}"), components)
        result = _schema(
            TypeAdapter(op.result).json_schema(mode="serialization", ref_template="#/components/schemas/{model}"),
            components,
        )
        entry: dict[str, Any] = {
            "operationId": op.name,
            "summary": op.title,
            "description": f"{op.summary}\n\nOn the command line: `{op.cli}`.",
            "responses": {
                "200": {"description": op.title, "content": {"application/json": {"schema": result}}},
                "400": {"$ref": "#/components/responses/Error"},
                "401": {"$ref": "#/components/responses/Error"},
                "422": {"$ref": "#/components/responses/Error"},
            },
        }
        if op.read_only:
            entry["parameters"] = [
                {"name": name, "in": "query", "required": name in request.get("required", []), "schema": prop}
                for name, prop in request.get("properties", {}).items()
            ]
            paths[f"{PREFIX}/{op.name}"] = {"get": entry}
        else:
            entry["requestBody"] = {"required": True, "content": {"application/json": {"schema": request}}}
            paths[f"{PREFIX}/{op.name}"] = {"post": entry}
    error = {"type": "object", "properties": {"error": {"type": "string"}, "hint": {"type": ["string", "null"]}}}
    return {
        "openapi": "3.1.0",
        "info": {"title": "hz", "version": "1", "description": "The operations of hz over HTTP, behind a token."},
        "servers": [{"url": "/"}],
        "security": [{"bearer": []}, {"cookie": []}],
        "paths": paths,
        "components": {
            "schemas": components,
            "responses": {
                "Error": {"description": "a foreseeable error", "content": {"application/json": {"schema": error}}}
            },
            "securitySchemes": {
                "bearer": {"type": "http", "scheme": "bearer", "description": "the token in $HZ_HOME/web/token"},
                "cookie": {"type": "apiKey", "in": "cookie", "name": "hz_session_<port>"},
            },
        },
    }


def _schema(schema: dict[str, Any], components: dict[str, Any]) -> dict[str, Any]:
    components.update(schema.pop("$defs", {}))
    return schema
