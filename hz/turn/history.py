"""What one spine says about turns: keys already settled, turns still open, what the model may see.

Pure functions over the events of one spine, so the tick, the engine and the commands agree on what a
spine means and the rules are tested without any storage.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from hz.session.envelope import Envelope

FINAL = frozenset({"turn.finished", "turn.skipped"})


def parse_ts(ts: str) -> datetime:
    return datetime.fromisoformat(ts.replace("Z", "+00:00"))


def settled_keys(events: Iterable[Envelope]) -> set[str]:
    """Keys of turns that finished or were skipped: never run again."""
    started: dict[str, list[str]] = {}
    settled: set[str] = set()
    for event in events:
        if event.kind == "turn.started" and event.turn:
            started[event.turn] = _keys(event)
        elif event.kind == "turn.finished" and event.turn:
            settled.update(started.get(event.turn, []))
        elif event.kind == "turn.skipped":
            settled.update(str(k) for k in event.data.get("keys", []))
    return settled


def started_keys(events: Iterable[Envelope]) -> set[str]:
    return {k for e in events if e.kind == "turn.started" for k in _keys(e)}


def _keys(event: Envelope) -> list[str]:
    keys = [str(k) for k in event.data.get("keys", [])]
    if event.key and event.key not in keys:
        keys.insert(0, event.key)
    return keys


@dataclass
class OpenTurn:
    """A turn with `turn.started` and no `turn.finished`: resumed at its last checkpoint."""

    turn: str
    started: Envelope
    steps: list[str] = field(default_factory=list)
    waiting: Envelope | None = None  # the last turn.waiting not followed by turn.resumed
    events: list[Envelope] = field(default_factory=list)

    @property
    def keys(self) -> list[str]:
        return _keys(self.started)

    @property
    def last_step(self) -> str | None:
        return self.steps[-1] if self.steps else None

    def running_seconds(self, now: datetime, dead: Sequence[tuple[datetime, datetime]] = ()) -> float:
        """Time spent running, up to `now`: waits and the `dead` spans (a killed process's) excluded."""
        return running_seconds(self.events, now, dead)

    @property
    def last_ts(self) -> datetime:
        """When this turn last wrote a line: a killed process ran at least until then, and no later is known."""
        return parse_ts(self.events[-1].ts) if self.events else parse_ts(self.started.ts)


def running_seconds(events: Sequence[Envelope], now: datetime, dead: Sequence[tuple[datetime, datetime]] = ()) -> float:
    """A turn's own running time: from its `turn.started` (the first of `events`) to `now`, less every wait
    (`turn.waiting` to `turn.resumed`, or to `now` while it waits) and every span a crash left dead (from
    the last line the killed process wrote to the resume that took the turn over, recorded in the body)."""
    if not events:
        return 0.0
    total = (now - parse_ts(events[0].ts)).total_seconds()
    wait_start: datetime | None = None
    for event in events:
        if event.kind == "turn.waiting":
            wait_start = parse_ts(event.ts)
        elif event.kind == "turn.resumed" and wait_start is not None:
            total -= (parse_ts(event.ts) - wait_start).total_seconds()
            wait_start = None
    if wait_start is not None:
        total -= (now - wait_start).total_seconds()
    total -= sum(max(0.0, (end - begin).total_seconds()) for begin, end in dead)
    return max(total, 0.0)


def open_turns(events: Sequence[Envelope]) -> list[OpenTurn]:
    turns: dict[str, OpenTurn] = {}
    for event in events:
        if event.turn is None:
            continue
        if event.kind == "turn.started":
            turns[event.turn] = OpenTurn(event.turn, event, events=[event])
            continue
        current = turns.get(event.turn)
        if current is None:
            continue
        current.events.append(event)
        if event.kind == "turn.finished":
            del turns[event.turn]
        elif event.kind == "turn.step":
            current.steps.append(str(event.data.get("step")))
        elif event.kind == "turn.waiting":
            current.waiting = event
        elif event.kind == "turn.resumed":
            current.waiting = None
            step = event.data.get("step")
            if step in current.steps:  # run again from the step that decided to wait
                del current.steps[current.steps.index(step) :]
    return list(turns.values())


def reopened(events: Sequence[Envelope], turn: str) -> OpenTurn:
    """The open turn as it stands after its `turn.resumed`: steps from the waiting one on run again."""
    return next(t for t in open_turns(events) if t.turn == turn)


def active_lessons(events: Iterable[Envelope], *, up_to_seq: int | None = None) -> list[tuple[str, str]]:
    """(lesson id, sentence) of lessons recorded (up to a pinned seq) and never dismissed or hidden."""
    lessons: dict[str, str] = {}
    hidden: set[str] = set()
    for event in events:
        if up_to_seq is not None and event.seq > up_to_seq:
            break
        if event.kind == "lesson.recorded":
            lessons[str(event.data["lesson_id"])] = str(event.data["sentence"])
        elif event.kind == "lesson.dismissed":
            hidden.add(str(event.data["lesson_id"]))
        elif event.kind == "context.edit" and event.data.get("replacement") is None:
            hidden.add(str(event.data["target"]))
    return [(i, s) for i, s in lessons.items() if i not in hidden]


def last_lesson_seq(events: Iterable[Envelope]) -> int:
    return max((e.seq for e in events if e.kind in {"lesson.recorded", "lesson.dismissed"}), default=0)


def since_summary(
    events: Sequence[Envelope], *, keep: int = 0
) -> tuple[Mapping[str, Any] | None, list[dict[str, Any]]]:
    """The last summary's data and every settled turn after it, rendered compactly (context edits applied).

    `keep` turns settled before the summary stay beside it verbatim (`[heinzel] summary_keep_turns`).
    """
    summary: Mapping[str, Any] | None = None
    cut = 0
    for index, event in enumerate(events):
        if event.kind == "summary.written":
            summary, cut = event.data, index + 1
    if summary is not None and keep > 0:
        before = [i for i, e in enumerate(events[:cut]) if e.kind in FINAL]
        cut = before[-keep] if len(before) >= keep else (before[0] if before else cut)
    edits = {str(e.data["target"]): e.data.get("replacement") for e in events if e.kind == "context.edit"}
    causes = {e.turn: e.data.get("cause") for e in events if e.kind == "turn.started"}
    history: list[dict[str, Any]] = []
    for event in events[cut:]:
        if event.kind not in FINAL or (event.turn in edits and edits[event.turn] is None):
            continue
        line = {"turn": event.turn or "-", "cause": event.data.get("cause") or causes.get(event.turn, "-")}
        if event.kind == "turn.skipped":
            line.update(disposition="skipped", report=event.data.get("reason"))
        else:
            line.update(disposition=event.data.get("disposition"), report=event.data.get("report"))
        if event.turn in edits:
            line["report"] = edits[event.turn]
        history.append(line)
    return summary, history


def spent_since(events: Iterable[Envelope], start: datetime) -> float:
    """USD this spine recorded since `start`: turns, skips that spent, and usage outside turns."""
    total = 0.0
    for event in events:
        if event.kind in {"turn.finished", "turn.skipped", "usage"} and parse_ts(event.ts) >= start:
            total += float(event.data.get("usd", 0.0))
    return total


def placed_draft(events: Iterable[Envelope], key: str) -> Envelope | None:
    for event in events:
        if event.kind == "draft.placed" and event.data.get("key") == key:
            return event
    return None


def taken_requests(events: Iterable[Envelope]) -> set[str]:
    """Request ids the spine already took in (steered, requested, started as asked, or skipped: a request
    whose turn was skipped, for a cap say, is settled and never taken in again by a later turn)."""
    seen: set[str] = set()
    for event in events:
        if event.kind in ("turn.steered", "question.answered") and event.data.get("request_id"):
            seen.add(str(event.data["request_id"]))
        elif event.kind == "turn.requested":
            seen.add(str(event.data["key"]).rsplit("@", 1)[-1])
        # asked: <id>@<request>; retry: <id>@retry:<turn>:<request>
        elif event.kind in ("turn.started", "turn.skipped"):
            seen.update(k.rsplit("@", 1)[-1].rsplit(":", 1)[-1] for k in _keys(event))
    return seen


def of_turn(events: Sequence[Envelope], turn: str) -> list[Envelope]:
    return [e for e in events if e.turn == turn]


def last_of(events: Sequence[Envelope], kind: str, *, key: str | None = None) -> Envelope | None:
    found: Envelope | None = None
    for event in events:
        if event.kind == kind and (key is None or event.key == key):
            found = event
    return found


def requested_keys(events: Iterable[Envelope]) -> set[str]:
    return {str(e.data.get("key")) for e in events if e.kind == "turn.requested"}


def requested_unstarted(events: Sequence[Envelope]) -> list[Envelope]:
    """turn.requested events whose key no turn has started yet: the next turn's causes."""
    started = started_keys(events)
    seen: set[str] = set()
    found: list[Envelope] = []
    for event in events:
        key = str(event.data.get("key", ""))
        if event.kind == "turn.requested" and key not in started and key not in seen:
            seen.add(key)
            found.append(event)
    return found
