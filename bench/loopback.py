"""A `git daemon` on 127.0.0.1 with push enabled, for the benchmarks that need a remote over a socket."""

from __future__ import annotations

import socket
import subprocess
import time
from pathlib import Path


def serve(base: Path) -> tuple[subprocess.Popen[bytes], int]:
    """Serve the bare repositories under `base`; the process and its port, once it accepts connections."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = int(sock.getsockname()[1])
    proc = subprocess.Popen(["git", "daemon", "--reuseaddr", "--export-all", "--enable=receive-pack",
                             f"--base-path={base}", "--listen=127.0.0.1", f"--port={port}", str(base)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    for _ in range(500):
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return proc, port
        except OSError:
            time.sleep(0.02)
    proc.kill()
    raise SystemExit("git daemon did not start")
