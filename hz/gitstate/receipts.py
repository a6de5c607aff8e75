"""Receipts that must follow from `hz/state` and `main`: one rule, read by the hook, the lint and the readers.

A receipt of what became of a team draft is written with no lease (hz.gitstate.events.LEASELESS), so its
token proves nothing; what proves it is the state it follows and the `main` it names:

- `approval.observed`, `draft.rejected`, `draft.superseded` (the fates) and `approval.seconded` are only
  for a key whose `draft.placed` is on `hz/state` already (or lands in the same commit);
- a fate only for a draft with no other fate (each kind has one path per key, so a second of the same
  kind is a change of that file, HZS002); `approval.seconded` only after the draft's self-approved
  `approval.observed`, by another member;
- `draft.superseded` names as `by` a placed draft of the same contract;
- approvers, seconders and rejectors are members of the roster on `main` (`[team.members]` of its
  `hz.toml`), or `@unknown` (a rejection nobody the roster lists made);
- the versions a receipt's keys name are ones `main` has (hz.gitstate.main_counts), as for every event;
- `publish.done` only after the draft's `approval.observed`, for an action and target that the contract
  on `main` declares for that draft (its publish key is the hash of exactly those, so it is checked too).

`state` is `hz/state` as of the commit that adds the receipt (the lint: that commit's tree) or as the
reader fetched it; `main` is None where there is no `main` to compare with (only the state rules hold).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from hz.gitstate.layout import event_path
from hz.gitstate.main_counts import version_problem
from hz.gitstate.times import parse_utc

if TYPE_CHECKING:
    from hz.gitstate.event_shapes import EventView as Event
    from hz.gitstate.lint_contracts import MainContracts
    from hz.gitstate.main_declared import Declared
    from hz.gitstate.odb import Repo

FATES = ("approval.observed", "draft.rejected", "draft.superseded")
FOLLOWERS = frozenset({*FATES, "approval.seconded"})
CHECKED = FOLLOWERS | {"publish.done"}
UNKNOWN = "@unknown"
HINT = "a receipt follows from hz/state and main: a placed draft, its one fate, members of main's roster"


class StateAt(Protocol):
    """`hz/state` as of one commit: which event files it holds, and the event in one of them."""

    def has(self, kind: str, hz_id: str, key: str) -> bool: ...

    def read(self, path: str) -> Event | None: ...


class TreeState:
    """`hz/state` as one commit's tree holds it (the lint's and the hook's view), the tree given by its id."""

    def __init__(self, repo: Repo, tree: str) -> None:
        from hz.gitstate.odb import objects_of

        self.objects = objects_of(repo)
        self.tree = tree

    def has(self, kind: str, hz_id: str, key: str) -> bool:
        return self.objects.at(self.tree, event_path(hz_id, kind, key)) is not None

    def read(self, path: str) -> Event | None:
        from hz.gitstate.event_shapes import read_plain

        data = self.objects.blob_at(self.tree, path)
        return read_plain(data) if data is not None else None


def receipt_problem(event: Event, state: StateAt, main: MainContracts | None) -> str | None:
    """Why `event` does not follow from `state` and `main` (None: it does, or it is no such receipt)."""
    if event.kind not in CHECKED:
        return None
    if main is not None and (problem := version_problem(event, main)):
        return problem  # a draft of a version main never had was never placed by hz
    if event.kind == "publish.done":
        return _publish_problem(event, state, main)
    key = event.key
    if not state.has("draft.placed", event.id, key):
        return f"no draft.placed of {key} before it"
    if event.kind in FATES and (
        other := next((k for k in FATES if k != event.kind and state.has(k, event.id, key)), None)
    ):
        return f"the draft has its fate already ({other})"
    if event.kind == "draft.superseded":
        by = str(event.data["by"])
        if by == key or not by.startswith(event.id + "@") or not state.has("draft.placed", event.id, by):
            return f"by {by} is no other placed draft of the same contract"
    if event.kind == "approval.seconded" and (problem := _second_problem(event, state)):
        return problem
    who = _who(event)
    if who is not None and main is not None and not main.member(who, allow_unknown=event.kind != "approval.seconded"):
        return f"{who} is not a member of the roster on main"
    return None


def _who(event: Event) -> str | None:
    """The person a receipt names: an approver, a seconder, a rejector (None: it names nobody)."""
    value = event.data.get("by") if event.kind == "draft.rejected" else event.data.get("approver")
    return value if isinstance(value, str) else None


def _second_problem(event: Event, state: StateAt) -> str | None:
    approval = state.read(event_path(event.id, "approval.observed", event.key))
    if approval is None or not approval.data.get("self_approved"):
        return "approval.seconded follows the draft's self-approved approval.observed"
    if str(approval.data.get("approver", "")).casefold() == str(event.data["approver"]).casefold():
        return "the seconder is the member who approved it"
    return None


def _publish_problem(event: Event, state: StateAt, main: MainContracts | None) -> str | None:
    """After the draft's approval, or under a live auto-approve policy on main; as the contract declares."""
    draft_key = str(event.data["draft_key"])
    approved = state.has("approval.observed", event.id, draft_key)
    declared = main.declared.get(event.id) if main is not None else None
    if main is None or declared is None:  # no main, or an id it lacks (HZS019 where main must know it)
        return None if approved else f"no approval.observed of {draft_key} before it"
    wanted = (str(event.data["key"]), str(event.data["action"]), str(event.data["target"]))
    asset = draft_key.split("@", 3)[3] if draft_key.count("@") >= 3 else ""
    matches = [
        (action, policy)
        for action, output, template, policy in declared.publishes
        if _publish_of(draft_key, action, template) == wanted and _asset_of(declared, output, draft_key) == asset
    ]
    if not matches:
        return f"{event.data['action']} to {event.data['target']} is no publish the contract on main declares"
    if approved or any(policy and main.grants(policy, action, parse_utc(event.ts)) for action, policy in matches):
        return None
    return f"no approval.observed of {draft_key} before it, and no live policy on main auto-approves it"


def _publish_of(draft_key: str, action: str, template: str) -> tuple[str, str, str]:
    """(publish key, action, target ref) of one declared publish for a draft, as hz.review.publish makes them."""
    from hz.review.publish import fill_target, publish_key, target_ref

    target = fill_target(template, draft_key)
    return publish_key(draft_key, action, target), action, target_ref(action, target)


def _asset_of(declared: Declared, output: str, draft_key: str) -> str | None:
    """The asset a draft of `output` has for the slot of `draft_key` (the publish is of that output's drafts)."""
    from hz.gitstate.shapes import slot_time
    from hz.repo_paths import fill_slot

    target = declared.targets.get(output)
    moment = slot_time(draft_key.split("@")[2]) if draft_key.count("@") >= 3 else None
    return None if target is None or moment is None else fill_slot(target, moment)
