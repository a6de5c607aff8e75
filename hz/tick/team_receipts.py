"""The receipts of a team turn: the receipt-grade events of one local turn (started, draft placed,
approval observed, finished), keyed by the contract's team-wide id and validated as `hz/state` events.

Only numbers, ids and fingerprints: no text of a turn reaches `hz/state`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from hz.session.envelope import Envelope
from hz.tick.team_claim import Claim, team_key

_REASONS = {"max-resumes": "resumes", "gather": "error", "runner": "error", "outcome": "error", "act": "error"}


def _team_key(key: str, lease: str) -> str:
    return team_key(lease, key)


def _utc(ts: str) -> str:
    return datetime.fromisoformat(ts.replace("Z", "+00:00")).astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def receipts(events: Sequence[Envelope], turn: str, claim_: Claim) -> list[Any]:
    """The receipt-grade events of one local turn, keyed by the team-wide id."""
    from hz.gitstate.events import PAYLOADS, Event, Kind

    lease = claim_.lease
    assert lease is not None
    mine = [e for e in events if e.turn == turn]
    started = next(e for e in mine if e.kind == "turn.started")
    keys = [_team_key(k, lease) for k in started.data.get("keys", [])]
    common = {
        "turn": turn,
        "cause": started.data["cause"],
        "causes": list(started.data.get("causes", [])),
        "keys": keys,
    }
    finished = next((e for e in mine if e.kind == "turn.finished"), None)
    fp = (finished.data.get("contract_fingerprint") if finished else None) or "sha256:" + "0" * 64
    payloads: list[tuple[Kind, str, str, dict[str, Any]]] = [
        ("turn.started", keys[0], started.ts, {**common, "contract_version": int(started.data["contract_version"]),
                                               "contract_fp": fp, "token": claim_.token, "role": claim_.role}),
    ]  # fmt: skip
    for event in mine:
        if event.kind == "draft.placed":
            key = _team_key(str(event.data["key"]), lease)
            data = {"turn": turn, "key": key, "asset": event.data["asset"], "hash": event.data["hash"]}
            payloads.append(("draft.placed", key, event.ts, data))
        elif event.kind == "approval.observed" and (approval := _approval(event, events, lease, claim_)):
            payloads.append(approval)
    if finished is not None:
        payloads.append(("turn.finished", keys[0], finished.ts, {**common, **_ended(finished.data)}))
    return [
        Event.make(
            kind,
            id=lease,
            key=key,
            ts=_utc(ts),
            lease=lease,
            token=claim_.token,
            data=PAYLOADS[kind].model_validate(data),
        )
        for kind, key, ts, data in payloads
    ]


def _approval(event: Envelope, events: Sequence[Envelope], lease: str, claim_: Claim) -> Any:
    """The receipt of an approved draft: who, how much changed, the approved text's fingerprint; no text."""
    placed = next((e for e in events if e.kind == "draft.placed" and e.data["key"] == event.data["key"]), None)
    if event.data.get("decision") != "approved" or placed is None or not event.data.get("output_fp"):
        return None
    key = _team_key(str(event.data["key"]), lease)
    data = {
        "key": key,
        "asset": placed.data["asset"],
        "approver": event.data.get("approver") or claim_.handle,
        "share_changed": round(float(event.data.get("share_changed", 0.0)), 3),  # to 0.001 (hz.gitstate.lint)
        "output_fp": event.data["output_fp"],
    }
    return ("approval.observed", key, event.ts, data)


def _ended(d: Mapping[str, Any]) -> dict[str, Any]:
    reason = _REASONS.get(str(d.get("reason")), d.get("reason"))
    ended: dict[str, Any] = {
        "disposition": d["disposition"],
        "cost_usd": round(float(d.get("usd", 0.0)), 6),  # micro-USD: no more digits reach hz/state
        "tokens": int(d.get("tokens", 0)),
        "tokens_cached": int(d.get("tokens_cached", 0)),
        "duration_s": round(float(d.get("duration_s", 0.0)), 3),
        "input_fps": dict(d.get("inputs", {})),
    }
    if reason not in (None, "nothing-to-do"):
        ended["reason"] = reason
    for source, target in (("contract_fingerprint", "contract_fp"), ("output_hash", "draft_hash")):
        if d.get(source):
            ended[target] = d[source]
    return ended
