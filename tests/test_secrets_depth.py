"""The secret scrubber walks JSON-like values with a loop: no nesting exhausts the stack, and a value
nested past MAX_DEPTH is a clear error (a 1.2 KB answer nested 600 deep used to raise RecursionError)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hz.secrets import MAX_DEPTH, REDACTED, TooDeep, secrets_of

SECRETS = secrets_of({"GITHUB_TOKEN": "ghp_secretValue123"})


def _nested(levels: int, leaf: Any) -> Any:
    value = leaf
    for n in range(levels):
        value = [value] if n % 2 else {"k": value}
    return value


def test_a_value_nested_to_the_limit_is_scrubbed_and_one_past_it_is_refused() -> None:
    scrubbed = SECRETS.scrub_value(_nested(MAX_DEPTH, "ghp_secretValue123"))
    assert scrubbed == _nested(MAX_DEPTH, REDACTED)
    for levels in (MAX_DEPTH + 1, 600, 5000):
        with pytest.raises(TooDeep) as caught:
            SECRETS.scrub_value(_nested(levels, "x"))
        assert caught.value.render() == "error: a value nested more than 256 levels deep was refused"


def _reference(value: Any) -> Any:  # the recursive walk the loop replaced
    if isinstance(value, str):
        return SECRETS.scrub(value)
    if isinstance(value, dict):
        return {SECRETS.scrub(str(k)): _reference(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_reference(v) for v in value]
    return value


TEXT = st.sampled_from(["", "a", "ghp_secretValue123", "x ghp_secretValue123 y", "https://u:p@h/x"])
VALUES = st.recursive(
    st.none() | st.integers() | st.floats(allow_nan=False) | TEXT,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.tuples(inner, inner)
        | st.dictionaries(TEXT | st.text(max_size=3), inner, max_size=3)
    ),
    max_leaves=25,
)


@given(VALUES)
def test_the_loop_scrubs_exactly_as_the_recursive_walk_did(value: Any) -> None:
    assert SECRETS.scrub_value(value) == _reference(value)
