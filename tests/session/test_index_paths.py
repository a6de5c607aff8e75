"""The idle paths: one indexed query for what is due, a list that never opens a spine, no pydantic."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from hz.session.index import Index
from hz.session.spine import SPINE, SpineWriter

NOW = datetime(2026, 10, 30, 15, 0, tzinfo=UTC)
FP = "sha256:" + "c" * 64


def _agents(root: Path, count: int) -> list[str]:
    ids = []
    for n in range(count):
        agent = f"hz-01JC{n:022d}"
        (root / agent).mkdir(parents=True, mode=0o700)
        with SpineWriter.open(root / agent) as w:
            w.append("heinzel.created", {"agent_id": agent, "name": f"a-{n}", "namespace": "me", "origin": "file"})
            w.append("contract.proposed", {"name": f"a-{n}", "contract_fingerprint": FP, "source_fingerprint": FP})
            w.append("contract.approved", {"version": 1, "next_due": f"2026-10-{20 + n:02d}T15:00:00Z"})
        ids.append(agent)
    return ids


def test_what_is_due_is_one_indexed_range_query(tmp_path: Path) -> None:
    ids = _agents(tmp_path, 3)
    with Index.open(tmp_path) as index:
        assert [r["id"] for r in index.due(datetime(2026, 10, 21, 15, 0, tzinfo=UTC))] == ids[:2]
        plan = index.db.execute(
            "EXPLAIN QUERY PLAN SELECT id, name, namespace, state, next_due FROM agents WHERE due_at <= ?"
            " ORDER BY due_at, id",
            ("2026-10-30T15:00:00Z",),
        ).fetchall()
        assert any("USING INDEX agents_due" in row[3] for row in plan), plan


def test_list_reads_the_index_only(tmp_path: Path, hz: Any) -> None:
    from hz.config import hz_home

    root = hz_home() / "heinzel"
    ids = _agents(root, 2)
    Index.open(root).close()
    for agent in ids:  # a list that read a spine would find nothing now
        (root / agent / SPINE).rename(root / agent / "moved-away.jsonl")
    result = hz("heinzel", "list")
    assert result.exit_code == 0, result.err
    assert result.out == (
        "NAME    STATE   VERSION  NEXT DUE             PENDING  TODAY  ID\n"
        f"me:a-0  asleep  v1       2026-10-20 15:00:00  -        0.00   {ids[0]}\n"
        f"me:a-1  asleep  v1       2026-10-21 15:00:00  -        0.00   {ids[1]}\n"
    )


def test_the_index_and_store_import_no_pydantic() -> None:
    code = (
        "import sys, hz.session.index, hz.session.store, hz.session.projection;"
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'pydantic', 'pygit2', 'ruamel', 'markdown_it'}))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=os.environ)
    assert out.stdout.strip() == "[]"


def test_a_last_line_that_lost_a_field_is_a_reported_break_not_a_crash(tmp_path: Path, hz: Any) -> None:
    from hz.config import hz_home

    root = hz_home() / "heinzel"
    ids = _agents(root, 2)
    spine = root / ids[1] / SPINE
    *before, last, end = spine.read_bytes().split(b"\n")  # the last line: contract.approved
    spine.write_bytes(b"\n".join([*before, last.replace(b'"version":1', b'"v1":1'), end]))
    result = hz("heinzel", "reindex")
    assert (result.exit_code, result.err) == (0, "")
    result = hz("heinzel", "list")
    assert result.exit_code == 0, result.err
    assert result.out == (
        "NAME    STATE   VERSION  NEXT DUE             PENDING  TODAY  ID\n"
        f"me:a-0  asleep  v1       2026-10-20 15:00:00  -        0.00   {ids[0]}\n"
        f"me:a-1  frozen  v1       -                    -        0.00   {ids[1]}\n"
        f"warning: the session of {ids[1]} breaks at seq 3: its contract.approved payload lacks version"
        " (hz heinzel show it)\n"
    )
