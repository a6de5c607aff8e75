"""An answer's JSON, with its nesting bounded: measured by a loop, never by recursion.

orjson parses up to 1024 levels; every reader after it (the secret scrubber, pydantic, the canonical
JSON of a record) walks what it gets, and a value 600 levels deep costs a 1.2 KB answer. No API hz
reads nests past a few dozen levels (Jira's rich text is the deepest), so a deeper one is refused whole.
"""

from __future__ import annotations

from typing import Any

MAX_DEPTH = 100


class NotJson(ValueError):
    """The bytes are no JSON document."""


class TooDeep(ValueError):
    """The document nests deeper than allowed."""


def loads(data: bytes, max_depth: int = MAX_DEPTH) -> Any:
    """The JSON value of `data`; NotJson or TooDeep instead of anything else."""
    import orjson

    try:
        value = orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        said = str(exc).lower()
        if "depth" in said or "recursion" in said:  # past orjson's own limit (1024), which is above ours
            raise TooDeep from None
        raise NotJson from None
    if depth_over(value, max_depth):
        raise TooDeep
    return value


def depth_over(value: Any, limit: int) -> bool:
    """Whether `value` has containers nested more than `limit` deep (a bare scalar is depth 0)."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else None
        if children is None:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children if isinstance(child, dict | list))
    return False
