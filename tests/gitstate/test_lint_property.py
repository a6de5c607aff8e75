"""Properties of the state lint: what it accepts is exactly what hz writes, and holds no value outside its shape.

Events are drawn from the field shapes themselves (hz.gitstate.shapes), then written out in many ways an
attacker could: another key order, blanks, `\\uXXXX` escapes, a duplicate key, non-ASCII lookalikes in a
value. Whatever the lint accepts must re-serialise to the very same bytes and carry only values that
match their field's pattern; the canonical form of every drawn event must be accepted.
"""

from __future__ import annotations

import json
import re
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hz.gitstate import shapes
from hz.gitstate.events import DraftPlaced, Event, TurnEnded, TurnStarted, path_of
from hz.gitstate.lint import check_event_file
from hz.gitstate.lint_text import first_address

AGENTS = st.from_regex(rf"\Ahz-{shapes.ULID}\Z")
HASHES = st.from_regex(rf"\A{shapes.HASH}\Z")
TURNS = st.from_regex(rf"\A{shapes.ULID}\Z")
SLOTS = st.from_regex(r"\A20[2-9][0-9]-(0[1-9]|1[0-2])-(0[1-9]|1[0-9]|2[0-8])T([01][0-9]|2[0-3]):[0-5][0-9]Z\Z")
OCCASIONS = st.from_regex(rf"\A(?:{'|'.join(shapes.OCCASIONS.values())})\Z")
ASSETS = st.from_regex(rf"\A{shapes.ASSET}\Z").filter(lambda a: len(a) <= shapes.MAX_ASSET)
TOKENS = st.integers(1, 2**31 - 1)
IDENTS = st.from_regex(rf"\A{shapes.IDENT}\Z")


@st.composite
def events(draw: st.DrawFn) -> Event:
    agent, token = draw(AGENTS), draw(TOKENS)
    kind = draw(st.sampled_from(["turn.started", "turn.finished", "draft.placed"]))
    ts = draw(SLOTS).replace("Z", ":00Z")
    if kind == "draft.placed":
        key = f"{agent}@v{draw(st.integers(1, 999))}@{draw(SLOTS)}@{draw(ASSETS)}"
        asset = shapes.occasion(key)[1].split("@", 2)[2]
        data: Any = DraftPlaced(turn=draw(TURNS), key=key, asset=asset, hash=draw(HASHES))
    else:
        key = f"{agent}@{draw(OCCASIONS)}"
        if len(key) > shapes.MAX_KEY:
            key = f"{agent}@created"
        common = {"turn": draw(TURNS), "cause": "schedule", "keys": [key]}
        if kind == "turn.started":
            data = TurnStarted(**common, contract_version=draw(st.integers(0, 99)), contract_fp=draw(HASHES),
                               token=token, role="owner")  # fmt: skip
        else:
            fps = draw(st.dictionaries(IDENTS, HASHES, max_size=3))
            data = TurnEnded(**common, disposition="drafted", input_fps=fps, cost_usd=round(draw(st.floats(0, 10)), 6))
    return Event.make(kind, id=agent, key=key, ts=ts, lease=agent, token=token, data=data)  # type: ignore[arg-type]


def _escape_one(text: str, index: int) -> str:
    """The JSON text with the `index`-th ASCII letter inside a string written as a `\\uXXXX` escape."""
    letters = [m.start() for m in re.finditer(r"[A-Za-z]", text)]
    if not letters:
        return text
    at = letters[index % len(letters)]
    return text[:at] + f"\\u{ord(text[at]):04x}" + text[at + 1 :]


@st.composite
def writings(draw: st.DrawFn, event: Event) -> bytes:
    """`event` written the way a hand-made push might write it."""
    raw: dict[str, Any] = json.loads(event.line())
    how = draw(st.sampled_from(["canonical", "dumps", "escape", "duplicate", "lookalike", "extra-default"]))
    if how == "canonical":
        return event.line()
    if how == "dumps":
        text = json.dumps(
            raw, sort_keys=draw(st.booleans()), separators=draw(st.sampled_from([(",", ":"), (", ", ": ")]))
        )
        return text.encode() + b"\n"
    if how == "escape":
        return _escape_one(event.line().decode().rstrip("\n"), draw(st.integers(0, 500))).encode() + b"\n"
    if how == "duplicate":
        name = draw(st.sampled_from(sorted(raw)))
        return b'{"' + name.encode() + b'":' + json.dumps(raw[name]).encode() + b"," + event.line()[1:]
    if how == "lookalike":
        raw["data"]["turn"] = draw(st.sampled_from(["\uff21", "\u0410", "\u200b"])) + raw["data"]["turn"][1:]
        return json.dumps(raw, ensure_ascii=False, sort_keys=True, separators=(",", ":")).encode() + b"\n"
    raw["data"].setdefault("causes", [])  # a default hz leaves out
    return json.dumps(raw, sort_keys=True, separators=(",", ":")).encode() + b"\n"


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in (k, *_strings(v))]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


@given(st.data())
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_what_the_lint_accepts_is_exactly_what_hz_writes(data: st.DataObject) -> None:
    event = data.draw(events())
    path = path_of(event)
    assert check_event_file(path, event.line()) == [], event.line()
    written = data.draw(writings(event))
    if check_event_file(path, written):
        return
    raw = json.loads(written)
    again = Event.parse_obj_checked(raw)
    assert again.line() == written
    again.payload()  # every value in its field's shape (the models forbid anything else)
    assert first_address(raw) is None
    assert all(s.isascii() and not any(c.isspace() for c in s) for s in _strings(raw))


def test_every_key_the_turn_engine_mints_has_a_shape_the_lint_knows() -> None:
    """The key grammar follows hz.turn.causes: a new key form there must be added to hz.gitstate.shapes."""
    from datetime import UTC, datetime

    from hz.turn import causes

    agent, turn, request = (
        "hz-01JB8Z0V6S8M2D5W4T1XKQ9R3N",
        "01JB8Z0V6S8M2D5W4T1XKQ9R3P",
        "rq-01jb8z0v6s8m2d5w4t1xkq9r3q",
    )
    slot = datetime(2026, 10, 30, 15, tzinfo=UTC)
    draft = causes.place_draft_key(agent, 3, causes.format_slot(slot), "state:reports/2026-W44.md")
    keys = {
        "slot": causes.schedule_key(agent, slot),
        "input": causes.source_changed_key(agent, "prs", "sha256:" + "0" * 64),
        "discovered": causes.discovered_key(agent, "sha256:" + "1" * 64),
        "request": causes.asked_key(agent, request),
        "approval": causes.approval_key(agent, draft),
        "created": causes.created_key(agent),
        "retry": causes.retry_key(agent, turn, request),
        "stale": causes.stale_key(agent, "report", slot),
        "draft": draft,
    }
    assert {form: shapes.occasion(key)[0] for form, key in keys.items()} == {form: form for form in keys}
    assert all(re.fullmatch(shapes.KEY, key) for key in keys.values())
