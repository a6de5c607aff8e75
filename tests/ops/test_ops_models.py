"""The operations' results are what the CLI's `--json` prints, and they fit their own schemas."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from hz.ops import SCHEMA_VERSION, Context
from hz.ops.registry import OPERATIONS
from hz.ops.schemas import check_result, parse_request, request_schema, result_schema
from tests.ops.homes import busy_home, cli_json


def test_list_show_and_drafts_are_the_cli_json_and_fit_their_schemas(repo: Path) -> None:
    busy_home(repo)
    ctx = Context.here(os.environ)
    cases = [
        ("heinzel_list", {}, ("heinzel", "list")),
        ("heinzel_list", {"state": "proposed"}, ("heinzel", "list", "--state", "proposed")),
        ("heinzel_show", {"name": "weekly-note"}, ("heinzel", "show", "weekly-note")),
        ("drafts", {}, ("drafts",)),
    ]
    for name, arguments, argv in cases:
        operation = OPERATIONS[name]
        result = operation.run(ctx, parse_request(operation, arguments))
        assert check_result(operation, result) == result
        assert result["schema_version"] == SCHEMA_VERSION
        assert result[operation.payload] == cli_json(*argv), name
    listed = OPERATIONS["heinzel_list"].run(ctx, parse_request(OPERATIONS["heinzel_list"], {}))
    assert [(a["name"], a["state"]) for a in listed["agents"]] == [
        ("idle-note", "proposed"),
        ("weekly-note", "waiting"),
    ]
    drafts = OPERATIONS["drafts"].run(ctx, parse_request(OPERATIONS["drafts"], {}))
    assert [d["agent"] for d in drafts["drafts"]] == ["me:weekly-note"]


def test_requests_are_checked_against_their_schema() -> None:
    operation = OPERATIONS["heinzel_list"]
    with pytest.raises(ValidationError):
        parse_request(operation, {"state": "sleeping"})
    with pytest.raises(ValidationError):
        parse_request(OPERATIONS["heinzel_show"], {})
    schema = request_schema(operation)
    assert schema["properties"]["state"]["description"] == "Only agents in this state."
    assert result_schema(operation)["required"] == ["schema_version", "agents"]


def test_why_of_a_personal_agent_says_what_keeps_it(repo: Path) -> None:
    from datetime import UTC, datetime

    from hz.errors import HzError
    from hz.ops.models_why import WhyRequest
    from hz.ops.why import why

    busy_home(repo)
    ctx = Context.here(os.environ, now=datetime(2026, 10, 28, 9, 0, tzinfo=UTC))
    idle = why(ctx, WhyRequest(contract="idle-note"))["why"]
    assert (idle["slot"], idle["scope"], idle["verdict"]) == (
        "2026-10-23T15:00Z", "personal", "its agent here is proposed: it does not wake"
    )  # fmt: skip
    later = why(ctx, WhyRequest(contract="weekly-note", slot="2026-10-30T15:00Z"))["why"]
    assert later["verdict"] == "not due yet: its slot is 2026-10-30T15:00Z"
    with pytest.raises(HzError) as refused:
        why(ctx, WhyRequest(contract="weekly-note", slot="friday"))
    assert (
        refused.value.render() == "error: 'friday' is not a slot\n  hint: write the UTC minute, e.g. 2026-10-30T15:00Z"
    )


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=10), inner, max_size=3),
    max_leaves=8,
)


@given(st.sampled_from(sorted(OPERATIONS)), st.dictionaries(st.text(max_size=12), JSON, max_size=4))
@settings(max_examples=200, deadline=None)
def test_any_arguments_make_a_request_or_a_validation_error(name: str, arguments: dict[str, object]) -> None:
    """What a client sends can only become the operation's request, or a ValidationError the heads turn into
    a tool error or a 422: never another exception."""
    operation = OPERATIONS[name]
    try:
        parsed = parse_request(operation, arguments)
    except ValidationError:
        return
    assert isinstance(parsed, operation.request)
