"""Turn bodies and their pruning (only hz's files, never through a link), and the inbox."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from hz.errors import LockTimeout
from hz.session.bodies import append_body, body_path, body_ref, prune_bodies, read_body
from hz.session.inbox import list_requests, put_request, request_path
from hz.session.spine import SpineWriter

NOW = datetime(2026, 10, 30, 15, 0, tzinfo=UTC)


def _age(path: Path, days: int) -> None:
    then = (NOW - timedelta(days=days)).timestamp()
    os.utime(path, (then, then), follow_symlinks=False)


def test_a_body_is_referenced_by_hash_and_expires_as_a_visible_gap(tmp_path: Path) -> None:
    append_body(tmp_path, "t1", {"role": "user", "content": "the week's merges"})
    append_body(tmp_path, "t1", {"role": "assistant", "content": "a draft"})
    ref = body_ref(tmp_path, "t1")
    assert ref is not None and ref.size == body_path(tmp_path, "t1").stat().st_size
    assert read_body(tmp_path, "t1", ref.hash).records == [
        {"role": "user", "content": "the week's merges"},
        {"role": "assistant", "content": "a draft"},
    ]
    assert oct(body_path(tmp_path, "t1").stat().st_mode & 0o777) == "0o600"
    assert oct((tmp_path / "turns").stat().st_mode & 0o777) == "0o700"
    _age(body_path(tmp_path, "t1"), 91)
    assert [p.name for p in prune_bodies(tmp_path, now=NOW, retention_days=90)] == ["t1.jsonl"]
    assert read_body(tmp_path, "t1", ref.hash).status == "expired"
    assert prune_bodies(tmp_path, now=NOW, retention_days=90) == []  # idempotent


def test_prune_keeps_young_bodies_and_everything_when_retention_is_0(tmp_path: Path) -> None:
    append_body(tmp_path, "old", {"n": 1})
    append_body(tmp_path, "young", {"n": 2})
    _age(body_path(tmp_path, "old"), 10)
    _age(body_path(tmp_path, "young"), 2)
    assert prune_bodies(tmp_path, now=NOW, retention_days=0) == []
    assert [p.name for p in prune_bodies(tmp_path, now=NOW, retention_days=5)] == ["old.jsonl"]
    assert body_path(tmp_path, "young").exists()


def test_prune_never_follows_a_symlink_nor_deletes_what_hz_did_not_write(tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    append_body(agent, "t1", {"n": 1})
    outside = tmp_path / "precious.jsonl"
    outside.write_bytes(b'{"hz_body":1,"turn":"x"}\n')  # looks like a body, but lives elsewhere
    _age(outside, 400)
    (agent / "turns" / "link.jsonl").symlink_to(outside)
    foreign = agent / "turns" / "notes.jsonl"
    foreign.write_text("my own notes\n")
    _age(foreign, 400)
    _age(body_path(agent, "t1"), 400)
    deleted = prune_bodies(agent, now=NOW, retention_days=1)
    assert [p.name for p in deleted] == ["t1.jsonl"]
    assert outside.exists() and (agent / "turns" / "link.jsonl").is_symlink() and foreign.exists()


def test_prune_does_not_walk_into_a_linked_turns_folder(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    append_body(elsewhere, "t1", {"n": 1})
    _age(body_path(elsewhere, "t1"), 400)
    agent = tmp_path / "agent"
    agent.mkdir()
    (agent / "turns").symlink_to(elsewhere / "turns")
    assert prune_bodies(agent, now=NOW, retention_days=1) == []
    assert body_path(elsewhere, "t1").exists()


def test_hz_heinzel_prune_uses_retention_days(hz: Any, tmp_path: Path) -> None:
    from hz.config import config_home, hz_home

    agent = hz_home() / "heinzel" / "hz-01JB0000000000000000000001"
    agent.mkdir(mode=0o700, parents=True)
    with SpineWriter.open(agent) as writer:
        writer.append("usage", {"kind": "summary"})
    append_body(agent, "t1", {"n": 1})
    put_request(agent, "r1", "keep it short", now=NOW)
    for path in (body_path(agent, "t1"), request_path(agent, "r1")):
        then = (datetime.now(UTC) - timedelta(days=3)).timestamp()
        os.utime(path, (then, then))
    config_home().mkdir(parents=True, exist_ok=True)
    (config_home() / "config.toml").write_text("[heinzel]\nretention_days = 2\n")
    result = hz("heinzel", "prune")
    assert (result.exit_code, result.out) == (0, "pruned 2 file(s) and 0 source cache file(s) older than 2 days\n")
    assert hz("heinzel", "prune").out == "pruned 0 file(s) and 0 source cache file(s) older than 2 days\n"


_HOLD = """
import sys
from pathlib import Path
from hz.session.spine import SpineWriter
with SpineWriter.open(Path(sys.argv[1])):
    print("locked", flush=True)
    sys.stdin.readline()
"""


def test_a_message_that_finds_the_lock_held_waits_in_the_inbox_once(tmp_path: Path) -> None:
    holder = subprocess.Popen(
        [sys.executable, "-c", _HOLD, str(tmp_path)], stdout=subprocess.PIPE, stdin=subprocess.PIPE
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == b"locked\n"
        request, new = put_request(tmp_path, "msg-1", "also mention incidents", now=NOW)
        assert new
        with pytest.raises(LockTimeout):
            SpineWriter.open(tmp_path, timeout=0.05)
        again, new_again = put_request(tmp_path, "msg-1", "also mention incidents", now=NOW + timedelta(seconds=5))
        assert (new_again, again) == (False, request)
    finally:
        holder.communicate(b"\n", timeout=10)
    assert [(r.request_id, r.text, r.received) for r in list_requests(tmp_path)] == [
        ("msg-1", "also mention incidents", "2026-10-30T15:00:00.000Z")
    ]
    assert oct(request_path(tmp_path, "msg-1").stat().st_mode & 0o777) == "0o600"
