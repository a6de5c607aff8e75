"""The turns a person asks for: wake, chat, answer, retry, resume, stop (hz.tick.direct does the work).

Each message goes to the agent's inbox first; the operation runs the turn in this process unless another
process holds the agent (it is awake), and then the message waits for that turn's next step.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime

from hz.errors import HzError
from hz.ops import SCHEMA_VERSION
from hz.ops.checks import check_sentence
from hz.ops.context import Context
from hz.ops.models_actions import AnswerRequest, AnswerResult, ChatRequest, RetryRequest, TurnResult
from hz.ops.models_agents import AgentRequest


def _request_id(now: datetime) -> str:
    from ulid import ULID

    return "rq-" + str(ULID.from_datetime(now)).lower()


def _result(name: str, outcome: object, environ: Mapping[str, str], *, later: bool = False) -> TurnResult:
    """What ran, or where the message went, with the lines the CLI prints for it (both scrubbed of the
    environment's secrets)."""
    from hz.commands.tick import render_report
    from hz.secrets import secrets_of
    from hz.tick.direct import Outcome
    from hz.tick.report import TickReport

    assert isinstance(outcome, Outcome)
    if outcome.queued == "stop":
        said = [f"{name} is awake in another process; asked its turn to stop at the next step"]
    elif outcome.queued and not outcome.running:
        said = [f"{name} is held by another hz process (no turn runs); your message ({outcome.queued}) "
                "waits in its inbox, and the next tick takes it in"]  # fmt: skip
    elif outcome.queued:
        where = "runs as its next turn" if later else "reaches the running turn"
        said = [f"{name} is awake; your message ({outcome.queued}) {where}"]
    else:
        report = TickReport(datetime.now(UTC), woken=outcome.ran)
        report.team = outcome.team  # a team contract's disposition, when its turn did not run (who holds it)
        lines = render_report(report, environ)
        said = ["nothing to do" if line == "nothing due" else line for line in lines]
    ran = secrets_of(environ).scrub_value(outcome.ran)  # an agent's error may quote a server, as the lines do
    return {"schema_version": SCHEMA_VERSION, "agent": name, "queued": outcome.queued, "ran": ran, "said": said}


def wake(ctx: Context, request: AgentRequest) -> TurnResult:
    """A wake has no words to steer with: while the agent is awake it always becomes the next turn."""
    return chat(ctx, ChatRequest(name=request.name, message="", after=True))


def chat(ctx: Context, request: ChatRequest) -> TurnResult:
    from hz.tick.direct import ask

    _fits_the_inbox(request.message)

    now = ctx.moment()
    outcome = ask(request.name, request.message, after=request.after, request_id=_request_id(now), root=ctx.root,
                  environ=ctx.environ, now=now)  # fmt: skip
    return _result(request.name, outcome, ctx.environ, later=request.after or not request.message)


def _fits_the_inbox(message: str) -> None:
    """A message the inbox would not read back (hz.session.inbox.MAX_REQUEST_BYTES, stored as JSON, where an
    escaped character takes up to six bytes) is refused here, not written and then silently passed over."""
    from hz.session.inbox import MAX_REQUEST_BYTES

    most = MAX_REQUEST_BYTES // 8
    if len(message) > most:
        raise HzError(
            f"the message is {len(message)} characters long; a message holds at most {most}",
            hint="say it in fewer words, or put the text in a file the contract reads",
        )


def answer(ctx: Context, request: AnswerRequest) -> AnswerResult:
    """A message while a turn waits for the person's answer is that answer; refused when no question waits
    (or not the one named), so an answer never starts a turn of its own by mistake."""
    if not request.answer.strip():
        raise HzError("the answer is empty", hint="say what the agent asked for")
    question = _waiting_question(ctx, request.name, request.key)
    result = chat(ctx, ChatRequest(name=request.name, message=request.answer))
    return {**result, "question": question}


def _waiting_question(ctx: Context, name: str, key: str | None) -> str:
    from hz.heinzel.lifecycle import resolve
    from hz.session.store import Store

    with Store.from_environ(ctx.environ) as store:
        row = resolve(store, name)
        waiting = [str(q["key"]) for q in store.index.questions(row["id"]) if not q["answered"]]
    if not waiting:
        raise HzError(f"{row['name']} asked nothing that waits for an answer", hint=f"hz heinzel show {row['name']}")
    if key is not None and key not in waiting:
        raise HzError(f"{row['name']} has no open question {key!r}", hint=f"it waits for the answer to {waiting[-1]}")
    return key or waiting[-1]


def retry(ctx: Context, request: RetryRequest) -> TurnResult:
    from hz.tick.direct import retry as retry_turn

    check_sentence(request.hint, "the hint")
    now = ctx.moment()
    outcome = retry_turn(request.name, request.hint, request_id=_request_id(now), root=ctx.root, environ=ctx.environ,
                         now=now)  # fmt: skip
    return _result(request.name, outcome, ctx.environ, later=True)


def resume(ctx: Context, request: AgentRequest) -> TurnResult:
    from hz.tick.direct import resume as resume_turn

    outcome = resume_turn(request.name, root=ctx.root, environ=ctx.environ, now=ctx.moment())
    return _result(request.name, outcome, ctx.environ)


def stop(ctx: Context, request: AgentRequest) -> TurnResult:
    from hz.tick.direct import stop as stop_turn

    return _result(
        request.name, stop_turn(request.name, root=ctx.root, environ=ctx.environ, now=ctx.moment()), ctx.environ
    )
