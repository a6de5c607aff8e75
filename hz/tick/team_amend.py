"""A person's amendment of a contract (`hz heinzel amend`), compiled with the layers the contract is.

The text a person writes is the contract file as they know it, without what the folder's
`_defaults.yaml` supplies (the owner, often): it is made self-contained with those defaults before it is
compiled, as the contract itself was at adoption (hz.heinzel.adopt.self_contained). A team contract,
where the repository keeps team state, changes only through `main` (DESIGN.md, "Team operation"): the
amendment goes on its review branch `hz/draft/<contract id>/contract` as the file's own text changed
(hz.turn.amend.place_amendment, as an agent's amendment does), that branch is pushed at once (a branch
needs no lease: it decides nothing) and the forge opens its pull request. `hz approve` then refuses it;
once a member merges it, every member's tick adopts the new version from `main`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from hz.heinzel.amendments import Proposal


@dataclass(frozen=True)
class Amended:
    proposal: Proposal
    branch: str | None = None  # the review branch it went on (a team contract's)
    pull: str | None = None  # its pull request, when the forge opened one
    problems: tuple[str, ...] = ()  # what the push or the forge said (the branch waits for the next tick)


def amend(
    store: Any, row: dict[str, Any], text: str, *, root: Path | None, environ: Mapping[str, str],
    now: datetime, sentence: str | None = None,
) -> Amended:  # fmt: skip
    """Propose `text` as the next version of `row`'s contract; a team contract's on its review branch."""
    from hz.config import load_user_config
    from hz.heinzel.adopt import self_contained
    from hz.heinzel.amendments import propose_by_user
    from hz.heinzel.states import require
    from hz.heinzel.versions import read_version
    from hz.turn.agents import load_plan

    require("amend", row["name"], row["state"])  # before its version is read: a proposed agent has none yet
    text = self_contained(text, _defaults(root, environ, str(row["namespace"])))
    config = load_user_config(environ)
    # the version amended, read first by the rule that names a damaged copy in hz's home and how to mend it
    read_version(store.agent_dir(row["id"]), int(row["contract_version"]))
    plan = load_plan(store.agent_dir(row["id"]), row, int(row["contract_version"]), root=root,
                     default_tz=config.timezone or "UTC")  # fmt: skip
    team = _team(plan, root, environ, config.handle)
    review = None if team is None else _placer(plan, text, now)
    proposal = propose_by_user(store, row, text, now=now, sentence=sentence, review=review)
    branch = _placed(store, row, proposal.amendment_id)
    if team is None or branch is None:
        return Amended(proposal, branch)
    return _pushed(team, plan, proposal, branch, now)


def _team(plan: Any, root: Path | None, environ: Mapping[str, str], handle: str | None) -> Any:
    from hz.tick.team import open_for

    contract_id = getattr(plan.contract.frontmatter, "id", None)
    return open_for(root, environ, handle) if plan.scope == "team" and contract_id else None


def _placer(plan: Any, text: str, now: datetime) -> Any:
    from hz.turn.amend import place_amendment

    return lambda: place_amendment(plan, text, now.replace(second=0, microsecond=0))


def _placed(store: Any, row: Mapping[str, Any], amendment_id: str) -> str | None:
    for event in store.read(row["id"]).events:
        if event.kind == "amendment.proposed" and event.data.get("amendment_id") == amendment_id:
            return str(event.data["place"]) if event.data.get("place") else None
    return None


def _pushed(team: Any, plan: Any, proposal: Proposal, branch: str, now: datetime) -> Amended:
    """Push the review branch (replacing the amendment pending there, as the fetch saw it) and ask the
    forge for its pull request, through the tick's own push (hz.tick.team_push.flush)."""
    from hz.gitstate.flush_result import Draft
    from hz.gitstate.objects import resolve
    from hz.tick.team_drafts import _seen_tip
    from hz.tick.team_push import _ask_pulls, flush

    ref = f"refs/heads/{branch}"
    commit = resolve(team.remote.repo, ref)
    if commit is None:
        return Amended(proposal, branch, problems=(f"the branch {branch} was not made",))
    team.drafts[ref] = Draft(str(commit), "", 0, _seen_tip(team.view, ref))  # no lease: a branch decides nothing
    _ask_pulls(team, plan, {ref: str(commit)})
    pushed = flush(team, now)
    problems = [f"the remote refused {branch}: {why}" for why in pushed.get("unpublished", {}).values()]
    problems += list(pushed.get("pulls_failed", ()))
    pull = dict(pushed.get("pulls") or {}).get(branch)  # branch -> the pull request's URL
    return Amended(proposal, branch, None if pull is None else str(pull), tuple(problems))


def _defaults(root: Path | None, environ: Mapping[str, str], namespace: str) -> Mapping[str, Any] | None:
    """The `hz:` defaults of the team layer the contract comes from (None: a personal contract, or none)."""
    if root is None:
        return None
    from hz.contract.defaults import load_defaults
    from hz.contract.layers import discover_layers
    from hz.errors import HzError

    try:
        layers = discover_layers(root, environ, cwd=root)
    except HzError:
        return None
    for layer in layers:
        if layer.kind == "team" and layer.namespace == namespace:
            return load_defaults(layer)[0]
    return None
