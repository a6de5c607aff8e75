"""Turns the user asks for from the command line: wake, chat, retry, resume, stop.

Every message goes to the agent's inbox first. Then the command tries to become the spine's writer: if
it can, it runs the turn itself, in this process; if another process holds the lock (the agent is
awake), the message stays in the inbox and the running turn takes it in at its next step boundary —
as steering during gather and think, as the next turn after that.

A team contract where the repository keeps team state takes the team path, as a tick's turn does
(DESIGN.md, "Team operation"): one fetch of the team remote first, the lease of the turn's slot (the
minute it was asked in; a resumed turn's own slot), and one push afterwards with its receipts (which end
the lease's term), its draft branch, then the pull request; so the draft shows in every member's `hz drafts`.
Where the lease is held elsewhere, nothing runs and the command says who holds it until when.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from hz.config import load_user_config
from hz.errors import HzError, LockTimeout
from hz.session.inbox import put_request
from hz.session.store import Store
from hz.tick.agentwork import AgentWork
from hz.tick.asked import mark, unmark
from hz.tick.candidates import Candidate
from hz.tick.turn_deps import make_deps
from hz.turn import engine, history, steering
from hz.turn.causes import Cause, asked_key, retry_key
from hz.turn.clock import running_from
from hz.turn.journal import Journal
from hz.turn.steering import answers

LOCK_WAIT_S = 1.0


@dataclass(frozen=True)
class Outcome:
    ran: list[dict[str, Any]]  # what ran in this process
    queued: str | None = None  # the request id left for the running turn, when the agent was awake
    running: bool = True  # whether a turn runs in the process that held the agent (else it did bookkeeping)
    team: list[dict[str, Any]] = field(default_factory=list)  # a team contract's disposition (hz.tick.dispositions)


def _clock(now: datetime | None) -> Any:
    return running_from(now) if now is not None else (lambda: datetime.now(UTC))


@contextmanager
def session(
    store: Store,
    row: Mapping[str, Any],
    *,
    root: Path | None,
    environ: Mapping[str, str],
    now: datetime,
    runner: Any = None,
    team_path: bool = True,
) -> Iterator[AgentWork]:
    """The agent's plan and spine, under its lock; with `team_path`, a team contract's team (`_team`)."""
    from hz.turn.agents import load_plan

    config = load_user_config(environ)
    plan = load_plan(
        store.agent_dir(str(row["id"])),
        row,
        int(row["contract_version"]),
        root=root,
        default_tz=config.timezone or "UTC",
    )
    team = _team(root, environ, plan, config.handle) if team_path else None
    clock = _clock(now)
    with store.writer(str(row["id"]), timeout=LOCK_WAIT_S, now=now) as writer:
        journal = Journal(writer, clock)
        deps = make_deps(store, plan, config.heinzel, environ=environ, now=now, runner=runner, clock=clock)
        yield AgentWork(journal, Candidate(str(row["id"]), dict(row), plan), deps, store=store, now=now, team=team)


def _team(root: Path | None, environ: Mapping[str, str], plan: Any, handle: str | None) -> Any:
    """The team of a team contract's turn (hz.tick.team.Team, its one fetch done), or None where the
    repository keeps no team state. A remote that cannot be reached is an error: a team turn never runs
    unleased where leases are the rule."""
    from hz.tick.team import open_for

    return open_for(root, environ, handle) if plan.scope == "team" else None


def _settled(store: Store, work: AgentWork, ran: list[dict[str, Any]], now: datetime) -> Outcome:
    """What ran, then what the team push did (nothing to push for a personal contract)."""
    if work.team is None:
        return Outcome(ran)
    from hz.tick.team_side import decide_withheld, fenced_leases, push_team, without_started

    said, _ = push_team(store, work.team, now)
    for lease in fenced_leases(said):  # fenced: the one `fenced` line, and no draft left pending here
        ran = without_started(ran, work.candidate.plan.name)
        decide_withheld(work.journal, work.team, lease)
    disposition = [work.disposition.to_json()] if work.disposition is not None else []
    return Outcome(ran + said, team=disposition)


def _resolve(store: Store, name: str) -> dict[str, Any]:
    from hz.heinzel.lifecycle import resolve

    row = resolve(store, name)
    if row["state"] in {"proposed", "retired"} or not row.get("contract_version"):
        raise HzError(f"{row['name']} is {row['state']}: it does not wake", hint="hz approve or hz heinzel unretire it")
    return dict(row)


def ask(
    name: str, text: str, *, after: bool, request_id: str, root: Path | None, environ: Mapping[str, str],
    now: datetime, runner: Any = None, extra: Cause | None = None,
) -> Outcome:  # fmt: skip
    """A message (or a bare wake) as a turn of cause asked, run here unless the agent is awake."""
    with Store.from_environ(environ) as store:
        row = _resolve(store, name)
        request, _ = put_request(
            store.agent_dir(row["id"]), request_id, text, now=now, when_busy="follow-up" if after else "steer"
        )
        cause = extra or Cause("asked", asked_key(row["id"], request_id), now, {"request_id": request_id})
        mark(store.root, row["id"], request_id)  # the tick's cue, until a spine took the request in
        try:
            with session(store, row, root=root, environ=environ, now=now, runner=runner) as work:
                answering = extra is None and bool(text) and not after  # a bare wake answers nothing
                if not answering or not answers(work.journal, request):
                    work.candidate.causes.append(cause)
                outcome = _settled(store, work, work.run(), now)
        except LockTimeout:
            return Outcome([], queued=request_id, running=_turn_running(store, str(row["id"])))
        unmark(store.root, row["id"], [request_id])
        return outcome


def _turn_running(store: Store, agent: str) -> bool:
    """Whether the spine has a turn open and not waiting: what the process holding the lock is running.
    (Another hz process may hold it for bookkeeping alone: an approval, a rejection, a reindex.)"""
    return any(t.waiting is None for t in history.open_turns(store.read(agent).events))


def retry(
    name: str,
    hint: str,
    *,
    request_id: str,
    root: Path | None,
    environ: Mapping[str, str],
    now: datetime,
    runner: Any = None,
) -> Outcome:
    """A new turn forked after the last finished turn's gather step, with the user's hint."""
    with Store.from_environ(environ) as store:
        row = _resolve(store, name)
        events = store.read(row["id"]).events
    parent = history.last_of([e for e in events if e.kind == "turn.finished"], "turn.finished")
    if parent is None or parent.turn is None:
        raise HzError(f"{row['name']} has no finished turn to retry", hint="hz heinzel wake it first")
    detail = {"parent_turn": parent.turn, "from_step": "gather", "hint": hint, "request_id": request_id}
    cause = Cause("retry", retry_key(row["id"], parent.turn, request_id), now, detail)
    return ask(
        name, hint, after=True, request_id=request_id, root=root, environ=environ, now=now, runner=runner, extra=cause
    )


def resume(name: str, *, root: Path | None, environ: Mapping[str, str], now: datetime, runner: Any = None) -> Outcome:
    """The user says go on now: a waiting turn resumes with woken_by asked."""
    with Store.from_environ(environ) as store:
        row = _resolve(store, name)
        with session(store, row, root=root, environ=environ, now=now, runner=runner) as work:
            waiting = [t for t in history.open_turns(work.journal.events()) if t.waiting is not None]
            if not waiting:
                raise HzError(f"{row['name']} has no waiting turn", hint="hz heinzel wake starts a new one")
            open_turn = waiting[0]
            claim = work.claim_again(open_turn)  # a team turn goes on only under its slot's lease
            if claim is not None and not claim.won:
                return Outcome([{"agent": work.name, "action": "skipped", "reason": work.said(claim, open_turn)}],
                               team=[work.disposition.to_json()] if work.disposition else [])  # fmt: skip
            step = str(open_turn.waiting.data.get("step", "act")) if open_turn.waiting else "act"
            open_turn = engine.reopen(work.journal, open_turn.turn, woken_by="asked", step=step)
            result = engine.resume(work.journal, open_turn, work.plan, work.deps, counted=False)
            work.receipts(result, claim)
            return _settled(store, work, [work.entry("resumed", result)], now)


def stop(name: str, *, root: Path | None, environ: Mapping[str, str], now: datetime) -> Outcome:
    """End the running or waiting turn as abandoned (reason stopped); queued messages stay for the next turn."""
    with Store.from_environ(environ) as store:
        row = _resolve(store, name)
        directory = store.agent_dir(row["id"])
        try:
            with session(store, row, root=root, environ=environ, now=now, team_path=False) as work:
                from hz.turn.finish import abandon

                ran = [
                    work.entry("stopped", abandon(work.journal, t, work.plan, work.deps, reason="stopped"))
                    for t in history.open_turns(work.journal.events())
                ]
                steering.clear_stop(work.journal)
                return Outcome(ran)
        except LockTimeout:
            steering.request_stop(directory, now)
            return Outcome([], queued="stop")
