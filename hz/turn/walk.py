"""Walking a turn through its five steps, each one checkpointed before the next starts.

The gather, outcome and act steps are here; the paid think step is `hz.turn.think_step`, the checkpoints
`hz.turn.checkpoints`, and how a walk ends (finished, waiting, stopped, abandoned) `hz.turn.finish`.
"""

from __future__ import annotations

from hz.errors import HzError
from hz.review.targets import check_targets
from hz.session.bodies import append_body
from hz.session.kinds import STEPS
from hz.turn import steering
from hz.turn.checkpoints import STEP_OUTCOMES, checkpoint
from hz.turn.crash import crashpoint
from hz.turn.engine import DISPOSITION, Deps, Turn, TurnResult
from hz.turn.finish import Finished, Waiting, finish, stopped
from hz.turn.journal import Journal
from hz.turn.think_step import summarise_if_due, think

# A failure's reason by the step it happened in: the reasons the steps give their own failures.
_STEP_REASONS = {"gather": "gather", "think": "runner", "outcome": "outcome", "act": "act"}


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
    checkpoint(journal, turn, "outcome", outcome=kind if kind in STEP_OUTCOMES else None)


def act(journal: Journal, turn: Turn, deps: Deps) -> None:
    from hz.turn.acts import act_on

    try:
        output_hash = act_on(journal, turn, deps)
    except HzError as exc:  # a target that cannot take the draft: the turn fails, it is not retried blindly
        raise Finished(finish(journal, turn, deps, disposition="failed", reason="act", error=exc.message)) from None
    if output_hash is not None:
        turn.usage["output_hash"] = output_hash
    checkpoint(journal, turn, "act")


STEP_FUNCTIONS = {"gather": gather, "think": think, "outcome": outcome, "act": act}


def _disposition(turn: Turn) -> str:
    kind = (turn.outcome or {}).get("kind", "nothing")
    return DISPOSITION.get(str(kind), "skipped")


def _reason(turn: Turn) -> str | None:
    return "nothing-to-do" if _disposition(turn) == "skipped" else None
