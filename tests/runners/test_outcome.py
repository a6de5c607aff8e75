from __future__ import annotations

import json
from typing import Any

import pytest
from pydantic import ValidationError

from hz.runners.outcome import Lesson, Outcome, outcome_problems
from hz.runners.wire import WireDraft, WireOutcome, outcome_schema


def test_draft_outcome_checks_facets_against_the_turn() -> None:
    outcome = Outcome(kind="draft", report="drafted week 45", drafts={"status": {"summary": "ok", "x": "y"}})
    problems = outcome_problems(outcome, frozenset({"draft"}), {"status": ("summary", "risks")})
    assert problems == ["output `status` lacks facet `risks`", "output `status` has unknown facet `x`"]


def test_a_kind_not_wanted_is_a_problem() -> None:
    outcome = Outcome(kind="question", report="asked", question="Which epic?")
    assert outcome_problems(outcome, frozenset({"draft", "nothing"}), {}) == [
        "kind question is not allowed this turn; allowed: draft, nothing"
    ]


def test_an_outcome_carries_only_the_field_of_its_kind() -> None:
    with pytest.raises(ValidationError) as info:
        Outcome(kind="nothing", report="nothing moved", lessons=(Lesson(sentence="be brief"),))
    assert "an outcome of kind nothing must leave `lessons` empty" in str(info.value)
    with pytest.raises(ValidationError) as info:
        Outcome(kind="draft", report="drafted")
    assert "an outcome of kind draft needs `drafts`" in str(info.value)


def test_the_report_is_one_line() -> None:
    with pytest.raises(ValidationError) as info:
        Outcome(kind="nothing", report="one\ntwo")
    assert "the report is one line" in str(info.value)


def test_the_wire_outcome_becomes_the_engines_outcome() -> None:
    wire = WireOutcome.model_validate(
        {
            "kind": "lessons",
            "report": "learned two things",
            "lessons": [
                {"sentence": "Risks go above the summary.", "hunks": ["@@ -1,2 +1,2 @@\n-Summary\n+Risks"]},
                {"sentence": "Name the epic, not the tickets."},
            ],
        }
    )
    outcome = wire.to_outcome()
    assert outcome.kind == "lessons"
    assert outcome.lessons[0].hunks == ("@@ -1,2 +1,2 @@\n-Summary\n+Risks",)
    assert outcome.lessons[1].hunks == ()


def test_a_facet_given_twice_is_refused() -> None:
    wire = WireOutcome(
        kind="draft",
        report="drafted",
        drafts=[
            WireDraft(output="status", facet="risks", text="a"),
            WireDraft(output="status", facet="risks", text="b"),
        ],
    )
    with pytest.raises(ValueError) as info:
        wire.to_outcome()
    assert str(info.value) == "output `status` has facet `risks` twice"


def test_the_wire_schema_is_strict_everywhere() -> None:
    schema = outcome_schema()

    def objects(node: Any) -> list[dict[str, Any]]:
        found: list[dict[str, Any]] = []
        if isinstance(node, dict):
            if node.get("type") == "object":
                found.append(node)
            for value in node.values():
                found.extend(objects(value))
        elif isinstance(node, list):
            for item in node:
                found.extend(objects(item))
        return found

    shapes = objects(schema)
    assert len(shapes) == 5  # the outcome, a draft, a lesson, an amendment and a summary
    for shape in shapes:
        assert shape["additionalProperties"] is False
        assert shape["required"] == sorted(shape["properties"])
    assert "default" not in json.dumps(schema)
