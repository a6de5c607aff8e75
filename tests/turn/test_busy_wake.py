"""A tick's wake for an agent awake in another process (issue 24, finding 5): it goes through the inbox
as `turn.requested` and runs as that process's one follow-up turn, not as "busy" and a later turn."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

from hz.commands.tick import render_report
from hz.session.spine import SPINE, read_spine
from hz.tick.daemon import tick
from tests.fakes.openai_server import FakeOpenAI
from tests.spend.test_caps_hold import configure
from tests.turn.agents import adopt, home
from tests.turn.test_moved import watching

MONDAY = datetime(2026, 10, 26, 9, 0, tzinfo=UTC)
FRIDAY = datetime(2026, 10, 30, 15, 0, tzinfo=UTC)
DRAFT = {"kind": "draft", "report": "drafted", "drafts": [{"output": "note", "facet": f, "text": "x"}
                                                          for f in ("summary", "risks")]}  # fmt: skip


def test_a_source_that_moves_while_the_agent_is_awake_is_queued_and_runs_as_its_follow_up(repo: Path) -> None:
    (repo / "tracker.json").write_text(json.dumps([{"title": "CHK-1"}]))
    with FakeOpenAI(outcome=DRAFT, completion_tokens=100) as server:
        configure(server, "max_usd = 1.0")
        agent = adopt(watching("weekly-note", "file:tracker.json"), now=MONDAY)
        tick(root=repo, now=MONDAY)
        assert server.arrived.acquire(timeout=5)
        server.release.clear()  # Friday's turn stays in think, its process holding the spine
        argv = [sys.executable, "-m", "hz", "tick", "--now", "2026-10-30T15:00Z"]
        with subprocess.Popen(argv, cwd=repo, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) as friday:
            assert server.arrived.acquire(timeout=60), "Friday's turn never asked the model"
            (repo / "tracker.json").write_text(json.dumps([{"title": "CHK-1"}, {"title": "CHK-2"}]))
            busy = tick(root=repo, now=FRIDAY + timedelta(seconds=30))  # the same minute: seen all the same
            server.release.set()
            out, err = friday.communicate(timeout=120)
        assert render_report(busy) == ["weekly-note: awake in another process; source-changed queued for its next turn"]
        assert out.splitlines() == [
            "weekly-note: started -> drafted 0.0010 USD",
            "weekly-note: started -> drafted 0.0010 USD",
        ], out + err
        events = read_spine(home() / "heinzel" / agent / SPINE).events
        assert [e.data["cause"] for e in events if e.kind == "turn.requested"] == ["source-changed"]
        assert [e.data["cause"] for e in events if e.kind == "turn.started"] == [
            "created",
            "schedule",
            "source-changed",
        ]
        assert (
            tick(root=repo, now=FRIDAY + timedelta(minutes=1)).woken == []
        )  # the queued wake ran once, and is settled


def test_a_file_changed_within_the_minute_wakes_the_agent_at_the_next_tick(repo: Path) -> None:
    (repo / "tracker.json").write_text(json.dumps([{"title": "CHK-1"}]))
    with FakeOpenAI(outcome=DRAFT, completion_tokens=100) as server:
        configure(server, "max_usd = 1.0")
        adopt(watching("weekly-note", "file:tracker.json"), now=MONDAY)
        tick(root=repo, now=MONDAY)
        (repo / "tracker.json").write_text(json.dumps([{"title": "CHK-1"}, {"title": "CHK-2"}]))
        moved = tick(root=repo, now=MONDAY + timedelta(seconds=40))  # `hz source diff` says moved already
        assert [(e["action"], e["disposition"]) for e in moved.woken] == [("started", "drafted")]
