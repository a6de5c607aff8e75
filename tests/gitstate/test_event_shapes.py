"""The hook's plain shape checks agree with the event models: the same errors, the same canonical line.

Every kind's event is drawn in its proper form from the field shapes, then mutated the way a hand-made
push could: a field removed, one added, a value replaced by any JSON value (numbers at and past their
bounds, NaN, huge integers, booleans, nulls, lists, objects) or a string edited by one character. Both
checks see the same dict; their findings (pydantic's `type`, `loc`, `msg`) must be equal, so the lint
turns them into the same diagnostics and codes. An event both accept has the same canonical line.
"""

from __future__ import annotations

import copy
import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hz.gitstate import shapes
from hz.gitstate.event_shapes import PlainEvent, event_errors, model_errors, plain_event, read_plain
from hz.gitstate.events import PAYLOADS as MODELS
from hz.gitstate.events import Event

AGENTS = st.from_regex(rf"\Ahz-{shapes.ULID}\Z")
HASHES = st.from_regex(rf"\A{shapes.HASH}\Z")
IDS = st.from_regex(rf"\A(?:{shapes.PREFIXES}-)?{shapes.ULID}\Z")
SLOTS = st.from_regex(r"\A20[0-9]{2}-(0[1-9]|1[0-2])-(0[1-9]|1[0-9]|2[0-8])T([01][0-9]|2[0-3]):[0-5][0-9]Z\Z")
ASSETS = st.from_regex(rf"\A{shapes.ASSET}\Z").filter(lambda a: len(a) <= shapes.MAX_ASSET)
IDENTS = st.from_regex(rf"\A{shapes.IDENT}\Z")
HANDLES = st.from_regex(r"\A@[A-Za-z0-9][A-Za-z0-9-]{0,38}\Z")
COUNTS = st.one_of(st.integers(0, 10**12), st.sampled_from([0, 1, 10**12]))
AMOUNTS = st.one_of(st.integers(0, 10**9), st.floats(0, 10**9), st.sampled_from([0, 0.0, 1e9]))
SHARES = st.one_of(st.floats(0, 1), st.sampled_from([0, 1, 0.5]))
CAUSES = st.sampled_from(["schedule", "source-changed", "discovered", "asked", "approval", "created", "retry", "stale"])
REASONS = st.sampled_from(["nothing-moved", "cap", "fenced", "error", None])
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.integers(-(2**1100), 2**1100) | st.floats()
    | st.sampled_from([0, 1, -1, 1.0, 0.0, -0.0, 2**31, 2**31 - 1, 10**12 + 1, 10**9 + 0.5, 1e400, True, False])
    | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
    max_leaves=6,
)  # fmt: skip


@st.composite
def payloads(draw: st.DrawFn, kind: str, agent: str, key: str, token: int) -> dict[str, Any]:
    slot = draw(SLOTS)
    asset = draw(ASSETS)
    draft = f"{agent}@v{draw(st.integers(1, 999))}@{slot}@{asset}"
    turn = {"turn": draw(IDS), "cause": draw(CAUSES), "keys": [key, *draw(st.lists(st.just(key), max_size=2))]}
    if draw(st.booleans()):
        turn["causes"] = draw(st.lists(CAUSES, max_size=3))
    if kind == "turn.started":
        return {**turn, "contract_version": draw(COUNTS), "contract_fp": draw(HASHES), "token": token,
                "role": draw(st.sampled_from(["owner", "delegate", "actions"]))}  # fmt: skip
    if kind in ("turn.finished", "turn.skipped"):
        optional = {"reason": REASONS, "moved": st.lists(IDENTS, max_size=2), "cost_usd": AMOUNTS,
                    "tokens": COUNTS, "tokens_cached": COUNTS, "duration_s": AMOUNTS, "contract_fp": HASHES,
                    "input_fps": st.dictionaries(IDENTS, HASHES, max_size=2), "draft_hash": HASHES}  # fmt: skip
        chosen = draw(st.lists(st.sampled_from(sorted(optional)), unique=True, max_size=4))
        return {**turn, "disposition": "drafted", **{name: draw(optional[name]) for name in chosen}}
    if kind == "draft.placed":
        return {"turn": draw(IDS), "key": draft, "asset": asset, "hash": draw(HASHES)}
    if kind == "approval.observed":
        extra = {"self_approved": draw(st.booleans())} if draw(st.booleans()) else {}
        return {"key": draft, "asset": asset, "approver": draw(HANDLES), "share_changed": draw(SHARES),
                "output_fp": draw(HASHES), **extra}  # fmt: skip
    if kind == "draft.rejected":
        return {"key": draft, "asset": asset, **({"by": draw(HANDLES)} if draw(st.booleans()) else {})}
    if kind == "draft.superseded":
        return {"key": draft, "asset": asset, "by": f"{agent}@v2@{slot}@{asset}"}
    if kind == "approval.seconded":
        return {"key": draft, "asset": asset, "approver": draw(HANDLES)}
    if kind == "contract.amended":
        return {"version": draw(COUNTS), "fingerprint": draw(HASHES)}
    return {"key": draw(HASHES), "draft_key": draft, "target": asset, "hash": draw(HASHES),
            "action": draw(st.sampled_from(["github.issue.comment", "state.file.write"]))}  # fmt: skip


@st.composite
def events(draw: st.DrawFn) -> dict[str, Any]:
    agent, kind = draw(AGENTS), draw(st.sampled_from(sorted(MODELS)))
    key = f"{agent}@{draw(SLOTS)}"
    token = draw(st.integers(1, 2**31 - 1))
    ts = draw(SLOTS).replace("Z", draw(st.sampled_from([":00Z", ":59Z", ":00.5Z"])))
    return {"v": 1, "kind": kind, "id": agent, "key": key, "ts": ts, "lease": agent, "token": token,
            "data": draw(payloads(kind, agent, key, token))}  # fmt: skip


def _edit(draw: st.DrawFn, text: str) -> str:
    at = draw(st.integers(0, len(text)))
    char = draw(st.sampled_from(["", "a", "Z", "0", "-", "@", ":", " ", "\n", "é", "٣", "I", "."]))
    cut = draw(st.integers(0, 1))
    return text[:at] + char + text[at + cut :]


@st.composite
def mutated(draw: st.DrawFn) -> dict[str, Any]:
    raw = draw(events())
    for _ in range(draw(st.integers(0, 3))):
        target = raw["data"] if isinstance(raw.get("data"), dict) and draw(st.booleans()) else raw
        names = sorted(target)
        how = draw(st.sampled_from(["drop", "add", "replace", "edit", "edit"]))
        if how == "add" or not names:
            known = sorted({n for model in MODELS.values() for n in model.model_fields} | {"v", "ts"})
            target[draw(st.sampled_from([*known, "text", "extra"]))] = draw(JSON)
            continue
        name = draw(st.sampled_from(names))
        if how == "drop":
            del target[name]
        elif how == "replace":
            target[name] = draw(JSON)
        elif isinstance(target[name], str):
            target[name] = _edit(draw, target[name])
        elif isinstance(target[name], list) and target[name]:
            target[name][draw(st.integers(0, len(target[name]) - 1))] = draw(JSON)
    return raw


# 250 mutated events a run (not 600): each run draws new ones (CI keeps no example database), so the runs
# add up, and the 350 more cost every run 8 s of CPU
@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated())
def test_the_plain_checks_report_what_the_models_report(raw: dict[str, Any]) -> None:
    if not isinstance(raw.get("kind"), str) or raw["kind"] not in MODELS:
        raw = {**raw, "kind": "turn.started"}  # an unknown kind never reaches either check (HZS006 first)
    assert event_errors(copy.deepcopy(raw)) == model_errors(copy.deepcopy(raw))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(events())
def test_an_event_both_accept_has_the_same_canonical_line(raw: dict[str, Any]) -> None:
    plain = plain_event(raw)
    assert isinstance(plain, PlainEvent), plain
    model = Event.parse_obj_checked(raw)
    made = Event.make(model.kind, id=model.id, key=model.key, ts=model.ts, lease=model.lease, token=model.token,
                      data=model.payload())  # fmt: skip
    assert plain.line() == made.line()
    assert read_plain(json.dumps(raw).encode()) == plain


def test_every_kind_has_the_models_fields_in_their_order_and_defaults() -> None:
    """A field added to a model and not here (or a default changed) fails before any push is judged."""
    from hz.gitstate.event_shapes import ENVELOPE, PAYLOADS

    assert list(PAYLOADS) == list(MODELS)
    for kind, model in [("", Event), *MODELS.items()]:
        shape = PAYLOADS[kind] if kind else ENVELOPE
        assert list(shape.fields) == list(model.model_fields), kind
        defaults = {n: f.get_default(call_default_factory=True) for n, f in model.model_fields.items()
                    if not f.is_required()}  # fmt: skip
        assert dict(shape.defaults) == defaults, kind


ADDRESSY = st.text(alphabet='ab.@-_ [](){}<>AtDoT\\"é＠\t', max_size=12)


@settings(max_examples=400, deadline=None)
@given(st.recursive(ADDRESSY | st.integers(), lambda inner: st.lists(inner, max_size=3)
                    | st.dictionaries(ADDRESSY, inner, max_size=3), max_leaves=6), st.booleans())  # fmt: skip
def test_the_address_shortcut_finds_what_the_walk_finds(value: Any, ascii_only: bool) -> None:
    """The hook reads the line once for an address before walking the decoded strings: same answer."""
    from hz.gitstate.lint_text import first_address, first_address_of

    line = json.dumps({"data": value}, ensure_ascii=ascii_only, separators=(",", ":"))
    assert first_address_of(line, json.loads(line)) == first_address(json.loads(line))
