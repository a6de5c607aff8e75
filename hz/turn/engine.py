"""The turn engine: one wake walked through gather → think → outcome → act → finish, checkpointed.

Each step appends its `turn.step` event before the next begins, and whatever a later step needs that
the spine must not hold (fetched inputs, the model's transcript, the draft's text) goes to the turn body
first. A process that dies anywhere leaves a spine the next tick resumes from: the steps already
recorded are not run again, an interrupted think is rerun from its recorded messages, and effects go
through the ledger, so nothing is placed or spent twice. A turn past its timeout, or resumed more than
`max_resumes` times, is finished `abandoned` instead. A turn runs under the `Plan` it started with.

The caller holds the spine's lock (a `Journal`) for the whole turn: one writer per spine.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hz.config import HeinzelSettings
from hz.runners.base import Runner
from hz.session.bodies import append_body, body_ref, read_body
from hz.session.envelope import Envelope
from hz.session.kinds import VOCABULARY_VERSION
from hz.turn import history
from hz.turn.causes import Cause, Wake
from hz.turn.crash import crashpoint
from hz.turn.journal import Journal
from hz.turn.plan import Plan

if TYPE_CHECKING:
    from hz.spend.ledger import Ledger

DISPOSITION = {
    "draft": "drafted",
    "question": "asked",
    "lessons": "learned",
    "amendment": "proposed",
    "summary": "learned",
    "nothing": "skipped",
}


@dataclass(frozen=True)
class Gathered:
    values: Mapping[str, Mapping[str, Any]]  # input -> facet -> canonical value
    fingerprints: Mapping[str, str]  # input -> fingerprint of its facets


@dataclass
class Deps:
    """Everything a turn reaches outside its spine, passed in so a turn is a function of its inputs."""

    runner: Runner
    settings: HeinzelSettings
    environ: Mapping[str, str]
    clock: Callable[[], datetime]
    gather: Callable[[Plan, datetime], Gathered]
    spent_today: Callable[[], float] = lambda: 0.0
    next_due: Callable[[], datetime | None] = lambda: None
    tools: tuple[Any, ...] = ()  # hz.runners.base.ToolSpec values the model may call this turn
    ledger: Ledger | None = None  # the day's spend ledger: each model request reserves there first


@dataclass(frozen=True)
class TurnResult:
    turn: str
    disposition: str
    reason: str | None = None
    usd: float = 0.0
    follow_up: tuple[Cause, ...] = ()
    error: str | None = None  # why a failed or abandoned turn ended, in words
    cap: Mapping[str, Any] | None = None  # which cap skipped it (hz.session.turn_payloads.CapSkip)
    flags: tuple[str, ...] = ()  # the endpoint over-reported, or sent no usage


@dataclass
class Turn:
    """The working memory of one turn, rebuilt from its events and body on resume."""

    id: str
    plan: Plan
    started: Envelope
    slot: datetime
    steps: list[str] = field(default_factory=list)
    gathered: Gathered | None = None
    outcome: dict[str, Any] | None = None
    usage: dict[str, Any] = field(default_factory=dict)
    started_monotonic: float = field(default_factory=time.monotonic)

    @property
    def cause(self) -> str:
        return str(self.started.data["cause"])

    @property
    def causes(self) -> list[str]:
        return [str(c) for c in self.started.data.get("causes", [self.cause])]

    @property
    def keys(self) -> list[str]:
        return [str(k) for k in self.started.data.get("keys", [])]


def new_turn_id(now: datetime) -> str:
    from ulid import ULID

    return str(ULID.from_datetime(now))


def wake_slot(wake: Wake, now: datetime) -> datetime:
    """The slot a wake drafts for: its schedule slot, else the minute it starts (see `turn_slot`)."""
    for cause in wake.causes:
        if cause.kind == "schedule":
            return cause.due
    return now.replace(second=0, microsecond=0)


def turn_slot(started: Envelope) -> datetime:
    """The same slot read back from `turn.started`, so a resumed turn drafts under the same key."""
    keys = [str(k) for k in started.data.get("keys", [])]
    causes = [str(c) for c in started.data.get("causes", [])]
    for kind, key in zip(causes, keys, strict=False):
        if kind == "schedule":
            return datetime.strptime(key.rsplit("@", 1)[1], "%Y-%m-%dT%H:%MZ").replace(tzinfo=UTC)
    return history.parse_ts(started.ts).replace(second=0, microsecond=0)


def skip(journal: Journal, wake: Wake, reason: str, *, moved: list[str], next_due: datetime | None) -> Envelope:
    """One line, no body, no model: the slot was looked at and nothing needed doing (or could be paid)."""
    data: dict[str, Any] = {"causes": [c.kind for c in wake.causes], "keys": list(wake.keys), "reason": reason}
    data["moved"] = moved
    if next_due is not None:
        data["next_due"] = next_due.isoformat()
    return journal.append("turn.skipped", data, turn=None, key=wake.key)


def start(journal: Journal, plan: Plan, wake: Wake, deps: Deps) -> TurnResult:
    """Begin a new turn for `wake` and walk it to its end."""
    now = deps.clock()
    turn_id = new_turn_id(now)
    data: dict[str, Any] = {
        "cause": wake.cause.kind,
        "causes": [c.kind for c in wake.causes],
        "keys": list(wake.keys),
        "contract_version": plan.version,
        "skills": dict(plan.skills),
        "lessons_seq": history.last_lesson_seq(journal.events()),
        "vocabulary": VOCABULARY_VERSION,
    }
    for cause in wake.causes:
        if cause.kind == "retry":
            data.update(parent_turn=cause.detail.get("parent_turn"), from_step=cause.detail.get("from_step"))
            if cause.detail.get("hint"):
                data["hint"] = cause.detail["hint"]
    started = journal.append("turn.started", data, turn=turn_id, key=wake.key)
    crashpoint("turn.started", deps.environ)
    turn = Turn(turn_id, plan, started, turn_slot(started))
    from hz.turn.checkpoints import fork_gather
    from hz.turn.walk import walk

    parent = data.get("parent_turn")
    if parent and data.get("from_step") in (None, "gather"):
        fork_gather(journal, turn, str(parent))
    return walk(journal, turn, deps)


def resume(
    journal: Journal, open_turn: history.OpenTurn, plan: Plan, deps: Deps, *, counted: bool = True
) -> TurnResult:
    """Continue an open turn at its last checkpoint, or abandon it when it ran too long or too often.

    A resume after a crash is `counted` against `max_resumes`; one after a wait fired is not.
    """
    from hz.turn.checkpoints import restore
    from hz.turn.finish import abandon
    from hz.turn.walk import walk

    now = deps.clock()
    dead = dead_spans(journal.directory, open_turn.turn)
    resumes = 0
    if counted:  # the time since the killed process's last line was nobody's running time
        resumes = sum(1 for r in read_body(journal.directory, open_turn.turn).records if "resumed" in r)
        gap = (open_turn.last_ts, now)
        record = {"resumed": resumes + 1, "at": open_turn.last_step or "started", "dead": [_iso(t) for t in gap]}
        append_body(journal.directory, open_turn.turn, record)
        dead.append(gap)
    if open_turn.running_seconds(now, dead) > plan.timeout_s:
        return abandon(journal, open_turn, plan, deps, reason="timeout")
    if counted and resumes >= deps.settings.max_resumes:
        return abandon(journal, open_turn, plan, deps, reason="max-resumes")
    turn = restore(journal, open_turn, plan)
    return walk(journal, turn, deps)


def dead_spans(directory: Path, turn: str) -> list[tuple[datetime, datetime]]:
    """The spans a crash left dead in this turn, as each resume recorded them in the body."""
    spans: list[tuple[datetime, datetime]] = []
    for record in read_body(directory, turn).records:
        dead = record.get("dead")
        if "resumed" in record and isinstance(dead, list) and len(dead) == 2:
            spans.append((history.parse_ts(str(dead[0])), history.parse_ts(str(dead[1]))))
    return spans


def running_seconds(journal: Journal, turn: Turn, now: datetime) -> float:
    """The turn's own running time so far: waits and dead spans left out (what `duration_s` records)."""
    events = history.of_turn(journal.events(), turn.id)
    return history.running_seconds(events, now, dead_spans(journal.directory, turn.id))


def _iso(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat()


def reopen(journal: Journal, turn: str, *, woken_by: str, step: str) -> history.OpenTurn:
    """Resume a waiting turn: `turn.resumed`, and the steps from `step` on run again with fresh context."""
    journal.append("turn.resumed", {"woken_by": woken_by, "step": step}, turn=turn, key=None)
    append_body(journal.directory, turn, {"rethink": step})
    return history.reopened(journal.events(), turn)


def body_reference(journal: Journal, turn: str) -> dict[str, Any] | None:
    ref = body_ref(journal.directory, turn)
    return None if ref is None else ref.as_dict()
