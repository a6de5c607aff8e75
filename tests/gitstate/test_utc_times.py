"""The one UTC spelling of lease and event times reads back as the time it was written from."""

from __future__ import annotations

from datetime import UTC, datetime

from hypothesis import given
from hypothesis import strategies as st

from hz.gitstate.types import format_utc, parse_utc


@given(st.datetimes(min_value=datetime(1, 1, 1), max_value=datetime(9999, 12, 31, 23, 59, 59), timezones=st.just(UTC)))
def test_a_formatted_time_parses_back_to_the_second(moment: datetime) -> None:
    assert parse_utc(format_utc(moment)) == moment.replace(microsecond=0)


def test_the_year_1_has_four_digits() -> None:
    assert format_utc(datetime(1, 1, 1, tzinfo=UTC)) == "0001-01-01T00:00:00Z"  # strftime wrote 1-01-01
