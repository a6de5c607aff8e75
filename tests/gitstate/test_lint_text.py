"""Address detection on decoded values: every spelling of an address is found, hz's own values never are."""

from __future__ import annotations

import pytest

from hz.gitstate.lint_text import address_in, first_address


@pytest.mark.parametrize(
    "value",
    [
        "priya@example.com",
        "priya\uff20example.com",  # fullwidth at
        "priya\ufe6bexample.com",  # small at
        "priya at example dot com",
        "PRIYA AT EXAMPLE DOT COM",
        "priya [at] example [dot] com",
        "priya(at)example(dot)com",
        "priya {at} example.com",
        "priya <at> mail <dot> example <dot> org",
        "priya\uff0eraman@example\uff0ecom",  # fullwidth full stops
    ],
)
def test_every_spelling_of_an_address_is_found(value: str) -> None:
    assert address_in(value)


@pytest.mark.parametrize(
    "value",
    [
        "hz-01JB0000000000000000000001@v1@2026-10-30T15:00Z@state:reports/2026-W45.md",
        "hz-01JB0000000000000000000001@approval:hz-01JB0000000000000000000002@v3@2026-10-30T15:00Z@doc:x/y",
        "hz-01JB0000000000000000000001@prs:sha256:" + "0" * 64,
        "state:reports/platform/2026-W45.md",
        "@priya",
        "2026-10-30T15:00:00Z",
        "created_at",
    ],
)
def test_hz_values_are_not_addresses(value: str) -> None:
    assert not address_in(value)


def test_object_keys_are_searched_too() -> None:
    assert first_address({"data": {"input_fps": {"priya at example dot com": "x"}}}) == "priya at example dot com"
    assert first_address({"data": {"keys": ["a", "b"]}, "token": 1}) is None
