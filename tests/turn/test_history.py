"""What a spine says about turns: settled keys, open turns, what the model may see."""

from __future__ import annotations

from typing import Any

from hz.session.envelope import Envelope
from hz.turn import history

A = "hz-01JC0000000000000000000000"


def spine(*events: tuple[str, dict[str, Any], str | None, str | None]) -> list[Envelope]:
    return [Envelope(n, f"2026-10-30T15:{n:02d}:00.000Z", None, kind, data, turn, key)
            for n, (kind, data, turn, key) in enumerate(events, start=1)]  # fmt: skip


def test_finished_and_skipped_keys_are_settled_an_open_one_is_not() -> None:
    events = spine(
        ("turn.started", {"cause": "schedule", "keys": [f"{A}@s1", f"{A}@r1"]}, "t1", f"{A}@s1"),
        ("turn.finished", {"disposition": "drafted", "cause": "schedule"}, "t1", None),
        ("turn.skipped", {"causes": ["schedule"], "keys": [f"{A}@s2"], "reason": "nothing-moved"}, None, f"{A}@s2"),
        ("turn.started", {"cause": "asked", "keys": [f"{A}@r2"]}, "t2", f"{A}@r2"),
        ("turn.step", {"step": "gather"}, "t2", None),
    )
    assert history.settled_keys(events) == {f"{A}@s1", f"{A}@r1", f"{A}@s2"}
    assert [(t.turn, t.steps) for t in history.open_turns(events)] == [("t2", ["gather"])]


def test_a_resumed_wait_reruns_from_the_step_that_waited() -> None:
    events = spine(
        ("turn.started", {"cause": "asked", "keys": [f"{A}@r1"]}, "t1", f"{A}@r1"),
        ("turn.step", {"step": "gather"}, "t1", None),
        ("turn.step", {"step": "think"}, "t1", None),
        ("turn.step", {"step": "outcome"}, "t1", None),
        ("turn.waiting", {"step": "think"}, "t1", None),
        ("turn.resumed", {"woken_by": "answer", "step": "think"}, "t1", None),
    )
    (open_turn,) = history.open_turns(events)
    assert (open_turn.steps, open_turn.waiting) == (["gather"], None)


def test_dismissed_and_hidden_lessons_never_reach_the_model_and_edits_replace_lines() -> None:
    events = spine(
        ("lesson.recorded", {"lesson_id": "l1", "sentence": "risks first"}, "t1", None),
        ("lesson.recorded", {"lesson_id": "l2", "sentence": "no adjectives"}, "t1", None),
        ("lesson.recorded", {"lesson_id": "l3", "sentence": "name the epic"}, "t1", None),
        ("lesson.dismissed", {"lesson_id": "l2"}, None, None),
        ("context.edit", {"target": "l3", "replacement": None}, None, None),
        ("turn.started", {"cause": "schedule", "keys": [f"{A}@s1"]}, "t2", f"{A}@s1"),
        ("turn.finished", {"disposition": "drafted", "cause": "schedule", "report": "a private name"}, "t2", None),
        ("context.edit", {"target": "t2", "replacement": "drafted the week"}, None, None),
    )
    assert history.active_lessons(events) == [("l1", "risks first")]
    assert history.active_lessons(events, up_to_seq=1) == [("l1", "risks first")]
    summary, past = history.since_summary(events)
    assert (summary, past) == (None, [{"turn": "t2", "cause": "schedule", "disposition": "drafted",
                                       "report": "drafted the week"}])  # fmt: skip


def test_requests_taken_in_and_requests_left_for_the_next_turn() -> None:
    events = spine(
        ("turn.started", {"cause": "retry", "keys": [f"{A}@retry:t0:rq-1"]}, "t1", f"{A}@retry:t0:rq-1"),
        ("turn.steered", {"request_id": "rq-2", "hash": "h"}, "t1", None),
        ("turn.requested", {"cause": "asked", "key": f"{A}@rq-3"}, "t1", None),
        ("turn.finished", {"disposition": "drafted", "cause": "retry"}, "t1", None),
    )
    assert {"rq-1", "rq-2", "rq-3"} <= history.taken_requests(events)
    assert [e.data["key"] for e in history.requested_unstarted(events)] == [f"{A}@rq-3"]


def test_turns_kept_verbatim_beside_the_summary() -> None:
    events = spine(
        ("turn.started", {"cause": "schedule", "keys": [f"{A}@s1"]}, "t1", f"{A}@s1"),
        ("turn.finished", {"disposition": "drafted", "cause": "schedule", "report": "week 1"}, "t1", None),
        ("turn.started", {"cause": "asked", "keys": [f"{A}@r1"]}, "t2", f"{A}@r1"),
        ("turn.finished", {"disposition": "asked", "cause": "asked", "report": "week 2"}, "t2", None),
        ("summary.written", {"asset": "notes", "wants": "short notes"}, "t2", None),
        ("turn.started", {"cause": "schedule", "keys": [f"{A}@s3"]}, "t3", f"{A}@s3"),
        ("turn.finished", {"disposition": "drafted", "cause": "schedule", "report": "week 3"}, "t3", None),
    )
    summary, past = history.since_summary(events, keep=1)
    assert summary == {"asset": "notes", "wants": "short notes"}
    assert [line["report"] for line in past] == ["week 2", "week 3"]
    assert [line["report"] for line in history.since_summary(events)[1]] == ["week 3"]
