"""Who am I, as a runner of team contracts: a member's handle, or a GitHub Actions run."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass

from hz.errors import HzError

_HANDLE = re.compile(r"^@?([A-Za-z0-9](?:[A-Za-z0-9-]{0,38}))$")
_RUN_ID = re.compile(r"^[0-9]{1,20}$")


class NoIdentity(HzError):
    """hz does not know which member (or which Actions run) is acting."""


@dataclass(frozen=True)
class Identity:
    holder: str  # what a lease records: `@handle` or `actions:<run id>`
    handle: str | None  # the member's `@handle`; None for an Actions run
    in_actions: bool

    def role_for(self, owner: str | None, maintainers: tuple[str, ...] = ()) -> str | None:
        """owner, delegate or actions for a contract with this owner and maintainers; None: not allowed."""
        if self.in_actions:
            return "actions"
        if owner is None or self.handle == normalize_handle(owner):
            return "owner"
        if self.handle in {normalize_handle(m) for m in maintainers}:
            return "delegate"
        return None


def normalize_handle(value: str) -> str:
    match = _HANDLE.match(value.strip())
    if not match:
        raise NoIdentity(f"not a handle: {value!r}", hint="a handle looks like @priya (letters, digits, dashes)")
    return "@" + match.group(1)


def whoami(environ: Mapping[str, str] = os.environ, handle: str | None = None) -> Identity:
    """In GitHub Actions (`GITHUB_ACTIONS=true`) the holder is `actions:<GITHUB_RUN_ID>`; otherwise the
    member's handle: `HZ_HANDLE`, else `handle` (the user config's `[user] handle`)."""
    if environ.get("GITHUB_ACTIONS") == "true":
        run_id = environ.get("GITHUB_RUN_ID", "")
        if not _RUN_ID.match(run_id):
            raise NoIdentity("GITHUB_ACTIONS is set but GITHUB_RUN_ID is not a run id")
        return Identity(f"actions:{run_id}", None, True)
    value = environ.get("HZ_HANDLE") or handle
    if not value:
        raise NoIdentity(
            "no handle: hz does not know who you are",
            hint='set [user] handle = "@you" in config.toml, or HZ_HANDLE',
        )
    member = normalize_handle(value)
    return Identity(member, member, False)
