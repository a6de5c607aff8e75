"""Walking a turn through its five steps, each one checkpointed before the next starts."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any, NoReturn

from hz.errors import HzError
from hz.review.targets import check_targets
from hz.runners.base import BudgetExceeded, RunnerError, ThinkResult
from hz.runners.spend import MIN_ANSWER_TOKENS
from hz.secrets import scrub, secrets_of
from hz.session.bodies import append_body, read_body
from hz.session.kinds import STEPS
from hz.spend.gate import LedgerGate
from hz.spend.ledger import Limits
from hz.turn import history, steering
from hz.turn.caps import Caps, caps_now, decide
from hz.turn.causes import Cause, due_of
from hz.turn.crash import crashpoint
from hz.turn.engine import (
    DISPOSITION,
    Deps,
    Gathered,
    Turn,
    TurnResult,
    body_reference,
    running_seconds,
    turn_slot,
)
from hz.turn.journal import Journal
from hz.turn.plan import Plan
from hz.turn.reasons import ERROR_CHARS, REPORT_CHARS, recordable
from hz.turn.waits import wait_data

# The outcome kinds `turn.step` may name (a summary is recorded as its own event).
_STEP_OUTCOMES = frozenset({"draft", "lessons", "amendment", "question", "nothing"})
# The caps whose room comes back at the next UTC day (hz.spend.ledger.Refused.cap, CapDecision.binding).
_NEXT_DAY_CAPS = frozenset({"day", "contract", "over-reported"})
# A failure's reason by the step it happened in: the reasons the steps give their own failures.
_STEP_REASONS = {"gather": "gather", "think": "runner", "outcome": "outcome", "act": "act"}


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


def walk(journal: Journal, turn: Turn, deps: Deps) -> TurnResult:
    try:
        for step in STEPS[:-1]:
            if step in turn.steps:
                continue
            if steering.stop_requested(journal):
                return stopped(journal, turn, deps)
            steering.take_requests(journal, turn, step, deps)
            _run_step(step, journal, turn, deps)
            crashpoint(f"step.{step}", deps.environ)
        steering.take_requests(journal, turn, "finish", deps)
        summarise_if_due(journal, turn, deps)
        return finish(journal, turn, deps, disposition=_disposition(turn), reason=_reason(turn))
    except Finished as done:
        return done.result
    except Waiting as waiting:
        return TurnResult(turn.id, "waiting", "cap" if waiting.cap else None, cap=waiting.cap)


def _run_step(step: str, journal: Journal, turn: Turn, deps: Deps) -> None:
    """One step; an hz error it did not handle itself fails the turn there, named by the step.

    Left to rise, it would leave the turn `running` until a later tick resumed it into the same error.
    """
    try:
        STEP_FUNCTIONS[step](journal, turn, deps)
    except HzError as exc:
        reason = _STEP_REASONS[step]
        raise Finished(finish(journal, turn, deps, disposition="failed", reason=reason, error=exc.message)) from None


def restore(journal: Journal, open_turn: history.OpenTurn, plan: Plan) -> Turn:
    turn = Turn(open_turn.turn, plan, open_turn.started, turn_slot(open_turn.started))
    turn.steps = list(open_turn.steps)
    for record in read_body(journal.directory, turn.id).records:
        if "slot" in record:
            turn.slot = datetime.fromisoformat(record["slot"])
        if "gather" in record:
            turn.gathered = Gathered(record["gather"]["values"], record["gather"]["fingerprints"])
        elif "outcome" in record:
            turn.outcome, turn.usage = record["outcome"], record.get("usage", {})
    return turn


def fork_gather(journal: Journal, turn: Turn, parent: str) -> None:
    """A retry starts after its parent's gather: the same inputs, not fetched again."""
    for record in read_body(journal.directory, parent).records:
        if "gather" in record:
            turn.gathered = Gathered(record["gather"]["values"], record["gather"]["fingerprints"])
            append_body(journal.directory, turn.id, {"gather": record["gather"]})
            fingerprints = {k: v for k, v in turn.gathered.fingerprints.items() if v.startswith("sha256:")}
            checkpoint(journal, turn, "gather", inputs=fingerprints)
            return


def checkpoint(journal: Journal, turn: Turn, step: str, **data: Any) -> None:
    journal.append("turn.step", {"step": step, **data}, turn=turn.id, key=None)
    turn.steps.append(step)


def gather(journal: Journal, turn: Turn, deps: Deps) -> None:
    if turn.cause == "approval":
        from hz.turn.approval_step import gather_approval

        turn.gathered = gather_approval(journal, turn, deps)
    else:
        try:
            turn.gathered = deps.gather(turn.plan, turn.slot)
            check_targets(turn.plan, turn.slot)  # the path rule again before the paid think: links move
        except HzError as exc:
            raise Finished(
                finish(journal, turn, deps, disposition="failed", reason="gather", error=exc.message)
            ) from None
    append_body(
        journal.directory,
        turn.id,
        {"gather": {"values": turn.gathered.values, "fingerprints": turn.gathered.fingerprints}},
    )
    fingerprints = {k: v for k, v in turn.gathered.fingerprints.items() if v.startswith("sha256:")}
    checkpoint(journal, turn, "gather", inputs=fingerprints)


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
        turn.usage = _usage(exc.usage, gate)
        cap = _refusal(gate)
        if cap is not None and exc.usage.usd == 0:  # refused before anything was paid: the slot may wait
            _cap_refused(journal, turn, deps, cap)
        raise Finished(
            finish(journal, turn, deps, disposition="skipped", reason="cap", error=exc.message, cap=cap)
        ) from None
    except RunnerError as exc:
        turn.usage = _usage(exc.usage, gate)
        raise Finished(finish(journal, turn, deps, disposition="failed", reason="runner", error=exc.message)) from None
    crashpoint("think.after", deps.environ)  # replied and settled, nothing of it recorded in the turn yet
    # a model may write out the key its endpoint was sent (an echo): never into a draft, body or report
    turn.outcome = secrets_of(deps.environ).redact_value(result.outcome.model_dump(mode="json"))
    turn.usage = _usage(result.usage, gate)
    append_body(journal.directory, turn.id, {"outcome": turn.outcome, "usage": turn.usage})
    kind = turn.outcome["kind"]
    checkpoint(
        journal,
        turn,
        "think",
        outcome=kind if kind in _STEP_OUTCOMES else None,
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


def outcome(journal: Journal, turn: Turn, deps: Deps) -> None:
    from hz.runners.outcome import Outcome, outcome_problems

    assert turn.outcome is not None, "think records the outcome before outcome runs"
    parsed = Outcome.model_validate(turn.outcome)
    want = steering.wanted(turn)
    outputs = dict(turn.plan.outputs) if parsed.kind == "draft" else {}
    problems = outcome_problems(parsed, want, outputs)
    if problems:
        error = "; ".join(problems)[:1900]
        raise Finished(finish(journal, turn, deps, disposition="failed", reason="outcome", error=error))
    kind = parsed.kind
    checkpoint(journal, turn, "outcome", outcome=kind if kind in _STEP_OUTCOMES else None)


def act(journal: Journal, turn: Turn, deps: Deps) -> None:
    from hz.turn.acts import act_on

    try:
        output_hash = act_on(journal, turn, deps)
    except HzError as exc:  # a target that cannot take the draft: the turn fails, it is not retried blindly
        raise Finished(finish(journal, turn, deps, disposition="failed", reason="act", error=exc.message)) from None
    if output_hash is not None:
        turn.usage["output_hash"] = output_hash
    checkpoint(journal, turn, "act")


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
    usage = _usage(result.usage, None)
    usage.pop("flags", None)  # the ledger keeps a summary request's flags; `usage` has no field for them
    journal.append("usage", {"kind": "summary", **usage}, turn=turn.id, key=None)


STEP_FUNCTIONS = {"gather": gather, "think": think, "outcome": outcome, "act": act}


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


def _disposition(turn: Turn) -> str:
    kind = (turn.outcome or {}).get("kind", "nothing")
    return DISPOSITION.get(str(kind), "skipped")


def _reason(turn: Turn) -> str | None:
    return "nothing-to-do" if _disposition(turn) == "skipped" else None


def _usage(usage: Any, gate: LedgerGate | None) -> dict[str, Any]:
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
