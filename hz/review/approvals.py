"""What became of placed drafts: approved (tag gone, branch merged), rejected, or still waiting.

The tick observes every placed draft that has no decision yet. An approved one starts the approval
turn (cause `approval`): its gather step records `approval.observed` with the share of words changed
and hands the model the draft as placed, the text as approved and their diff, and the model answers with
lessons. A rejected one is recorded and needs no turn.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from hz.canonical import fingerprint_bytes
from hz.errors import HzError
from hz.review import drafts
from hz.review.targets import Target, target_at
from hz.session.bodies import read_body
from hz.session.envelope import Envelope
from hz.turn import history
from hz.turn.causes import parse_slot
from hz.turn.engine import Gathered, Turn
from hz.turn.journal import Journal


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
        return target_at(Path(root) if root else None, scope, agent_id, str(self.event.data["asset"]), slot)


def placed(journal: Journal, key: str) -> Placed:
    event = history.placed_draft(journal.events(), key)
    if event is None or event.turn is None:
        raise HzError(f"no draft was placed under {key}", hint="hz drafts lists the drafts that wait")
    for record in read_body(journal.directory, event.turn).records:
        if "placing" in record and record["placing"]["key"] == key:
            return Placed(event, record["placing"])
    raise HzError(f"the body of the turn that placed {key} expired", hint="its draft can no longer be traced")


def undecided(events: Sequence[Envelope]) -> list[Envelope]:
    """Placed drafts without a decision, leaving out those a later draft for the same asset replaced."""
    decided = {e.data.get("key") for e in events if e.kind == "approval.observed"}
    latest: dict[str, Envelope] = {}
    for event in events:
        if event.kind == "draft.placed":
            latest[str(event.data["asset"])] = event
    return [e for e in latest.values() if e.data["key"] not in decided]


def share_changed(before: str, after: str) -> float:
    """The share of words that differ between the placed draft and the approved text (0..1)."""
    matcher = difflib.SequenceMatcher(a=before.split(), b=after.split(), autojunk=False)
    return round(1.0 - matcher.ratio(), 4)


def hunks(before: str, after: str) -> list[str]:
    """The unified-diff hunks from the placed draft to the approved text, one string each."""
    lines = list(difflib.unified_diff(before.splitlines(), after.splitlines(), lineterm="", n=1))[2:]
    out: list[list[str]] = []
    for line in lines:
        if line.startswith("@@") or not out:
            out.append([])
        out[-1].append(line)
    return ["\n".join(h) for h in out]


def observe_all(journal: Journal, agent_id: str) -> list[tuple[str, drafts.Observation]]:
    """(draft key, observation) of every undecided draft whose fate changed."""
    found: list[tuple[str, drafts.Observation]] = []
    for event in undecided(journal.events()):
        try:
            item = placed(journal, str(event.data["key"]))
            target = item.target(agent_id)  # refused when a link was planted on its path: not looked at
        except HzError:
            continue
        seen = target.observe(item.key)
        if seen.state in {"approved", "rejected"}:
            found.append((item.key, seen))
    return found


def record_rejection(journal: Journal, key: str, *, approver: str | None) -> None:
    if any(e.kind == "approval.observed" and e.data.get("key") == key for e in journal.events()):
        return
    data: dict[str, Any] = {"key": key, "decision": "rejected"}
    if approver:
        data["approver"] = approver
    journal.append("approval.observed", data, turn=None, key=key)


def gather_approval(journal: Journal, turn: Turn) -> Gathered:
    """Record `approval.observed` for this turn's draft and hand the model the draft, the approved text and the diff."""
    from hz.session.bodies import append_body

    draft_key = next(k for k in turn.keys if "@approval:" in k).split("@approval:", 1)[1]
    item = placed(journal, draft_key)
    seen = item.target(turn.plan.agent_id).observe(draft_key)
    before = str(item.record["text"])
    after = seen.approved_text if seen.approved_text is not None else before
    parts = hunks(before, after)
    share = share_changed(before, after)
    append_body(
        journal.directory,
        turn.id,
        {"approval": {"key": draft_key, "placed": before, "approved": after, "hunks": parts}},
    )
    if not any(e.kind == "approval.observed" and e.data.get("key") == draft_key for e in journal.events()):
        data = {
            "key": draft_key,
            "decision": "approved",
            "share_changed": share,
            "output_fp": fingerprint_bytes(after.encode("utf-8")),
        }
        journal.append("approval.observed", data, turn=turn.id, key=draft_key)
    return Gathered({"approval": {"placed": before, "approved": after, "diff": "\n".join(parts)}}, {})


def decided_at(journal: Journal, key: str) -> datetime | None:
    for event in journal.events():
        if event.kind == "approval.observed" and event.data.get("key") == key:
            return history.parse_ts(event.ts)
    return None
