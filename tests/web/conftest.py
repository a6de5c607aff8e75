"""The web head's fixtures: `hz serve` on a free loopback port (uvicorn on a thread of the test process,
serving a real socket), its login URL and token, and agents made through the real CLI."""

from __future__ import annotations

import io
import os
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.turn.agents import contract_text

Hz = Any  # the conftest fixture: hz(*argv) -> CliResult


@dataclass
class Served:
    base: str
    port: int
    login: str
    token: str
    server: Any

    @property
    def bearer(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}


def start(environ: dict[str, str] | None = None) -> Served:
    from hz.web.serve import Options, in_background

    out = io.StringIO()
    server = in_background(Options(port=0), dict(environ or os.environ), out)
    deadline = time.monotonic() + 10
    while not server.server.started:
        assert time.monotonic() < deadline, "the server did not start"
        time.sleep(0.01)
    login = re.search(r"http://\S+", out.getvalue())
    assert login is not None, out.getvalue()
    port = int(server.sock.getsockname()[1])
    token = (Path(os.environ["HZ_HOME"]) / "web" / "token").read_text().strip()
    return Served(f"http://127.0.0.1:{port}", port, login.group(0), token, server)


@pytest.fixture
def served(repo: Path) -> Iterator[Served]:
    found = start()
    yield found
    found.server.stop()


def agent_with_draft(hz: Hz, repo: Path, name: str = "note") -> str:
    """A personal agent, approved and woken once: the offline runner placed a draft of its note. Its id."""
    path = repo.parent / f"{name}.prose.md"
    target = f"file:{name}/{{{{slot:%G-W%V}}}}.md"  # a file of its own: agents drafting one file fight over it
    path.write_text(contract_text(f"weekly-{name}", target=target), encoding="utf-8")
    made = hz("heinzel", "new", name, "--from", str(path))
    assert made.exit_code == 0, made.err
    assert hz("approve", name).exit_code == 0
    woke = hz("heinzel", "wake", name)
    assert (woke.exit_code, woke.out) == (0, f"{name}: started -> drafted\n"), woke.err
    found = re.search(r"hz-[0-9A-Z]{26}", made.out)
    assert found is not None
    return found.group(0)
