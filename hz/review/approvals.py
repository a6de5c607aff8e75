"""What became of a spine's placed drafts: approved (tag gone, branch merged), rejected, or still waiting.

Bookkeeping only, on one agent's spine: the tick observes every placed draft without a decision, records
a rejection at once, and starts the approval turn (cause `approval`) for an approved one, whose gather
step (hz.turn.approval_step) records `approval.observed` and hands the model the draft as placed and
the text as approved, so it learns from the edits. A team draft's fate is decided on `hz/state`, by
whichever member sees it first (hz.review.approval_sweep); the spine then only takes it over.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from hz.errors import HzError
from hz.review import drafts
from hz.review.targets import Target, target_at
from hz.session.bodies import read_body
from hz.session.envelope import Envelope
from hz.slots import parse_slot


class Spine(Protocol):
    """What bookkeeping needs of an agent's journal (hz.turn.journal.Journal)."""

    directory: Path

    def events(self) -> Sequence[Envelope]: ...

    def append(self, kind: str, data: dict[str, Any], *, turn: str | None, key: str | None) -> Envelope: ...


@dataclass(frozen=True)
class Placed:
    """A draft.placed event and what its turn body remembers about it."""

    event: Envelope
    record: dict[str, Any]

    @property
    def key(self) -> str:
        return str(self.event.data["key"])

    def target(self, agent_id: str) -> Target:
        root = self.record.get("root")
        slot = parse_slot(self.key.split("@")[2])
        scope = str(self.record.get("scope", "personal"))
        asset, branch = str(self.event.data["asset"]), self.event.data.get("place")
        return target_at(Path(root) if root else None, scope, agent_id, asset, slot, branch=branch or None)


def placed(journal: Spine, key: str) -> Placed:
    event = next((e for e in journal.events() if e.kind == "draft.placed" and e.data.get("key") == key), None)
    if event is None or event.turn is None:
        raise HzError(f"no draft was placed under {key}", hint="hz drafts lists the drafts that wait")
    for record in read_body(journal.directory, event.turn).records:
        if "placing" in record and record["placing"]["key"] == key:
            return Placed(event, record["placing"])
    raise HzError(f"the body of the turn that placed {key} expired", hint="its draft can no longer be traced")


def undecided(events: Sequence[Envelope], idempotency: Callable[[Envelope], str] | None = None) -> list[Envelope]:
    """Placed drafts without a decision, leaving out those a later draft replaced: one of the same asset
    (its file was written over), or, given `idempotency` (a placed draft's idempotency key, `key_of`), one
    of the same key, as a team draft's branch moves to the newer draft of its key."""
    decided = {e.data.get("key") for e in events if e.kind == "approval.observed"}
    placed = [e for e in events if e.kind == "draft.placed"]
    newest: dict[tuple[str, str], int] = {}
    groups = [[("asset", str(e.data["asset"]))] + ([("key", idempotency(e))] if idempotency else []) for e in placed]
    for at, group in enumerate(groups):
        newest.update(dict.fromkeys(group, at))
    kept = [at for at, group in enumerate(groups) if all(newest[g] == at for g in group)]
    return [placed[at] for at in kept if placed[at].data["key"] not in decided]


def key_of(template: str, contract: str) -> Callable[[Envelope], str]:
    """A placed draft's idempotency key by the contract's `hz.idempotency` (hz.review.branches.draft_key):
    its slot and asset read from the draft's key (`<id>@v<version>@<slot>@<asset>`)."""
    from hz.review.branches import draft_key

    def key(event: Envelope) -> str:
        own = str(event.data["key"])
        try:
            slot = parse_slot(own.split("@")[2])
        except (IndexError, ValueError):
            return own  # no slot to fill in: a key of its own, superseded by nothing but its asset
        return draft_key(template, contract, slot, str(event.data["asset"]))

    return key


def share_changed(before: str, after: str) -> float:
    """The share of words that differ between the placed draft and the approved text (0..1), to 0.001:
    the precision `hz/state` takes (hz.gitstate.lint.DECIMALS)."""
    matcher = difflib.SequenceMatcher(a=before.split(), b=after.split(), autojunk=False)
    return round(1.0 - matcher.ratio(), 3)


def hunks(before: str, after: str) -> list[str]:
    """The unified-diff hunks from the placed draft to the approved text, one string each."""
    lines = list(difflib.unified_diff(before.splitlines(), after.splitlines(), lineterm="", n=1))[2:]
    out: list[list[str]] = []
    for line in lines:
        if line.startswith("@@") or not out:
            out.append([])
        out[-1].append(line)
    return ["\n".join(h) for h in out]


def observe_all(
    journal: Spine, agent_id: str, idempotency: Callable[[Envelope], str] | None = None
) -> list[tuple[str, drafts.Observation]]:
    """(draft key, observation) of every undecided draft whose fate changed (`undecided`)."""
    found: list[tuple[str, drafts.Observation]] = []
    for event in undecided(journal.events(), idempotency):
        try:
            item = placed(journal, str(event.data["key"]))
            target = item.target(agent_id)  # refused when a link was planted on its path: not looked at
        except HzError:
            continue
        seen = target.observe(item.key)
        if seen.state in {"approved", "rejected"}:
            found.append((item.key, seen))
    return found


def decided(journal: Spine, key: str) -> bool:
    return any(e.kind == "approval.observed" and e.data.get("key") == key for e in journal.events())


def record_rejection(journal: Spine, key: str, *, approver: str | None) -> None:
    if decided(journal, key):
        return
    data: dict[str, Any] = {"key": key, "decision": "rejected"}
    if approver:
        data["approver"] = approver
    journal.append("approval.observed", data, turn=None, key=key)


def record_approval(journal: Spine, key: str, team_receipt: dict[str, Any], *, turn: str | None = None) -> None:
    """The spine takes over a team draft's approval recorded on `hz/state` (its approver, share, fingerprint)."""
    if decided(journal, key):
        return
    data = {"key": key, "decision": "approved"}
    data.update({k: team_receipt[k] for k in ("approver", "share_changed", "output_fp") if k in team_receipt})
    journal.append("approval.observed", data, turn=turn, key=key)
