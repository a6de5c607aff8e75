"""A duration is at most ten years: any spelling is a bounded timedelta or a clean error, never an overflow."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic_core import PydanticCustomError

from hz.contract.model import MAX_DURATION, parse_duration
from hz.sources.window import Window

# Digits as text: past 4300 digits Python refuses to turn text into a number, and back.
NUMBER = st.one_of(
    st.integers(min_value=1, max_value=10**12).map(str),
    st.builds(lambda head, zeros: head + "0" * zeros, st.sampled_from("123456789"), st.integers(12, 5000)),
)


@given(number=NUMBER, unit=st.sampled_from("smhdw"))
def test_a_duration_is_at_most_ten_years_or_refused(number: str, unit: str) -> None:
    text = f"{number}{unit}"
    try:
        duration = parse_duration(text)
    except PydanticCustomError as exc:
        assert exc.type == "duration_too_long"
        assert exc.message() == f"'{text}' is longer than 3650d, the longest duration hz takes"
    else:
        assert timedelta(seconds=1) <= duration <= MAX_DURATION
        assert Window.of(datetime(1970, 1, 1, tzinfo=UTC), duration).start is not None


@pytest.mark.parametrize(("text", "kept"), [("3650d", True), ("521w", True), ("3651d", False), ("522w", False)])
def test_the_bound_is_3650_days(text: str, kept: bool) -> None:
    try:
        parse_duration(text)
    except PydanticCustomError:
        assert not kept
    else:
        assert kept
