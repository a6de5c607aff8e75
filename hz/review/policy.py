"""Auto-approval at runtime: may one publish of a draft run before a person approves the draft?

A contract's `auto_approve: <id>` is a request. It is granted only when all of these hold:
- `policies/auto-approve.toml` ON THE TEAM'S MAIN (not a member's work tree, where anyone can write
  one) has a live policy with that id whose owner, action and scope match (`Policies.refusal`, the
  very check validation reports as HZC018);
- the draft is not the first proposal after the contract fingerprint changed: after any change to
  intent, the next proposal goes to a person;
- the draft is no correction (a proposal for a job key that was published already).

What a grant allows, and nothing more: that one publish action runs on the draft's text as placed,
without waiting for the merge, under the same publish key as after a merge, so it runs once either
way. The draft's branch and pull request, `approval.observed` and the draft's other publishes still wait
for a person; `approval.observed` is never written for an auto-approved draft.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from hz.contract.policy import POLICY_FILE, Policies, parse_policies, warning
from hz.gitenv import git_env
from hz.review.publish import contract_id

if TYPE_CHECKING:
    from hz.gitstate.events import Event


class Requested(Protocol):
    """A publish with its request (hz.contract.model.Publish)."""

    @property
    def action(self) -> str: ...

    @property
    def target(self) -> str: ...

    @property
    def auto_approve(self) -> str | None: ...


@dataclass(frozen=True)
class Asker:
    """Who asks: the contract's qualified name, owner and scope, as on main."""

    contract: str
    owner: str
    scope: str


@dataclass(frozen=True)
class Decision:
    granted: bool
    reason: str
    hzc018: tuple[str, str] | None = None  # (message, hint) when the policy itself refuses, as validation says


def decide(
    publish: Requested,
    asker: Asker,
    policies: Policies,
    *,
    now: datetime,
    first_after_change: bool,
    correction: bool,
) -> Decision:
    """Whether `publish` may run before a person approves its draft, and why (see the module doc)."""
    policy_id = publish.auto_approve
    if policy_id is None:
        return Decision(False, "no auto_approve: a person approves the draft")
    refusal = policies.refusal(policy_id, contract=asker.contract, owner=asker.owner, action=publish.action,
                               scope=asker.scope, target=publish.target, now=now)  # fmt: skip
    said = warning(policy_id, refusal) if refusal is not None else None
    if correction:
        return Decision(False, "a correction of a published draft always goes to a person", said)
    if first_after_change:
        return Decision(False, "the first proposal after the contract changed goes to a person", said)
    if refusal is not None:
        return Decision(False, refusal, said)
    return Decision(True, f"policy '{policy_id}' grants {publish.action} for {asker.contract}")


def granted(
    publishes: Sequence[Requested],
    asker: Asker,
    policies: Policies,
    *,
    now: datetime,
    first_after_change: bool,
    correction: bool,
) -> list[Requested]:
    """The publishes that may run on the draft's text before its merge (for `PublishContext.publishes`)."""
    return [
        p
        for p in publishes
        if decide(p, asker, policies, now=now, first_after_change=first_after_change, correction=correction).granted
    ]


def policies_on(root: Path, commit: str) -> Policies:
    """The policy file of `commit` (the fetched main): no file there is no policies."""
    done = subprocess.run(
        ["git", "-C", str(root), "cat-file", "blob", f"{commit}:{POLICY_FILE.as_posix()}"],
        capture_output=True,
        env=git_env(),
        check=False,
    )
    if done.returncode != 0:
        return Policies({})
    return parse_policies(done.stdout)


def first_after_change(events: Iterable[Event], draft_key: str, fingerprint: str) -> bool:
    """Whether no earlier draft of this contract on `hz/state` was proposed under `fingerprint`.

    The fingerprint of a proposal is that of the turn that placed it (`turn.started`'s contract_fp).
    The very first proposal of a contract counts as the first after a change: creation is one.
    """
    ident = contract_id(draft_key)
    mine = [e for e in events if e.id == ident]
    fps = {str(e.data["turn"]): str(e.data["contract_fp"]) for e in mine if e.kind == "turn.started"}
    placed = [e for e in mine if e.kind == "draft.placed"]
    this = next((e for e in placed if e.data["key"] == draft_key), None)
    earlier = [e for e in placed if e.data["key"] != draft_key and (this is None or e.ts <= this.ts)]
    return not any(fps.get(str(e.data["turn"])) == fingerprint for e in earlier)
