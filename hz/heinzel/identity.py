"""Who a Heinzelmännchen is: an id minted once (`hz-` + a ULID), a slug name unique per namespace."""

from __future__ import annotations

import re
from collections.abc import Mapping

from hz.errors import HzError

NAME = re.compile(r"^[a-z][a-z0-9]*(-[a-z0-9]+)*$")
ID = re.compile(r"hz-[0-9A-HJKMNP-TV-Z]{26}")  # `hz-` and a ULID in Crockford's base 32
NAMESPACES = ("me", "project", "team")
# A contract's layer decides the namespace of the agent that keeps it.
NAMESPACE_OF_SCOPE: Mapping[str, str] = {"personal": "me", "team": "team"}


class BadName(HzError):
    """A name that is not a slug, or one already taken in its namespace."""


def new_agent_id() -> str:
    """A fresh id; ULIDs carry 80 random bits per millisecond, so an id is never minted twice."""
    from ulid import ULID

    return f"hz-{ULID()}"


class BadAgentId(HzError):
    """A value given as a Heinzelmännchen id that does not have an id's shape."""


def check_agent_id(value: str) -> str:
    if not ID.fullmatch(value):
        shown = value if len(value) <= 40 else f"{value[:40]}…"
        raise BadAgentId(f"{shown!r} is not a Heinzelmännchen id",
                         hint="ids look like hz-01JB… (26 characters); hz heinzel list shows them")  # fmt: skip
    return value


def check_name(name: str) -> str:
    if len(name) > 64 or not NAME.match(name):
        raise BadName(
            f"{name!r} is not a valid name",
            hint="use lower-case letters, digits and single dashes, starting with a letter (at most 64)",
        )
    return name


def check_namespace(namespace: str) -> str:
    if namespace not in NAMESPACES:
        raise BadName(f"unknown namespace {namespace!r}", hint=f"one of: {', '.join(NAMESPACES)}")
    return namespace
