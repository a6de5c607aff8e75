"""Where a turn's draft of one output goes, and how to find it there again by its key.

`target_for(plan, output, slot)` picks the place: a personal contract drafts in place in the user's
working tree (`hz.review.drafts`), a team contract on a `hz/draft/<contract id>/<output>@<key slug>`
branch of its repository (`hz.review.branches`). Both answer the same questions, so the engine and the
ledger never care which.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Protocol

from hz.errors import HzError
from hz.repo_paths import PATH_SCHEMES, PathRefused, Refusal, read_regular
from hz.review import drafts
from hz.turn.plan import Plan


class Target(Protocol):
    @property
    def asset(self) -> str:
        """The output's target with its slot filled in, e.g. `state:reports/2026-W45.md`."""
        ...

    @property
    def place(self) -> str:
        """Where a person finds the draft: a path in the work tree, a branch name."""
        ...

    def lookup(self, key: str) -> str | None: ...

    def write(self, tag: drafts.Tag, text: str) -> str: ...

    def current(self) -> str | None: ...

    def observe(self, key: str) -> drafts.Observation: ...


@dataclass(frozen=True)
class FileTarget:
    """A file in the user's working tree, drafted in place under a tag line."""

    asset: str
    place: str
    path: Path
    root: Path
    slot: datetime
    team: bool = False

    def lookup(self, key: str) -> str | None:
        return drafts.find_placed(self.path, key, self.root)

    def write(self, tag: drafts.Tag, text: str) -> str:
        # the rule once more, at the last moment: a link planted since the target was made is refused,
        # and one planted after that is never followed by the write itself
        real = drafts.target_path(self.root, self.asset, self.slot, team=self.team)
        relative = real.relative_to(os.path.realpath(self.root)).as_posix()
        try:
            return drafts.place_in(self.root, relative, tag, text)
        except PathRefused as refused:
            raise drafts.DraftTargetError(
                f"the target {self.asset!r} {refused.refusal.reason}", hint=refused.hint
            ) from None

    def current(self) -> str | None:
        """What the file holds before the draft (kept to put back on a reject); None when there is none.

        Read by the rule (bounded, no folder followed as a link), since it goes into the turn's body: a
        folder swapped for a link into `.git` must not copy `.git/config` there.
        """
        data = read_regular(self.path, root=self.root)
        if isinstance(data, Refusal):
            if not os.path.lexists(self.path):
                return None
            raise drafts.DraftTargetError(f"the target {self.asset!r} {data.reason}", hint=data.hint)
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            raise drafts.DraftTargetError(
                f"the target {self.asset!r} holds no UTF-8 text, so hz could not put it back after a reject",
                hint="draft into a text file",
            ) from None

    def observe(self, key: str) -> drafts.Observation:
        return drafts.observe(self.path, key, self.root)


def target_for(plan: Plan, output: str, slot: datetime) -> Target:
    asset = drafts.expand_target(plan.targets[output], slot)
    return target_at(plan.root, plan.scope, plan.agent_id, asset, slot, branch=_branch(plan, output, slot, asset))


def _branch(plan: Plan, output: str, slot: datetime, asset: str) -> str | None:
    """A team contract's draft branch for `output`, named for the contract and the draft's idempotency key
    (None: it has no id yet)."""
    frontmatter = getattr(plan.contract, "frontmatter", None)
    contract = getattr(frontmatter, "id", None)
    if plan.scope != "team" or not contract:
        return None
    from hz.review.branches import DEFAULT_IDEMPOTENCY, branch_name, draft_key

    template = str(getattr(getattr(frontmatter, "hz", None), "idempotency", None) or DEFAULT_IDEMPOTENCY)
    return branch_name(str(contract), output, draft_key(template, str(contract), slot, asset))


def target_at(
    root: Path | None, scope: str, agent_id: str, asset: str, slot: datetime, *, branch: str | None = None
) -> Target:
    """The target of an asset whose slot placeholders are already filled in. A team draft goes on
    `branch` (`hz/draft/<contract id>/<output>@<key slug>`), or without one on the older
    `hz/draft/<agent>/<slot>`."""
    if root is None:
        raise HzError(f"{agent_id} has no working tree to draft into", hint="run hz from its repository")
    if scope == "team" and asset.startswith("state:"):
        from hz.review.branches import BranchTarget, old_branch_name
        from hz.review.sync import split_branch

        named = split_branch(branch) if branch is not None else None
        if branch is None or named is None:
            return BranchTarget.old(root, old_branch_name(agent_id, slot), asset, slot)
        return BranchTarget.create(root, named[0], named[1], asset, slot, place=branch)
    team = scope == "team"
    path = drafts.target_path(root, asset, slot, team=team)
    return FileTarget(asset, str(path.relative_to(root.resolve())), path, root, slot, team)


def check_targets(plan: Plan, slot: datetime) -> None:
    """The repository's path rule for every file target of the plan, and what each holds now (for a team
    target, on main) is a bounded text file hz can keep for a reject; DraftTargetError when not.

    A turn asks this before its paid think, so a link planted since validation, or a binary or huge file
    committed where the draft goes, costs no model call.
    """
    if plan.root is None:
        return
    for output in sorted(plan.targets):
        asset = drafts.expand_target(plan.targets[output], slot)
        if asset.partition(":")[0] in PATH_SCHEMES:  # the rule, and what is there now must be usable too
            target_at(
                plan.root, plan.scope, plan.agent_id, asset, slot, branch=_branch(plan, output, slot, asset)
            ).current()
