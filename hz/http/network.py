"""The network under the client: every connect, TLS handshake, read and write ends by the request's deadline.

httpx's timeouts hold for one operation each, so a server sending a byte every few seconds (of its
headers or of its body) would never trip them. Here each operation's timeout is cut to the time left
until the deadline of the request under way (`REQUEST_END`, set by `hz.http.client`), and an operation
that starts after it fails at once, as httpcore's own timeout would.
"""

from __future__ import annotations

import ssl
import time
from collections.abc import Iterable
from contextvars import ContextVar
from typing import Any

import httpcore
import httpx

REQUEST_END: ContextVar[float | None] = ContextVar("hz_request_end", default=None)


def _bounded(timeout: float | None, error: type[Exception]) -> float | None:
    end = REQUEST_END.get()
    if end is None:
        return timeout
    left = end - time.monotonic()
    if left <= 0:
        raise error("the request's deadline passed")
    return left if timeout is None else min(timeout, left)


class _Stream(httpcore.NetworkStream):
    def __init__(self, inner: httpcore.NetworkStream) -> None:
        self._inner = inner

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._inner.read(max_bytes, _bounded(timeout, httpcore.ReadTimeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._inner.write(buffer, _bounded(timeout, httpcore.WriteTimeout))

    def close(self) -> None:
        self._inner.close()

    def start_tls(
        self, ssl_context: ssl.SSLContext, server_hostname: str | None = None, timeout: float | None = None
    ) -> httpcore.NetworkStream:
        bounded = _bounded(timeout, httpcore.ConnectTimeout)
        return _Stream(self._inner.start_tls(ssl_context, server_hostname, bounded))

    def get_extra_info(self, info: str) -> Any:
        return self._inner.get_extra_info(info)


class _Backend(httpcore.NetworkBackend):
    def __init__(self) -> None:
        self._inner = httpcore.SyncBackend()

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.NetworkStream:
        bounded = _bounded(timeout, httpcore.ConnectTimeout)
        return _Stream(self._inner.connect_tcp(host, port, bounded, local_address, socket_options))

    def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Iterable[Any] | None = None
    ) -> httpcore.NetworkStream:
        bounded = _bounded(timeout, httpcore.ConnectTimeout)
        return _Stream(self._inner.connect_unix_socket(path, bounded, socket_options))

    def sleep(self, seconds: float) -> None:
        self._inner.sleep(seconds)


class DeadlineTransport(httpx.HTTPTransport):
    """httpx's own transport over the bounded network: its request and error mapping are kept as they are."""

    def __init__(self, ssl_context: ssl.SSLContext) -> None:
        super().__init__(verify=ssl_context, trust_env=False)
        self._pool = httpcore.ConnectionPool(
            ssl_context=ssl_context,
            network_backend=_Backend(),
            max_connections=100,
            max_keepalive_connections=20,
            keepalive_expiry=5.0,
        )
