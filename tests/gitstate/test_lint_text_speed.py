"""The lint's address checks read a hostile value in linear time, and find what the plain patterns found."""

from __future__ import annotations

import re
import unicodedata

from hypothesis import given
from hypothesis import strategies as st

from hz.gitstate.lint_text import address_in, folded
from tests.deadline import within

# The spellings as they read before they were made linear: the reference to agree with.
PLAIN_AT = re.compile(r"\s*[\[\(\{<]\s*at\s*[\]\)\}>]\s*|\s+at\s+", re.IGNORECASE)
PLAIN_DOT = re.compile(r"\s*[\[\(\{<]\s*dot\s*[\]\)\}>]\s*|\s+dot\s+", re.IGNORECASE)
PIECES = st.sampled_from([" ", "  ", "\t", "at", "AT", "dot", "[", "]", "(", ")", "<", ">", "x", "ab", ".", "@", "co"])


@given(st.lists(PIECES, max_size=16).map("".join))
def test_folding_agrees_with_the_plain_patterns(value: str) -> None:
    plain = unicodedata.normalize("NFKC", value)
    assert folded(value) == PLAIN_DOT.sub(".", PLAIN_AT.sub("@", plain))


def test_a_long_run_of_blanks_or_letters_is_read_at_once() -> None:
    """4,096 blanks (one event line) took 0.4 s per value; a 100,000-letter author line took minutes."""
    with within(2):
        assert not address_in(" " * 4096)
        assert not address_in(" " * 100_000)
        assert not address_in("a" * 100_000)
        assert address_in("priya" + " " * 50_000 + "at example dot com")
