"""How a walk ends before its next step: `finish` writes `turn.finished`, `Waiting` leaves the turn open.

A step that ends the turn early raises `Finished` with the result of the finish it wrote; the user's stop
ends it `stopped` (abandoned), and a turn nobody can resume is `abandon`ed where its checkpoints left it.
"""

from __future__ import annotations

from typing import Any

from hz.secrets import scrub
from hz.turn import history, steering
from hz.turn.causes import Cause, due_of
from hz.turn.checkpoints import restore
from hz.turn.crash import crashpoint
from hz.turn.engine import Deps, Turn, TurnResult, body_reference, running_seconds
from hz.turn.journal import Journal
from hz.turn.plan import Plan
from hz.turn.reasons import ERROR_CHARS, REPORT_CHARS, recordable


class Waiting(Exception):
    """A step decided to wait: `turn.waiting` is written and the turn stays open without a process.

    `cap` names the cap it waits for, when it waits for the next UTC day's money."""

    def __init__(self, turn: str, cap: dict[str, Any] | None = None) -> None:
        super().__init__(turn)
        self.cap = cap


class Finished(Exception):
    """A step ended the turn early (a cap, a failure); carries the result of the finish it wrote."""

    def __init__(self, result: TurnResult) -> None:
        super().__init__(result.disposition)
        self.result = result


def finish(
    journal: Journal,
    turn: Turn,
    deps: Deps,
    *,
    disposition: str,
    reason: str | None,
    error: str | None = None,
    cap: dict[str, Any] | None = None,
) -> TurnResult:
    usage = {**turn.usage, **_turn_spend(turn, deps)}
    # a server's or a CLI's words may quote a secret, or an address (git's identity prompt does): the
    # reason is recorded without them, so recording it cannot fail and leave the turn running
    error = recordable(scrub(error, deps.environ), ERROR_CHARS) if error else error
    data: dict[str, Any] = {
        "disposition": disposition,
        "cause": turn.cause,
        "causes": turn.causes,
        "usd": float(usage.get("usd", 0.0)),
        "tokens": int(usage.get("tokens", 0)),
        "tokens_cached": int(usage.get("tokens_cached", 0)),
        "duration_s": round(running_seconds(journal, turn, deps.clock()), 3),  # waits and dead time excluded
        "contract_version": turn.plan.version,
        "contract_fingerprint": turn.plan.fingerprint if turn.plan.fingerprint.startswith("sha256:") else None,
        "inputs": dict(turn.gathered.fingerprints) if turn.gathered else {},
        "output_hash": usage.get("output_hash"),
        "body_ref": body_reference(journal, turn.id),
        "reason": reason,
        "error": error,
        "step": turn.steps[-1] if turn.steps and disposition in {"failed", "abandoned"} else None,
        "cap": cap,
        "flags": list(usage.get("flags", ())) or None,
    }
    if turn.outcome and turn.outcome.get("report"):
        data["report"] = recordable(scrub(str(turn.outcome["report"]), deps.environ), REPORT_CHARS)
    due = deps.next_due()
    if due is not None:
        data["next_due"] = due.isoformat()
    journal.append("turn.finished", {k: v for k, v in data.items() if v is not None}, turn=turn.id, key=None)
    crashpoint("turn.finished", deps.environ)
    flags = tuple(usage.get("flags", ()))
    follow = _follow_ups(journal, turn)
    return TurnResult(turn.id, disposition, reason, float(data["usd"]), follow, error, cap, flags)


def _turn_spend(turn: Turn, deps: Deps) -> dict[str, Any]:
    """The whole turn's cost, not only its last think's: from the ledger, which holds every request of the
    turn (before a wait, a crash, a resume) settled, or at its reservation when a kill left it unsettled."""
    if deps.ledger is None:
        return {}
    return {"usd": max(deps.ledger.turn_total(turn.id), float(turn.usage.get("usd", 0.0)))}


def stopped(journal: Journal, turn: Turn, deps: Deps) -> TurnResult:
    """The user stopped the turn: it ends abandoned; waiting messages become the next turn's causes."""
    steering.clear_stop(journal)
    steering.take_requests(journal, turn, "finish", deps)
    done = finish(journal, turn, deps, disposition="abandoned", reason="stopped", error="stopped by the user")
    return TurnResult(done.turn, done.disposition, done.reason, done.usd)


def abandon(journal: Journal, open_turn: history.OpenTurn, plan: Plan, deps: Deps, *, reason: str) -> TurnResult:
    from hz.turn.acts import recover_placed

    turn = restore(journal, open_turn, plan)
    if "act" not in turn.steps:
        recover_placed(journal, turn, deps)  # a draft the killed act wrote is recorded, never lost
    error = f"stopped at step {turn.steps[-1] if turn.steps else 'gather'}: {reason}"
    return finish(journal, turn, deps, disposition="abandoned", reason=reason, error=error)


def _follow_ups(journal: Journal, turn: Turn) -> tuple[Cause, ...]:
    events = journal.events()
    taken = history.started_keys(events) | history.settled_keys(events)  # a settled key never runs again
    follow: list[Cause] = []
    for event in events:
        if event.kind == "turn.requested" and event.turn == turn.id and event.data["key"] not in taken:
            kind, key = str(event.data["cause"]), str(event.data["key"])
            request_id = key.rsplit("@", 1)[-1]
            detail = {"request_id": request_id} if kind == "asked" else {}
            follow.append(Cause(kind, key, due_of(kind, key, history.parse_ts(event.ts)), detail))
    return tuple(follow)
