from __future__ import annotations

import pytest
from pydantic import ValidationError

from hz.runners.outcome import Lesson, Outcome, outcome_problems


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
