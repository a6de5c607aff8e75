"""`policies/auto-approve.toml`: the only place that can turn a contract's `auto_approve` request into a grant.

    [policy.weekly-digest-to-state]     # the id a publish names in `auto_approve`
    owner = "@alice"                    # must equal the contract's hz.owner
    action = "state.file.write"         # must equal the publish action
    scope = "team"                      # the contract's hz.scope, or a glob over the publish target as written
                                        # (a target has a ':', a scope never: "state:reports/*.md")
    expires = 2027-06-30                # a TOML date (inclusive, UTC) or an offset date-time; required
    contracts = ["team:weekly-digest"]  # optional: only these qualified names may use it

A policy without `expires` is refused: grants that never lapse are how auto-approval outlives intent.
Validation (HZC018) and the runtime decision (hz.review.policy) ask the same `Policies.refusal`.
"""

from __future__ import annotations

import fnmatch
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

POLICY_FILE = Path("policies") / "auto-approve.toml"
_KEYS = {"owner", "action", "scope", "expires", "contracts"}
_HANDLE = re.compile(r"^@[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$")


@dataclass(frozen=True)
class Policy:
    id: str
    owner: str
    action: str
    scope: str
    expires: datetime  # the first instant the policy is dead
    contracts: tuple[str, ...] = ()


@dataclass(frozen=True)
class Policies:
    policies: Mapping[str, Policy]
    problem: str | None = None  # why the file could not be read, when it could not

    def refusal(
        self, policy_id: str, *, contract: str, owner: str, action: str, scope: str, target: str, now: datetime
    ) -> str | None:
        """Why `policy_id` does not grant this publish, or None when it does."""
        if self.problem is not None:
            return f"{POLICY_FILE.as_posix()} cannot be used: {self.problem}"
        policy = self.policies.get(policy_id)
        if policy is None:
            return f"no policy '{policy_id}' in {POLICY_FILE.as_posix()}"
        if now >= policy.expires:
            return f"policy '{policy_id}' expired at {policy.expires.isoformat()}"
        for key, wanted, have in (
            ("owner", policy.owner, owner),
            ("action", policy.action, action),
            ("scope", policy.scope, scope),
        ):
            if key == "scope" and ":" in wanted:  # a target glob
                if not fnmatch.fnmatchcase(target, wanted):
                    return f"policy '{policy_id}' covers targets {wanted}, not {target}"
            elif wanted != have:
                return f"policy '{policy_id}' is for {key} {wanted}, not {have}"
        if policy.contracts and contract not in policy.contracts:
            return f"policy '{policy_id}' is limited to {', '.join(policy.contracts)}"
        return None


def warning(policy_id: str, refusal: str) -> tuple[str, str]:
    """HZC018's message and hint for a refused `auto_approve` request: the same at validation and at runtime."""
    hint = f"add or renew [policy.{policy_id}] in {POLICY_FILE.as_posix()}, or drop auto_approve"
    return f"{refusal}; publishing falls back to manual approval", hint


def load_policies(root: Path) -> Policies:
    """The policies of the repository at `root`; a missing file is no policies, a broken one a problem."""
    from hz.repo_paths import read_file

    path = root / POLICY_FILE
    if not path.is_file():
        return Policies({})
    raw = read_file(root, POLICY_FILE.as_posix())  # the path rule: no link into .git or out, bounded
    if not isinstance(raw, bytes):
        return Policies({}, problem=f"{POLICY_FILE.as_posix()} {raw.reason}")
    return parse_policies(raw)


def parse_policies(raw: bytes) -> Policies:
    """The policies in the bytes of a policy file (read from disk, or from a commit of `main`)."""
    try:
        data = tomllib.loads(raw.decode("utf-8"))
        return Policies(_parse(data))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError, ValueError, RecursionError) as exc:
        return Policies({}, problem=str(exc))


def _parse(data: Mapping[str, Any]) -> dict[str, Policy]:
    unknown = set(data) - {"policy"}
    if unknown:
        raise ValueError(f"unknown top-level key {sorted(unknown)[0]!r}; policies go under [policy.<id>]")
    tables = data.get("policy", {})
    if not isinstance(tables, dict):
        raise ValueError("`policy` must be a table of [policy.<id>] tables")
    return {policy_id: _policy(policy_id, table) for policy_id, table in tables.items()}


def _policy(policy_id: str, table: Any) -> Policy:
    if not isinstance(table, dict):
        raise ValueError(f"[policy.{policy_id}] must be a table")
    if extra := set(table) - _KEYS:
        raise ValueError(f"[policy.{policy_id}] has an unknown key {sorted(extra)[0]!r}")
    for key in ("owner", "action", "scope"):
        if not isinstance(table.get(key), str):
            raise ValueError(f"[policy.{policy_id}] needs {key} as a string")
    if not _HANDLE.match(table["owner"]):
        raise ValueError(f"[policy.{policy_id}] needs owner as an @handle such as @alice")
    contracts = table.get("contracts", [])
    if not isinstance(contracts, list) or not all(isinstance(c, str) for c in contracts):
        raise ValueError(f"[policy.{policy_id}] contracts must be a list of qualified names")
    return Policy(
        policy_id,
        table["owner"],
        table["action"],
        table["scope"],
        _expiry(policy_id, table.get("expires")),
        tuple(contracts),
    )


def _expiry(policy_id: str, value: Any) -> datetime:
    if isinstance(value, datetime):
        return value if value.tzinfo is not None else value.replace(tzinfo=UTC)
    if isinstance(value, date):  # inclusive: dead from the start of the next day, UTC
        return datetime(value.year, value.month, value.day, tzinfo=UTC) + timedelta(days=1)
    raise ValueError(f"[policy.{policy_id}] needs expires as a TOML date such as 2027-06-30")
