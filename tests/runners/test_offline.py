from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hz.runners.base import RunnerFailed, ThinkRequest
from hz.runners.offline import NOTICE, OfflineRunner


def test_offline_draft_fills_every_requested_facet_and_says_no_model_wrote_it(
    make_request: Callable[..., ThinkRequest],
) -> None:
    result = OfflineRunner().think(make_request())
    outcome = result.outcome
    assert outcome.kind == "draft"
    assert outcome.report == "offline draft of status from 2 inputs (3 items), no model"
    assert outcome.drafts["status"]["done"] == (
        f"{NOTICE}\n\n**tickets** (done): 2 items\n"
        "- [Ship the importer](https://tracker.example/T-1)\n"
        "- [Fix the flaky test](https://tracker.example/T-2)\n"
    )
    assert outcome.drafts["status"]["summary"] == (
        f"{NOTICE}\n\n**notes** (text): 1 item\n- Release moved to Friday.\n\n"
        "**tickets** (blocked): 0 items\n\n"
        "**tickets** (done): 2 items\n"
        "- [Ship the importer](https://tracker.example/T-1)\n"
        "- [Fix the flaky test](https://tracker.example/T-2)\n"
    )
    assert result.usage.usd == 0.0
    assert result.usage.requests == 0
    assert OfflineRunner().worst_case_usd(1_000_000) == 0.0


def test_offline_records_its_transcript_entry(make_request: Callable[..., ThinkRequest]) -> None:
    seen: list[dict[str, Any]] = []
    result = OfflineRunner().think(make_request(record=seen.append))
    assert seen == list(result.transcript)
    assert seen[0]["runner"] == "offline"
    assert seen[0]["outcome"]["kind"] == "draft"


def test_offline_without_outputs_has_nothing_to_do(make_request: Callable[..., ThinkRequest]) -> None:
    outcome = OfflineRunner().think(make_request(outputs={})).outcome
    assert outcome.kind == "nothing"
    assert outcome.report == "offline runner: nothing a runner without a model can do this turn"


def test_offline_summary_uses_the_fixed_schema(make_request: Callable[..., ThinkRequest]) -> None:
    outcome = OfflineRunner().think(make_request(want=frozenset({"summary"}))).outcome
    assert outcome.summary is not None
    assert outcome.summary.asset == "status"
    assert outcome.summary.sources_watched == ("notes", "tickets")


def test_offline_cannot_ask_a_question_alone(make_request: Callable[..., ThinkRequest]) -> None:
    with pytest.raises(RunnerFailed) as info:
        OfflineRunner().think(make_request(want=frozenset({"question"})))
    assert info.value.message == "the offline runner cannot produce question"
    assert info.value.hint == "configure a model runner ([runners] default in config.toml) for turns that need judgment"


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=30),
    lambda children: st.lists(children, max_size=5) | st.dictionaries(st.text(max_size=8), children, max_size=5),
    max_leaves=20,
)
inputs = st.dictionaries(
    st.text("abcdefgh", min_size=1, max_size=6),
    st.dictionaries(st.text("abcdefgh", min_size=1, max_size=6), json_values, min_size=1, max_size=3),
    max_size=4,
)
facets = st.lists(st.text("abcdefgh", min_size=1, max_size=6), min_size=1, max_size=4, unique=True)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(inputs=inputs, facets=facets)
def test_offline_is_deterministic_and_facet_complete(
    make_request: Callable[..., ThinkRequest], inputs: dict[str, Any], facets: list[str]
) -> None:
    req = make_request(inputs=inputs, outputs={"out": tuple(facets)})
    first = OfflineRunner().think(req).outcome
    second = OfflineRunner().think(
        make_request(inputs=dict(reversed(list(inputs.items()))), outputs={"out": tuple(facets)})
    )
    assert first.model_dump_json() == second.outcome.model_dump_json()
    assert set(first.drafts["out"]) == set(facets)
    assert all(text.startswith(NOTICE) for text in first.drafts["out"].values())
