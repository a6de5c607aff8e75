"""The think request of a turn: its deterministic context, the caps, the steering feed, the prior transcript.

Everything the model will read is scrubbed of the environment's secrets here (`hz.secrets`), whichever
source or error it came from.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hz.runners.base import ContextMessage, SpendGate, ThinkRequest
from hz.secrets import Secrets, secrets_of
from hz.session.bodies import append_body, read_body
from hz.session.inbox import list_requests
from hz.turn import context, history, steering
from hz.turn.discovered import sources_for
from hz.turn.engine import Deps, Turn
from hz.turn.hztools import offered
from hz.turn.journal import Journal


def build_request(
    journal: Journal,
    turn: Turn,
    deps: Deps,
    *,
    budget_usd: float,
    want: frozenset[str] | None = None,
    spend: SpendGate | None = None,
) -> ThinkRequest:
    built = context.build(material(journal, turn, deps))
    secrets = secrets_of(deps.environ)
    prior = _prior(read_body(journal.directory, turn.id).records) if want is None else ()
    running = (deps.clock() - history.parse_ts(turn.started.ts)).total_seconds()

    def record(entry: dict[str, Any]) -> None:
        append_body(journal.directory, turn.id, {"think" if want is None else "summary": entry})

    return ThinkRequest(
        agent_id=turn.plan.agent_id,
        turn_id=turn.id,
        instructions=secrets.scrub(built.instructions),
        messages=tuple(ContextMessage("user", secrets.scrub(f"[{b.title}]\n{b.text}")) for b in built.blocks),
        inputs=secrets.scrub_value(turn.gathered.values) if turn.gathered else {},
        outputs=dict(turn.plan.outputs),
        want=want if want is not None else steering.wanted(turn),
        max_tokens=turn.plan.max_tokens,
        max_usd=budget_usd,
        timeout_s=max(1.0, turn.plan.timeout_s - running),
        tools=(*deps.tools, *offered(turn.plan.tools, turn.plan.root)),
        steering=_scrubbed(steering.steering_feed(journal, turn, deps), secrets),
        prior=prior,
        record=record,
        model=turn.plan.model,
        max_turns=turn.plan.max_turns,
        cwd=turn.plan.root,
        discovered=tuple(sources_for(journal.directory, turn.keys)),
        spend=spend,
        check_cancel=steering.stop_check(journal, turn),
    )


def _scrubbed(feed: Callable[[], list[str]], secrets: Secrets) -> Callable[[], list[str]]:
    """The steering feed as the model reads it: a chat sent while the turn thinks, scrubbed like the rest."""
    return lambda: [secrets.scrub(text) for text in feed()]


def _prior(records: list[dict[str, Any]]) -> tuple[dict[str, Any], ...]:
    """The recorded transcript of this think step, since the turn was last reopened after a wait."""
    prior: list[dict[str, Any]] = []
    for record in records:
        if "rethink" in record:
            prior = []
        elif "think" in record:
            prior.append(record["think"])
    return tuple(prior)


def material(journal: Journal, turn: Turn, deps: Deps) -> context.Material:
    """What the model may see, all of it read from the spine as it stood when the turn started."""
    events = [e for e in journal.events() if e.seq < turn.started.seq]
    pinned = int(turn.started.data.get("lessons_seq", 0))
    summary, past = history.since_summary(events, keep=deps.settings.summary_keep_turns)
    return context.Material(
        contract_body=turn.plan.body,
        lessons=[sentence for _, sentence in history.active_lessons(journal.events(), up_to_seq=pinned)],
        summary=summary,
        history=past,
        last_approved=last_approved(journal, events),
        inputs=turn.gathered.values if turn.gathered else None,
        asked=asked_texts(journal, turn) + steering.steered_texts(journal, turn),
        discovered=sources_for(journal.directory, turn.keys),
    )


def asked_texts(journal: Journal, turn: Turn) -> list[str]:
    """The user's words behind this turn's asked and retry causes, from the inbox (never the spine)."""
    wanted = {k.rsplit("@", 1)[-1] for k in turn.keys}
    prefix = f"{turn.plan.agent_id}@question:{turn.id}"
    answers = {str(e.data.get("request_id")) for e in journal.events() if e.kind == "question.answered"
               and e.data.get("key") == prefix}  # fmt: skip
    texts = [r.text for r in list_requests(journal.directory) if r.request_id in wanted and r.text]
    texts += [
        f"Your question was answered: {r.text}" for r in list_requests(journal.directory) if r.request_id in answers
    ]
    if any(e.kind == "question.answered" and e.data.get("key") == prefix and not e.data.get("request_id")
           for e in journal.events()):  # fmt: skip
        texts.append(
            "Your question went unanswered and its wait ran out: go on without the answer, and do not ask again."
        )
    hint = turn.started.data.get("hint")
    return [*texts, f"Try again: {hint}"] if hint else texts


def last_approved(journal: Journal, events: list[Any]) -> str | None:
    for event in reversed(events):
        if event.kind == "approval.observed" and event.data.get("decision") == "approved" and event.turn:
            for record in read_body(journal.directory, event.turn).records:
                if "approval" in record:
                    return str(record["approval"]["approved"])
    return None
