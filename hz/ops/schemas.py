"""JSON Schemas and validation of the operations' requests and results, by pydantic (imported here only).

A head that speaks JSON to others (MCP, REST) takes its input and output schemas from here and validates
what comes in; the CLI never needs this module.
"""

from __future__ import annotations

from typing import Any

from pydantic import TypeAdapter

from hz.ops.registry import Operation

_ADAPTERS: dict[type[Any], TypeAdapter[Any]] = {}


def _adapter(tp: type[Any]) -> TypeAdapter[Any]:
    """Built once per type: a TypeAdapter takes milliseconds to build and microseconds to use."""
    if tp not in _ADAPTERS:
        _ADAPTERS[tp] = TypeAdapter(tp)
    return _ADAPTERS[tp]


def request_schema(operation: Operation) -> dict[str, Any]:
    return _adapter(operation.request).json_schema()


def result_schema(operation: Operation) -> dict[str, Any]:
    return _adapter(operation.result).json_schema(mode="serialization")


def parse_request(operation: Operation, arguments: dict[str, Any] | None) -> Any:
    """The request from a client's JSON arguments; pydantic.ValidationError when they do not fit."""
    return _adapter(operation.request).validate_python(arguments or {})


def check_result(operation: Operation, result: Any) -> Any:
    """The result, validated against its type (a bug in an operation shows here, not in a client)."""
    return _adapter(operation.result).validate_python(result)
