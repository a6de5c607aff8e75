"""Event models: typed fields only, canonical lines, and a path that depends on identity alone."""

from __future__ import annotations

import json
import typing
from typing import Any, Literal, get_args, get_origin

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel, ValidationError

from hz.gitstate import types
from hz.gitstate.events import (
    PAYLOADS,
    ApprovalObserved,
    ApprovalSeconded,
    ContractAmended,
    DraftRejected,
    DraftSuperseded,
    Event,
    path_of,
)
from hz.gitstate.lease_record import LeaseRecord
from hz.gitstate.lint import check_event_file
from tests.gitstate.factory import finished, hz_id, placed, sha, started

TYPED = [types.Hash, types.HzId, types.Id, types.Key, types.Handle, types.Holder, types.AssetRef, types.Slug,
         types.UtcTime, types.AnyUtcTime, types.Count, types.Token, types.Amount, types.Share]  # fmt: skip


def _allowed(annotation: Any) -> bool:
    if annotation is bool or any(annotation == t for t in TYPED):  # a flag carries one bit, no text
        return True
    origin = get_origin(annotation)
    if origin is Literal:
        return True
    if origin in (list, dict, typing.Union, type(None) | int) or str(origin) == "<class 'types.UnionType'>":
        return all(_allowed(arg) for arg in get_args(annotation) if arg is not type(None))
    return False


@pytest.mark.parametrize("model", sorted({*PAYLOADS.values(), LeaseRecord}, key=lambda m: m.__name__))
def test_no_field_is_a_free_string(model: type[BaseModel]) -> None:
    hints = typing.get_type_hints(model, include_extras=True)
    for name in model.model_fields:
        assert _allowed(hints[name]), f"{model.__name__}.{name}: {hints[name]}"


def test_a_bare_str_is_not_allowed_by_the_check() -> None:
    assert not _allowed(str)
    assert not _allowed(list[str])
    assert not _allowed(dict[str, types.Hash])


def test_an_event_line_is_canonical_json_on_one_line() -> None:
    event = started(hz_id(7), "2026-10-30T15:00:00Z", 3)
    line = event.line()
    assert line.count(b"\n") == 1 and line.endswith(b"\n")
    assert list(json.loads(line)) == ["data", "id", "key", "kind", "lease", "token", "ts", "v"]
    assert Event.parse_obj_checked(json.loads(line)) == event
    assert path_of(event).startswith(f"events/{hz_id(7)}/")


def test_the_path_depends_on_kind_and_key_only() -> None:
    one = started(hz_id(7), "2026-10-30T15:00:00Z", 3)
    again = started(hz_id(7), "2026-10-30T15:00:00Z", 4, ts="2026-10-30T16:00:00Z")
    assert path_of(one) == path_of(again)
    assert path_of(one) != path_of(finished(hz_id(7), "2026-10-30T15:00:00Z", 3))


def test_every_kind_round_trips_and_lints_clean() -> None:
    agent = hz_id(9)
    events = [
        started(agent, "2026-10-30T15:00:00Z", 1),
        finished(agent, "2026-10-30T15:00:00Z", 1),
        placed(agent, 1, 1),
        Event.make(
            "approval.observed",
            id=agent,
            key=f"{agent}@v1@2026-11-02T09:00Z@state:r.md",
            ts="2026-11-02T09:00:00Z",
            lease=agent,
            token=1,
            data=ApprovalObserved(
                key=f"{agent}@v1@2026-11-02T09:00Z@state:r.md",
                asset="state:r.md",
                approver="@priya",
                share_changed=0.23,
                output_fp=sha("o"),
            ),
        ),
        Event.make(
            "contract.amended",
            id=agent,
            key=f"{agent}@v2",
            ts="2026-11-03T09:00:00Z",
            lease=agent,
            token=1,
            data=ContractAmended(version=2, fingerprint=sha("v2")),
        ),
    ]
    for event in events:
        assert check_event_file(path_of(event), event.line()) == []


def test_the_fates_of_issue_19_round_trip_lint_clean_and_keep_old_bytes() -> None:
    """draft.superseded names its replacement, draft.rejected its rejector, approval.observed a self-approval,
    approval.seconded the second member; a receipt written before these fields reads and writes as before."""
    agent = hz_id(9)
    key, newer = (f"{agent}@v1@2026-11-02T0{h}:00Z@state:r.md" for h in (8, 9))
    common = {"id": agent, "key": key, "ts": "2026-11-02T09:00:00Z", "lease": agent, "token": 1}
    events = [
        Event.make("draft.superseded", **common, data=DraftSuperseded(key=key, asset="state:r.md", by=newer)),
        Event.make("draft.rejected", **common, data=DraftRejected(key=key, asset="state:r.md", by="@unknown")),
        Event.make("approval.seconded", **common, data=ApprovalSeconded(key=key, asset="state:r.md", approver="@omar")),
        Event.make("approval.observed", **common, data=ApprovalObserved(
            key=key, asset="state:r.md", approver="@priya", share_changed=0.0, output_fp=sha("o"), self_approved=True)),
    ]  # fmt: skip
    for event in events:
        assert check_event_file(path_of(event), event.line()) == []
        assert Event.parse_obj_checked(json.loads(event.line())) == event
    old = Event.make("draft.rejected", **common, data=DraftRejected(key=key, asset="state:r.md"))
    assert json.loads(old.line())["data"] == {"asset": "state:r.md", "key": key}
    plain = ApprovalObserved(key=key, asset="state:r.md", approver="@p", share_changed=0.0, output_fp=sha("o"))
    assert "self_approved" not in Event.make("approval.observed", **common, data=plain).data
    itself = Event.make("draft.superseded", **common, data=DraftSuperseded(key=key, asset="state:r.md", by=key))
    assert [d.code for d in check_event_file(path_of(itself), itself.line())] == ["HZS011"]


def test_make_refuses_the_wrong_payload_and_bad_values() -> None:
    with pytest.raises(TypeError):
        Event.make("turn.started", id=hz_id(1), key=f"{hz_id(1)}@x", ts="2026-10-30T15:00:00Z", lease=hz_id(1),
                   token=1, data=ContractAmended(version=1, fingerprint=sha("x")))  # fmt: skip
    with pytest.raises(ValidationError):
        ContractAmended(version=1, fingerprint="not a hash")
    with pytest.raises(ValidationError):
        ApprovalObserved(key=f"{hz_id(1)}@x", asset="state:r.md", approver="Priya Patel", share_changed=0.1,
                         output_fp=sha("o"))  # fmt: skip


@given(st.text(min_size=1, max_size=80))
def test_no_free_text_fits_a_typed_string(text: str) -> None:
    """Whatever text is offered, it is accepted only where it has the exact shape of an id or handle."""
    for field in ("approver", "asset", "output_fp"):
        raw = {"key": f"{hz_id(1)}@x", "asset": "state:r.md", "approver": "@priya", "share_changed": 0.1,
               "output_fp": sha("o"), field: text}  # fmt: skip
        try:
            ApprovalObserved.model_validate(raw)
        except ValidationError:
            continue
        assert " " not in text and "\n" not in text and "@" not in text[1:]
