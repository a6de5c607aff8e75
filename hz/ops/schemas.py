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
    return compact(_adapter(operation.request).json_schema())


def result_schema(operation: Operation) -> dict[str, Any]:
    return compact(_adapter(operation.result).json_schema(mode="serialization"))


def compact(schema: dict[str, Any]) -> dict[str, Any]:
    """The same schema in the shape validators check fastest: each `$ref` replaced by its definition (no
    type here refers to itself), and a nullable scalar as `"type": [T, "null"]` rather than an `anyOf`.

    A client validates every structured result against the output schema; with pydantic's shape a list of
    500 agents took the `jsonschema` package about twice as long as with this one.
    """
    definitions = schema.get("$defs", {})

    def walk(node: Any) -> Any:
        if isinstance(node, list):
            return [walk(item) for item in node]
        if not isinstance(node, dict):
            return node
        if "$ref" in node:
            return walk(
                {**definitions[node["$ref"].rsplit("/", 1)[-1]], **{k: v for k, v in node.items() if k != "$ref"}}
            )
        found = {key: walk(value) for key, value in node.items() if key != "$defs"}
        options = found.get("anyOf")
        if isinstance(options, list) and len(options) == 2 and {"type": "null"} in options:
            other = options[0] if options[1] == {"type": "null"} else options[1]
            if set(other) == {"type"} and isinstance(other["type"], str):
                del found["anyOf"]
                found["type"] = [other["type"], "null"]
        return found

    compacted: dict[str, Any] = walk(schema)
    return compacted


def parse_request(operation: Operation, arguments: dict[str, Any] | None) -> Any:
    """The request from a client's JSON arguments; pydantic.ValidationError when they do not fit."""
    return _adapter(operation.request).validate_python(arguments or {})


def check_result(operation: Operation, result: Any) -> Any:
    """The result, validated against its type (a bug in an operation shows here, not in a client)."""
    return _adapter(operation.result).validate_python(result)
