"""The shared HTTP client against servers that misbehave on purpose: raw sockets on loopback, real httpx.

Each request ends by its deadline and by the tick's remote time, whatever the server drips; a body is
capped as sent and as inflated; redirects stay within the origin asked; JSON nesting is bounded.
"""

from __future__ import annotations

import socket
import time
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hz.http.budget import may_wait, tick_budget
from hz.http.client import Asked, Limits, RemoteError, json_of, new_client, request
from hz.http.jsonvalue import MAX_DEPTH, depth_over
from tests.sources.test_feed_world import raw_server

ASKED = Asked("the test server", "/x")
SECOND = Limits(deadline_s=1.0)


def _ask(url: str, limits: Limits = SECOND, method: str = "GET", **kwargs: Any) -> Any:
    with new_client() as session:
        return request(session, method, url, ASKED, limits, **kwargs)


def _fails(url: str, limits: Limits = SECOND, **kwargs: Any) -> RemoteError:
    with pytest.raises(RemoteError) as caught:
        _ask(url, limits, **kwargs)
    return caught.value


def _drip_headers(conn: socket.socket) -> None:
    conn.sendall(b"HTTP/1.1 200 OK\r\n")
    for _ in range(200):
        conn.sendall(b"x")
        time.sleep(0.1)


def _drip_body(conn: socket.socket) -> None:
    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n")
    for _ in range(200):
        conn.sendall(b" ")
        time.sleep(0.1)


def _answer(status: str, headers: str = "", body: bytes = b"") -> Callable[[socket.socket], None]:
    def talk(conn: socket.socket) -> None:
        conn.sendall(f"HTTP/1.1 {status}\r\n{headers}Content-Length: {len(body)}\r\n\r\n".encode() + body)

    return talk


@pytest.mark.parametrize("talk", [_drip_headers, _drip_body], ids=["headers", "body"])
def test_a_drip_ends_at_the_requests_deadline(talk: Callable[[socket.socket], None]) -> None:
    with raw_server(talk) as url:
        started = time.monotonic()
        error = _fails(url)
    assert time.monotonic() - started < 1.8
    assert (error.kind, error.render()) == (
        "timeout",
        "error: the test server took longer than 1 s to answer /x\n"
        "  hint: hz asks again at the next tick; set HZ_FETCH_DEADLINE_S to allow more",
    )


def test_the_ticks_remote_time_bounds_every_request_and_the_waits() -> None:
    with raw_server(_drip_body) as url, tick_budget({"HZ_TICK_REMOTE_S": "0.6"}):
        started = time.monotonic()
        error = _fails(url, Limits(deadline_s=30))
        assert time.monotonic() - started < 1.5
        assert error.message == "the tick's 0.6 s for remote requests ran out before the test server answered /x"
        assert error.hint == "hz asks again at the next tick; set HZ_TICK_REMOTE_S to allow a tick more"
        assert not may_wait(0.5)
        again = time.monotonic()
        assert _fails(url, Limits(deadline_s=30)).message == error.message  # spent: refused at once
        assert time.monotonic() - again < 0.2
    assert may_wait(3600)  # outside a tick only the request's own bounds hold


def test_a_body_past_the_cap_is_refused_as_declared_and_as_sent() -> None:
    limits = Limits(deadline_s=5, max_bytes=1000)
    with raw_server(_answer("200 OK", body=b" " * 1001)) as url:
        error = _fails(url, limits)
    assert error.kind == "too-large"
    assert error.message == "the test server sent more than 1000 bytes for /x (as sent or inflated)"

    def endless(conn: socket.socket) -> None:  # no length: chunks until hz hangs up
        conn.sendall(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")
        while True:
            conn.sendall(b"100\r\n" + b" " * 256 + b"\r\n")

    with raw_server(endless) as url:
        assert _fails(url, limits).kind == "too-large"


def test_redirects_stay_within_the_origin() -> None:
    def hop(conn: socket.socket) -> None:
        conn.sendall(b"HTTP/1.1 302 Found\r\nLocation: /elsewhere\r\nContent-Length: 0\r\n\r\n")

    with raw_server(_answer("200 OK", body=b"{}")) as other:
        port = other.split(":")[2].split("/")[0]
        with raw_server(_answer("302 Found", f"Location: http://127.0.0.1:{port}/pulls/1\r\n")) as url:
            error = _fails(url)
    assert (error.kind, error.message) == (
        "redirect",
        f"the test server redirected /x to another origin (http://127.0.0.1:{port}/pulls/1); hz did not follow it",
    )
    with raw_server(hop) as url:  # the same origin every time: followed, five times, then no more
        error = _fails(url)
    assert error.message == "the test server redirected /x more than 5 times; hz stopped following"


def test_a_write_is_repeated_only_when_the_server_asks_for_it() -> None:
    with raw_server(_answer("302 Found", "Location: /again\r\n")) as url:
        error = _fails(url, method="POST", json={"a": 1})
    assert error.message == "the test server redirected the POST of /x (302); hz did not repeat it"


def test_json_deeper_than_the_limit_is_refused_whole() -> None:
    limits = Limits()
    for depth, deep in ((MAX_DEPTH, False), (MAX_DEPTH + 1, True), (600, True), (2000, True)):
        body = b"[" * depth + b"]" * depth
        with raw_server(_answer("200 OK", body=body)) as url:
            response = _ask(url, Limits(deadline_s=5))
        if not deep:
            assert json_of(response, ASKED, limits) is not None
            continue
        with pytest.raises(RemoteError) as caught:
            json_of(response, ASKED, limits)
        assert caught.value.message == (
            "the test server answered /x with JSON nested more than 100 levels deep; hz read none of it"
        )


def _depth(value: Any) -> int:
    if isinstance(value, dict):
        return 1 + max((_depth(v) for v in value.values()), default=0)
    if isinstance(value, list):
        return 1 + max((_depth(v) for v in value), default=0)
    return 0


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
    max_leaves=30,
)


@given(JSON, st.integers(min_value=0, max_value=8))
def test_the_depth_loop_agrees_with_the_recursive_definition(value: Any, limit: int) -> None:
    assert depth_over(value, limit) == (_depth(value) > limit)


def test_a_public_feed_may_move_to_another_origin_but_a_write_may_not() -> None:
    with raw_server(_answer("200 OK", body=b"<rss/>")) as other:
        with raw_server(_answer("301 Moved Permanently", f"Location: {other}\r\n")) as url:
            assert _ask(url, elsewhere=True).content == b"<rss/>"
            error = _fails(url, method="POST", json={}, elsewhere=True)
            assert error.message.startswith("the test server redirected /x to another origin")
        with raw_server(_answer("302 Found", "Location: ftp://127.0.0.1/x\r\n")) as url:
            assert _fails(url, elsewhere=True).kind == "redirect"  # http(s) only
