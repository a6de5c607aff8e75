"""A Friday slot where nothing moved is skipped after an approval turn too (issue 24, finding 2): the
comparison is with the inputs the last drafting turn saw, whatever turns (an approval's) came since."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

from hz.session.spine import SPINE, read_spine
from hz.tick.daemon import tick
from tests.fakes.openai_server import FakeOpenAI
from tests.spend.test_caps_hold import DRAFT, configure
from tests.turn.agents import adopt, home
from tests.turn.test_moved import watching

MONDAY = datetime(2026, 10, 26, 9, 0, tzinfo=UTC)
FRIDAY = datetime(2026, 10, 30, 15, 0, tzinfo=UTC)
LESSONS = {"kind": "lessons", "report": "learned", "lessons": [{"sentence": "risks first", "hunks": ["@@ -1 +1 @@"]}]}


def test_nothing_moved_skips_the_friday_after_an_approval_turn(repo: Path) -> None:
    (repo / "tracker.json").write_text(json.dumps([{"title": "CHK-1"}]))
    with FakeOpenAI(outcome=DRAFT, completion_tokens=100) as server:
        configure(server, "max_usd = 1.0")
        text = watching("weekly-note", "file:tracker.json").replace(
            "render_on_schedule: always", "render_on_schedule: if-moved"
        )
        agent = adopt(text, now=MONDAY)
        assert [e["disposition"] for e in tick(root=repo, now=MONDAY).woken] == ["drafted"]
        draft = repo / "notes/weekly-note.md"
        draft.write_text("## risks\n\nnone\n\n## summary\n\nshipped CHK-1\n")  # edited, its tag line deleted
        server.outcome = LESSONS
        learned = tick(root=repo, now=MONDAY + timedelta(days=1))
        assert [(e["action"], e["disposition"]) for e in learned.woken] == [("started", "learned")]
        asked = len(server.requests)
        friday = tick(root=repo, now=FRIDAY)
        assert friday.woken == [
            {"agent": "weekly-note", "action": "skipped", "reason": "nothing-moved", "cause": "schedule"}
        ]
        assert len(server.requests) == asked
        skipped = [e.data for e in read_spine(home() / "heinzel" / agent / SPINE).events if e.kind == "turn.skipped"]
        assert [(d["reason"], d["moved"]) for d in skipped] == [("nothing-moved", [])]
