"""A damaged `index.sqlite` is set aside for the user and rebuilt from the spines; no command fails on it.

Issue 14, finding 8: a corrupt index made every command exit 3, `hz heinzel reindex` included.
"""

from __future__ import annotations

import os
import sqlite3
import stat
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from hz.session.schema import SCHEMA_VERSION
from tests.turn.agents import adopt, contract_text

MONDAY = datetime(2026, 10, 26, 9, 0, tzinfo=UTC)


def _root() -> Path:
    return Path(os.environ["HZ_HOME"]) / "heinzel"


def _index() -> Path:
    return _root() / "index.sqlite"


def _set_aside() -> list[Path]:
    """The damaged files kept for the user (each with its -wal and -shm when it had them)."""
    return [p for p in _root().glob("index.sqlite.corrupt-*") if not p.name.endswith(("-wal", "-shm"))]


def _healthy() -> bytes:
    """The index's own bytes, its log folded in and gone, so that the file alone is the database."""
    db = sqlite3.connect(_index())
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    return _index().read_bytes()


def _garbage(good: bytes) -> None:
    _index().write_bytes(b"\x00not an index at all\xff" * 300)


def _truncated(good: bytes) -> None:
    _index().write_bytes(good[: 4096 + 100])


def _wrong_tables(good: bytes) -> None:
    _index().unlink()
    db = sqlite3.connect(_index())
    db.execute("CREATE TABLE agents (id TEXT, colour TEXT)")
    db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
    db.commit()
    db.close()


def _directory(good: bytes) -> None:
    _index().unlink()
    _index().mkdir()
    (_index() / "something").write_text("left here\n")


def _fifo(good: bytes) -> None:
    _index().unlink()
    os.mkfifo(_index())


DAMAGE: dict[str, tuple[Callable[[bytes], None], str]] = {
    "garbage": (_garbage, "file is not a database"),
    "truncated": (_truncated, "database disk image is malformed"),
    "wrong tables": (_wrong_tables, "its tables are not the ones hz makes"),
    "a directory": (_directory, "a directory in its place"),
    "a fifo": (_fifo, "not a file in its place"),
}
COMMANDS = {
    "list": ("heinzel", "list"),
    "show": ("heinzel", "show", "weekly-note", "--json"),
    "tick": ("tick", "--now", "2026-10-26T09:00Z"),
    "reindex": ("heinzel", "reindex"),
}


@pytest.mark.parametrize("command", list(COMMANDS))
@pytest.mark.parametrize("damage", list(DAMAGE))
def test_a_damaged_index_is_set_aside_and_rebuilt_by_any_command(
    repo: Path, hz: Any, damage: str, command: str
) -> None:
    adopt(contract_text(), now=MONDAY)
    argv = COMMANDS[command]
    known = {"tick": "weekly-note: started -> drafted\n", "reindex": "rebuilt the index from 1 spine(s)\n"}
    expected = known[command] if command in known else hz(*argv).out
    good = _healthy()
    damaging, why = DAMAGE[damage]
    damaging(good)
    damaged = _index().read_bytes() if _index().is_file() and not stat.S_ISFIFO(_index().stat().st_mode) else None
    result = hz(*argv)
    (aside,) = _set_aside()
    assert (result.exit_code, result.out) == (0, expected)
    assert result.err == (
        f"warning: the index {_index()} was damaged ({why}); kept it as {aside.name} and rebuilt it from the spines\n"
    )
    assert stat.S_IMODE(aside.lstat().st_mode) == (0o700 if aside.is_dir() else 0o600)
    if damaged is not None:
        assert aside.read_bytes() == damaged  # kept for the user as it was
    assert hz(*COMMANDS["list"]).err == ""  # the new index is whole


def test_damage_deeper_than_an_open_looks_fails_once_cleanly_then_is_rebuilt(repo: Path, hz: Any) -> None:
    adopt(contract_text(), now=MONDAY)
    listed = hz("heinzel", "list").out
    good = bytearray(_healthy())
    db = sqlite3.connect(_index())
    page = db.execute("SELECT rootpage FROM sqlite_master WHERE name = 'agents'").fetchone()[0]
    db.close()
    good[(page - 1) * 4096 : page * 4096] = b"\xff" * 4096  # the agents table's page: only a query reads it
    _index().write_bytes(bytes(good))
    first = hz("heinzel", "list")
    (aside,) = _set_aside()
    assert (first.exit_code, first.out) == (1, "")
    assert first.err == (
        f"error: the index {_index()} is damaged (database disk image is malformed); it is kept as {aside.name}\n"
        "  hint: run the command again: the next one rebuilds the index from the spines\n"
    )
    again = hz("heinzel", "list")
    assert (again.exit_code, again.out, again.err) == (0, listed, "")


def test_reindex_rebuilds_an_index_too_damaged_to_rebuild_in_place(repo: Path, hz: Any) -> None:
    adopt(contract_text(), now=MONDAY)
    shown = hz("heinzel", "show", "weekly-note", "--json").out
    good = bytearray(_healthy())
    good[4096:] = b"\xff" * (len(good) - 4096)  # every page but the first, whose schema still reads
    _index().write_bytes(bytes(good))
    result = hz("heinzel", "reindex")
    (aside,) = _set_aside()
    assert (result.exit_code, result.out) == (0, "rebuilt the index from 1 spine(s)\n")
    assert result.err == (
        f"warning: the index {_index()} was damaged (database disk image is malformed);"
        f" kept it as {aside.name} and rebuilt it from the spines\n"
    )
    assert hz("heinzel", "show", "weekly-note", "--json").out == shown
