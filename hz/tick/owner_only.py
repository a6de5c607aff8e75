"""Team contracts where the repository has no `[state]` in `hz.toml`: only the owner's machine runs them.

Without `[state]` there are no leases and no receipts, so nothing would stop every member's tick from
running every team contract, members or not. The rule is then the one each machine can decide alone:
the member whose handle is the contract's owner runs it; everyone else skips the wake with the reason
`not-owner`, which costs no model call and settles only that wake's keys here. A later `[state]` does
not look at those keys: it takes over from the next slot on, and the slots skipped here were the
owner's to run (nobody else's machine ever will).

A machine with no handle configured cannot tell whether it is the owner, so it runs no team contract:
running would bring back the very double runs this rule prevents. Each machine says so once per agent:
the first `not-owner` skip in the agent's own spine is the marker, so the notice and the skip are one
atomic line and can never disagree.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from hz.gitstate.identity import member_handle
from hz.session.envelope import Envelope
from hz.turn.plan import Plan

NOT_OWNER = "not-owner"
"""The action of the tick entry, and the reason of the local `turn.skipped` line."""

RULE = "team contracts run on their owner's machine without [state] in hz.toml"
_STATE_HINT = "add a [state] table to hz.toml (an empty one will do) so members share team slots through leases"
_HANDLE_HINT = 'if you own it, set [user] handle = "@you" in config.toml (or HZ_HANDLE); else '


def my_handle(environ: Mapping[str, str]) -> str | None:
    """This member's handle (`HZ_HANDLE`, else the user config's `[user] handle`), normalized."""
    from hz.config import load_user_config

    return load_user_config(environ).handle


def owner_of(plan: Plan) -> str | None:
    """The contract's owner as a member's handle; None when it names none (a team such as `@acme/platform`)."""
    hz = getattr(getattr(plan.contract, "frontmatter", None), "hz", None)
    owner = getattr(hz, "owner", None)
    return member_handle(str(owner)) if owner else None


def runs_here(plan: Plan, handle: str | None) -> bool:
    owner = owner_of(plan)
    return handle is not None and owner is not None and member_handle(handle) == owner


def told(events: Iterable[Envelope]) -> bool:
    """Whether this agent's spine already holds a `not-owner` skip: the user has been told."""
    return any(e.kind == "turn.skipped" and e.data.get("reason") == NOT_OWNER for e in events)


def notice(agent: str, plan: Plan, handle: str | None) -> dict[str, Any]:
    """The tick's entry for the first skipped wake: who owns it, who this machine is, what to do."""
    owner = owner_of(plan)
    you = f"you are {handle}" if handle else "no handle is set here"
    hint = _STATE_HINT if handle else _HANDLE_HINT + _STATE_HINT
    return {"agent": agent, "action": NOT_OWNER, "reason": RULE, "owner": owner, "handle": handle,
            "detail": f"its owner is {owner or 'no member'}, {you}", "hint": hint}  # fmt: skip
