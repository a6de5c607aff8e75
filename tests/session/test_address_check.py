"""The spine's address check: the same answer as the plain pattern, in time linear in the text."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from hz.session.vocabulary import looks_like_address, validate_payload
from tests.deadline import within

# The shape as one pattern, the way it read before it was made linear: the reference to agree with.
PLAIN = re.compile(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}")
TEXT = st.text(st.sampled_from("ab1.@-_%+ Z\u00e9"), max_size=40)


@given(TEXT)
def test_the_check_agrees_with_the_plain_pattern(value: str) -> None:
    assert looks_like_address(value) == (PLAIN.search(value) is not None)


def test_long_text_is_checked_without_backtracking() -> None:
    """Each of these took 25 s or more at 100,000 characters; all of them together take milliseconds."""
    n = 100_000
    texts = ["a" * n, "a@b" + ".c1" * (n // 3), "@" + "a." * (n // 2) + "1", "a@" * (n // 2), "x." * n]
    with within(2):
        assert [looks_like_address(t) for t in texts] == [False] * len(texts)
        assert looks_like_address("a" * n + "@example.org")


def test_a_long_value_on_the_spine_is_refused_by_its_bound_at_once() -> None:
    with within(2):
        try:
            validate_payload("heinzel.renamed", {"name": "a" * 100_000, "previous": "b"})
        except ValueError as exc:
            assert "at most 64 characters" in str(exc)
        else:
            raise AssertionError("a 100,000-character name was accepted")
