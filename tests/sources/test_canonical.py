from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hz.sources.canonical import (
    CanonicalizerBug,
    canonical_text,
    canonical_url,
    facet_fingerprints,
    one_line,
)
from hz.sources.window import Window, iso, parse_time


def test_tracking_parameters_fragment_and_case_are_dropped() -> None:
    url = "HTTPS://Blog.Example.org:443/post?utm_source=rss&b=2&fbclid=x&a=1&mc_cid=9#comments"
    assert canonical_url(url) == "https://blog.example.org/post?a=1&b=2"


def test_a_non_default_port_and_a_material_parameter_stay() -> None:
    assert canonical_url("http://example.org:8080/p?id=7&ref_src=tw") == "http://example.org:8080/p?id=7"


def test_text_is_nfc_lf_without_trailing_blanks_or_blank_runs() -> None:
    assert canonical_text("Cafe\u0301  \r\nline two\t\r\n\r\n\r\n\r\nend\n\n") == "Café\nline two\n\nend"


def test_one_line_folds_whitespace() -> None:
    assert one_line("  Fix\n the   bug ") == "Fix the bug"


def test_a_null_facet_is_a_canonicalizer_bug() -> None:
    with pytest.raises(CanonicalizerBug) as caught:
        facet_fingerprints({"items": None, "links": []})
    assert str(caught.value) == "facet(s) items canonicalized to null"


def test_empty_values_are_real_values_with_distinct_fingerprints() -> None:
    fps = facet_fingerprints({"a": [], "b": {}, "c": "", "d": 0})
    assert len(set(fps.values())) == 4


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**53) + 1, 2**53 - 1) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)


@given(json_values, json_values)
def test_distinct_facet_values_never_share_a_fingerprint(a: Any, b: Any) -> None:
    if a is None or b is None:
        return
    same = facet_fingerprints({"f": a}) == facet_fingerprints({"f": b})
    from hz.canonical import canonical_json

    assert same == (canonical_json(a) == canonical_json(b))


@given(st.text(max_size=200))
def test_canonical_text_is_idempotent(text: str) -> None:
    once = canonical_text(text)
    assert canonical_text(once) == once


@given(st.text(alphabet="abc=&?#/:._-%", max_size=40))
def test_canonical_url_is_idempotent(tail: str) -> None:
    once = canonical_url("https://example.org/" + tail)
    assert canonical_url(once) == once


def test_window_is_half_open() -> None:
    slot = datetime(2026, 11, 30, 7, 0, tzinfo=UTC)
    week = Window.of(slot, timedelta(days=7))
    assert slot - timedelta(days=7) in week
    assert slot - timedelta(seconds=1) in week
    assert slot not in week
    assert slot - timedelta(days=7, seconds=1) not in week
    assert week.to_json() == {"start": "2026-11-23T07:00:00Z", "end": "2026-11-30T07:00:00Z"}


def test_times_parse_in_every_offset_form() -> None:
    assert iso(parse_time("2026-11-27T09:12:00.000+0100") or datetime.min) == "2026-11-27T08:12:00Z"
    assert parse_time("not a time") is None
    assert parse_time(None) is None


any_json = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**53) + 1, 2**53 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=16,
)


@given(any_json)
def test_the_fast_fingerprint_equals_the_shared_helper(value: Any) -> None:
    from hz.canonical import fingerprint as shared
    from hz.sources.fastjcs import fingerprint as fast

    assert fast(value) == shared(value)


def test_the_fast_path_is_taken_for_plain_ascii_records() -> None:
    from hz.sources.fastjcs import _fast_bytes

    assert _fast_bytes({"b": [1, "x y"], "a": None, "c": True}) == b'{"a":null,"b":[1,"x y"],"c":true}'
    assert _fast_bytes({"a": 1.0}) is None
    assert _fast_bytes({"a": "caf\u00e9"}) is None
    assert _fast_bytes({"a": "line\nbreak"}) is None
