"""The think step, the one a turn pays for: under its caps and the ledger, the runner is asked for an outcome.

Also the turn's other paid request, the summary written at the budget (`summarise_if_due`).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any, NoReturn

from hz.runners.base import BudgetExceeded, RunnerError, ThinkResult
from hz.runners.spend import MIN_ANSWER_TOKENS
from hz.secrets import secrets_of
from hz.session.bodies import append_body
from hz.spend.gate import LedgerGate
from hz.spend.ledger import Limits
from hz.turn import history, steering
from hz.turn.caps import Caps, caps_now, decide
from hz.turn.checkpoints import STEP_OUTCOMES, checkpoint
from hz.turn.crash import crashpoint
from hz.turn.engine import Deps, Turn, body_reference
from hz.turn.finish import Finished, Waiting, finish, stopped
from hz.turn.journal import Journal
from hz.turn.waits import wait_data

# The caps whose room comes back at the next UTC day (hz.spend.ledger.Refused.cap, CapDecision.binding).
_NEXT_DAY_CAPS = frozenset({"day", "contract", "over-reported"})


def think(journal: Journal, turn: Turn, deps: Deps) -> None:
    from hz.turn.request import build_request

    if _approved_unedited(turn):  # nothing the reviewer changed: no lesson to look for, no model to pay
        turn.outcome = {"kind": "nothing", "report": UNEDITED}
        turn.usage = {"tokens": 0, "tokens_cached": 0, "usd": 0.0}
        append_body(journal.directory, turn.id, {"outcome": turn.outcome, "usage": turn.usage})
        checkpoint(journal, turn, "think", outcome="nothing", tokens=0, tokens_cached=0, usd=0.0)
        return
    plan = turn.plan
    caps = caps_now(plan, deps, journal.events(), turn.id)
    decision = decide(caps, _needed_usd(caps, plan.max_tokens, deps))
    if not decision.allowed:
        _cap_refused(journal, turn, deps, decision.detail())
    gate = spend_gate(deps, plan.agent_id, turn.id, contract_usd=plan.contract_usd)
    request = build_request(journal, turn, deps, budget_usd=decision.budget_usd, spend=gate)
    crashpoint("think.before", deps.environ)
    try:
        result: ThinkResult = deps.runner.think(request)
    except steering.Stopped:
        raise Finished(stopped(journal, turn, deps)) from None
    except BudgetExceeded as exc:
        turn.usage = usage_of(exc.usage, gate)
        cap = _refusal(gate)
        if cap is not None and exc.usage.usd == 0:  # refused before anything was paid: the slot may wait
            _cap_refused(journal, turn, deps, cap)
        raise Finished(
            finish(journal, turn, deps, disposition="skipped", reason="cap", error=exc.message, cap=cap)
        ) from None
    except RunnerError as exc:
        turn.usage = usage_of(exc.usage, gate)
        raise Finished(finish(journal, turn, deps, disposition="failed", reason="runner", error=exc.message)) from None
    crashpoint("think.after", deps.environ)  # replied and settled, nothing of it recorded in the turn yet
    # a model may write out the key its endpoint was sent (an echo): never into a draft, body or report
    turn.outcome = secrets_of(deps.environ).redact_value(result.outcome.model_dump(mode="json"))
    turn.usage = usage_of(result.usage, gate)
    append_body(journal.directory, turn.id, {"outcome": turn.outcome, "usage": turn.usage})
    kind = turn.outcome["kind"]
    checkpoint(
        journal,
        turn,
        "think",
        outcome=kind if kind in STEP_OUTCOMES else None,
        tokens=turn.usage["tokens"],
        tokens_cached=turn.usage["tokens_cached"],
        usd=turn.usage["usd"],
        body_ref=body_reference(journal, turn.id),
    )


UNEDITED = "approved as placed: no edits to learn from"


def _approved_unedited(turn: Turn) -> bool:
    """An approval turn whose draft was approved word for word (the diff the gather step made is empty)."""
    if turn.cause != "approval" or turn.gathered is None:
        return False
    approval = turn.gathered.values.get("approval") or {}
    return "diff" in approval and not str(approval["diff"]).strip()


def _needed_usd(caps: Caps, max_tokens: int, deps: Deps) -> float:
    """What the cheap check asks room for: a new turn's whole worst case. A resumed turn's earlier requests
    are counted in the ledger already (a killed one at its full grant), and its worst case on top of them
    counts them twice; it needs only room for its next request, whose least the gate asks is its prompt
    and a short answer: at most a short answer at the dearest price is asked here, the ledger decides."""
    if caps.turn_spent_usd > 0:
        return deps.runner.worst_case_usd(MIN_ANSWER_TOKENS)
    return deps.runner.worst_case_usd(max_tokens)


def _cap_refused(journal: Journal, turn: Turn, deps: Deps, cap: dict[str, Any]) -> NoReturn:
    """A cap left no room for the think step. The day's caps (the user's, the contract's, a runner flagged
    over-reported) have room again at the next UTC midnight: the turn waits for it, so its slot, and what
    a resumed turn paid for already, is not dropped. The turn's own cap never grows: it ends skipped."""
    if cap["name"] not in _NEXT_DAY_CAPS:
        raise Finished(finish(journal, turn, deps, disposition="skipped", reason="cap", cap=cap))
    now = deps.clock().astimezone(UTC)
    midnight = datetime(now.year, now.month, now.day, tzinfo=UTC) + timedelta(days=1)
    journal.append("turn.waiting", wait_data("think", until=midnight), turn=turn.id, key=None)
    raise Waiting(turn.id, cap)


def spend_gate(deps: Deps, agent: str, turn: str, *, contract_usd: float | None) -> LedgerGate | None:
    """The ledger bound to this turn's requests and caps; None without a ledger (a test's bare deps)."""
    if deps.ledger is None:
        return None
    settings = deps.settings
    limits = Limits(settings.max_usd, settings.max_usd_per_day, contract_usd)
    runner = str(getattr(deps.runner, "name", "runner"))
    return LedgerGate(deps.ledger, agent=agent, turn=turn, runner=runner, limits=limits)  # the wall clock's day


def _refusal(gate: LedgerGate | None) -> dict[str, Any] | None:
    """Why the ledger refused the request a runner gave up on, as a skip's `cap` field."""
    if gate is None or gate.refused is None:
        return None
    return gate.refused.detail()


def summarise_if_due(journal: Journal, turn: Turn, deps: Deps) -> None:
    """At the budget, the turn ends with the model writing the summary (its spend is a `usage` event)."""
    from hz.turn.acts import write_summary
    from hz.turn.context import needs_summary
    from hz.turn.request import build_request

    events = journal.events()
    if any(e.kind == "summary.written" and e.turn == turn.id for e in events):
        return
    _, past = history.since_summary(events)
    chars = sum(len(str(line.get("report") or "")) + 40 for line in past)
    settings = deps.settings
    if not needs_summary(
        len(past), chars, after_turns=settings.summary_after_turns, after_chars=settings.summary_after_chars
    ):
        return
    # its own request under the per-turn cap, as before the ledger; this agent's spending like any other,
    # so under the contract's day cap too. It is one request, its answer sized to what the ledger grants:
    # it needs room for a short answer, not for the turn's whole ceiling.
    summary_turn = f"{turn.id}:summary"
    caps = caps_now(turn.plan, deps, events, summary_turn)
    decision = decide(caps, deps.runner.worst_case_usd(MIN_ANSWER_TOKENS))
    if not decision.allowed:
        return
    gate = spend_gate(deps, turn.plan.agent_id, summary_turn, contract_usd=turn.plan.contract_usd)
    request = build_request(
        journal, turn, deps, budget_usd=decision.budget_usd, want=frozenset({"summary"}), spend=gate
    )
    try:
        result = deps.runner.think(request)
    except RunnerError:
        return  # the next turn tries again; a missing summary never blocks a turn
    if result.outcome.summary is None:
        return
    summary = secrets_of(deps.environ).redact_value(result.outcome.summary.model_dump(mode="json"))
    write_summary(journal, turn, summary, keep=settings.summary_keep_turns)
    usage = usage_of(result.usage, None)
    usage.pop("flags", None)  # the ledger keeps a summary request's flags; `usage` has no field for them
    journal.append("usage", {"kind": "summary", **usage}, turn=turn.id, key=None)


def usage_of(usage: Any, gate: LedgerGate | None) -> dict[str, Any]:
    """What the think step spent, with the flags its settlements carried (over-reported, no usage)."""
    flags = list(dict.fromkeys([*(gate.flags if gate is not None else ()), *getattr(usage, "flags", ())]))
    found: dict[str, Any] = {
        "tokens": int(usage.input_tokens + usage.output_tokens),
        "tokens_cached": int(usage.cached_tokens),
        "usd": float(usage.usd),
    }
    if flags:
        found["flags"] = flags
    return found
