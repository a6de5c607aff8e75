"""A drafting tick makes its turns' spine lines and bodies durable once, before its finishing push (issue 22).

Each of a drafted turn's nine spine lines was fdatasynced on its own, and its body's folder with every
record (about twenty syncs a slot). Inside a tick the spines are flushed together (hz.session.batch):
every spine the turns wrote is fdatasynced after the last turn and before the push that carries their
receipts, so the remote never holds a receipt of a line a power cut could take. Counted on the real
calls, which still run.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from hz.tick.daemon import tick
from tests.turn.test_team_onepush import HOUR, SLOTS, _pushes, _team


def test_a_drafting_tick_flushes_its_turns_once_before_the_finishing_push(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _bare, clone, environ, log = _team(tmp_path, monkeypatch)
    synced: list[tuple[str, str, int]] = []  # (call, path, pushes made by then)
    for name in ("fsync", "fdatasync"):
        real = getattr(os, name)

        def counted(fd: int, real: object = real, name: str = name) -> None:
            synced.append((name, os.readlink(f"/proc/self/fd/{fd}"), len(_pushes(log))))
            real(fd)  # type: ignore[operator]

        monkeypatch.setattr(os, name, counted)
    report = tick(root=clone, environ=environ, now=HOUR)
    assert [(e["action"], e.get("disposition")) for e in report.woken] == [("started", "drafted")] * SLOTS
    assert len(_pushes(log)) == 2
    assert len(synced) <= 10 * SLOTS, synced  # before: 20 a slot (9 spine lines, 4 body records and folders)
    spines = sorted(Path(environ["HZ_HOME"]).glob("heinzel/hz-*/session.jsonl"))
    flushed = {path: pushes for call, path, pushes in synced if path.endswith("session.jsonl")}
    assert sorted(flushed) == [str(p) for p in spines]  # each spine once, after its turn's lines
    assert set(flushed.values()) == {1}  # after the acquisitions' push, before the finishing one
    bodies = [p for _, p, _ in synced if "/turns/" in p]
    assert len(bodies) == 4 * SLOTS  # each body record still at once: a line may name it before the flush
