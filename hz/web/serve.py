"""The process behind `hz serve` and `hz daemon run --serve`: a loopback socket, uvicorn, the login URL.

The socket is bound before the app is built, so the app knows its own port (the Host check and the
cookie's name need it) even when the port was chosen by the system (`--port 0`). Only loopback
addresses can be bound: the token guards the pages, but a page that no other machine can reach is one
attack surface fewer.
"""

from __future__ import annotations

import os
import socket
import sys
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TextIO

from hz.errors import HzError

if TYPE_CHECKING:
    import uvicorn

LOOPBACK = ("127.0.0.1", "::1", "localhost")
DEFAULT_PORT = 8765


@dataclass(frozen=True)
class Options:
    host: str = "127.0.0.1"
    port: int = DEFAULT_PORT
    new_token: bool = False


def bind(host: str, port: int) -> socket.socket:
    if host not in LOOPBACK:
        raise HzError(f"hz serve listens on loopback only, not {host!r}", hint="use 127.0.0.1, ::1 or localhost")
    family = socket.AF_INET6 if host == "::1" else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    # inherited by every accepted connection: a response's head and body go out at once, not 40 ms apart
    # (Nagle's wait for the ACK a keep-alive client delays)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    try:
        sock.bind(("127.0.0.1" if host == "localhost" else host, port))
    except OSError as exc:
        sock.close()
        raise HzError(f"cannot listen on {host} port {port}: {exc.strerror}", hint="pick another --port") from None
    sock.listen(128)
    sock.set_inheritable(False)
    return sock


def login_url(host: str, port: int, code: str) -> str:
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}/login?code={code}"


def prepare(options: Options, environ: Mapping[str, str], out: TextIO) -> tuple[uvicorn.Server, socket.socket]:
    """Bind, build the app, print the one-time login URL; the server is ready to run."""
    import uvicorn

    from hz.config import private_home
    from hz.ops import Context
    from hz.web.app import build_app
    from hz.web.auth import load_keys

    home = private_home(environ)
    keys = load_keys(home, renew=options.new_token)
    sock = bind(options.host, options.port)
    port = int(sock.getsockname()[1])
    app = build_app(keys, port, Context.here(environ))
    config = uvicorn.Config(
        app, log_level="warning", access_log=False, lifespan="on", timeout_graceful_shutdown=2,
        server_header=False, date_header=False, proxy_headers=False,
    )  # fmt: skip
    print(f"hz serve: open {login_url(options.host, port, keys.mint_login())}", file=out, flush=True)
    print(f"  (the link works once; REST clients send 'Authorization: Bearer' with {keys.folder}/token)",
          file=out, flush=True)  # fmt: skip
    return _server(config, app.watcher), sock


def _server(config: uvicorn.Config, watcher: Any) -> uvicorn.Server:
    """uvicorn's server, ending the open event streams first when it shuts down: otherwise it would wait
    for each open page until its graceful timeout."""
    import uvicorn

    class Server(uvicorn.Server):
        async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
            await watcher.close()
            await super().shutdown(sockets)

    return Server(config)


def serve_command(options: Options, environ: Mapping[str, str] = os.environ) -> int:
    server, sock = prepare(options, environ, sys.stdout)
    try:
        server.run(sockets=[sock])
    finally:
        sock.close()
    return 0


class Background:
    """The server in a thread of its own (beside a daemon's ticks); `stop` ends it and waits."""

    def __init__(self, server: uvicorn.Server, sock: socket.socket) -> None:
        self.server, self.sock = server, sock
        self.thread = threading.Thread(target=self._run, name="hz-serve", daemon=True)

    def _run(self) -> None:
        self.server.run(sockets=[self.sock])

    def start(self) -> Background:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)
        self.sock.close()


def in_background(options: Options, environ: Mapping[str, str], out: TextIO) -> Any:
    return Background(*prepare(options, environ, out)).start()
