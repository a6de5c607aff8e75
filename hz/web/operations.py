"""How a head calls an operation by name: the arguments validated into its request, the function run.

A request that does not validate is an `HzError` that names the field, like a bad option on the CLI.
"""

from __future__ import annotations

from typing import Any

from hz.errors import HzError
from hz.ops import Context


class BadRequest(HzError):
    """Arguments that do not fit the operation's request."""


class UnknownOperation(HzError):
    """No operation of that name."""


NOT_FOUND = frozenset({"UnknownAgent", "UnknownHeinzel", "UnknownOperation"})


def status_of(error: HzError) -> int:
    """The HTTP status of a foreseeable error: 404 for something that is not there, else 400."""
    if isinstance(error, BadRequest):
        return 422
    return 404 if type(error).__name__ in NOT_FOUND else 400


def call(ctx: Context, name: str, arguments: dict[str, Any]) -> Any:
    from pydantic import ValidationError

    from hz.ops.registry import OPERATIONS
    from hz.ops.schemas import parse_request

    operation = OPERATIONS.get(name)
    if operation is None:
        raise UnknownOperation(f"no operation {name!r}")
    try:
        request = parse_request(operation, arguments)
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "the request"
        raise BadRequest(f"{name}: {where}: {first['msg']}") from None
    return operation.run(ctx, request)
