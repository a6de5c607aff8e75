"""Address detection on decoded values: every spelling of an address is found, hz's own values never are."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

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


_KEYS = st.sampled_from(["text", "a.summary", "draft_hash", "x", "body.id", "name", "k"])
_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(_KEYS, children, max_size=4),
    max_leaves=20,
)


@given(_JSON)
def test_banned_names_are_the_banned_field_names_in_their_order(value: object) -> None:
    """The hook's cached form says what the walk of every field name said, in the same order."""
    from hz.gitstate.lint_text import banned_field, banned_names, field_names

    assert banned_names(value) == [name for name in field_names(value) if banned_field(name.rsplit(".", 1)[-1])]
