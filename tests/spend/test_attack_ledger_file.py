"""Attack: the ledger file is damaged, locked away or swapped for something else between ticks.

Whatever the file has become, a real `hz tick` must refuse to spend (the endpoint sees no request), say
why in plain words and never crash with a traceback or hang.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from hz.session.store import Store
from tests.fakes.openai_server import FakeOpenAI
from tests.spend.test_caps_hold import DRAFT, MONDAY, TICK, configure
from tests.turn.agents import adopt, contract_text


def _ledger() -> Path:
    with Store.from_environ(os.environ) as store:
        return store.root / "spend.sqlite"


def _garbage(path: Path) -> None:
    path.write_bytes(b"this is not a database\n" * 400)


def _truncated_header(path: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data[:50])


def _directory(path: Path) -> None:
    path.unlink()
    path.mkdir()


def _fifo(path: Path) -> None:
    path.unlink()
    os.mkfifo(path, 0o600)


def _symlink_to_missing(path: Path) -> None:
    path.unlink()
    path.symlink_to(path.parent / "nowhere" / "spend.sqlite")


def _symlink_to_copy(path: Path) -> None:
    copy = path.parent / "elsewhere.sqlite"
    copy.write_bytes(path.read_bytes())
    path.unlink()
    path.symlink_to(copy)


def _wal_directory(path: Path) -> None:
    Path(f"{path}-wal").mkdir()


DAMAGE: dict[str, Callable[[Path], None]] = {
    "garbage": _garbage,
    "truncated": _truncated_header,
    "directory": _directory,
    "fifo": _fifo,
    "dangling-symlink": _symlink_to_missing,
    "symlink-to-a-copy": _symlink_to_copy,
    "wal-is-a-directory": _wal_directory,
}


@pytest.mark.parametrize("damage", sorted(DAMAGE))
def test_a_damaged_ledger_refuses_spending_with_a_clear_error(repo: Path, damage: str) -> None:
    with FakeOpenAI(outcome=DRAFT, completion_tokens=1_000) as server:
        configure(server, "max_usd = 1.0\nmax_usd_per_day = 5.0")
        adopt(contract_text(), now=MONDAY)
        first = subprocess.run([*TICK[:-1], "2026-10-26T08:00Z"], cwd=repo, capture_output=True, text=True, timeout=120)
        assert first.returncode == 0, first.stdout + first.stderr
        asked = len(server.asked)
        for name in ("spend.sqlite-wal", "spend.sqlite-shm"):
            (_ledger().parent / name).unlink(missing_ok=True)
        DAMAGE[damage](_ledger())
        adopt(contract_text("b-note", target="file:b-{{slot:%G-W%V}}.md"), now=MONDAY)
        try:
            tick = subprocess.run(TICK, cwd=repo, capture_output=True, text=True, timeout=60)
        except subprocess.TimeoutExpired:
            pytest.fail(f"hz tick hung on a ledger that is a {damage}")
        said = tick.stdout + tick.stderr
        assert len(server.asked) == asked, said  # nothing was spent uncounted
        assert "Traceback" not in said and tick.returncode != 3, said
        assert f"the spend ledger {_ledger()} cannot be used" in said, said
        assert "index" not in said.split("hint")[0], said  # the healthy index is neither blamed nor set aside
        assert not list(_ledger().parent.glob("index.sqlite.corrupt-*")), said
