"""Who a Heinzelmännchen is: an id minted once (`hz-` + a ULID), a slug name unique per namespace."""

from __future__ import annotations

import re
from collections.abc import Mapping

from hz.errors import HzError

NAME = re.compile(r"^[a-z][a-z0-9]*(-[a-z0-9]+)*$")
NAMESPACES = ("me", "project", "team")
# A contract's layer decides the namespace of the agent that keeps it.
NAMESPACE_OF_SCOPE: Mapping[str, str] = {"personal": "me", "team": "team"}


class BadName(HzError):
    """A name that is not a slug, or one already taken in its namespace."""


def new_agent_id() -> str:
    """A fresh id; ULIDs carry 80 random bits per millisecond, so an id is never minted twice."""
    from ulid import ULID

    return f"hz-{ULID()}"


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
