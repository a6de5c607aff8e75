"""A personal draft's approval turn runs on its own, whatever else wakes its agent in the same tick."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from hz.session.spine import SPINE, read_spine
from hz.tick.daemon import tick
from tests.turn.agents import adopt, contract_text, home

NINE = datetime(2026, 10, 26, 9, 0, tzinfo=UTC)


def test_an_approval_due_with_the_next_schedule_slot_is_recorded(repo: Path, hz: Any) -> None:
    """Before: the approval was coalesced into the 10:00 schedule wake, its gather step (run only when it
    is a turn's first cause) never ran, and its key was settled with no approval.observed: lost."""
    text = contract_text(cron="0 * * * *", target="file:notes/{{slot:%Y%m%d%H}}.md")
    agent = adopt(text, now=NINE - timedelta(days=1))
    assert [(e["action"], e["disposition"]) for e in tick(root=repo, now=NINE).woken] == [("started", "drafted")]
    (repo / "notes/2026102609.md").write_text("## summary\n\nShipped, edited by hand.\n\n## risks\n\nNone.\n")

    woken = tick(root=repo, now=NINE + timedelta(hours=1)).woken
    assert sorted((e["action"], e["disposition"]) for e in woken) == [("started", "drafted"), ("started", "skipped")]
    spine = read_spine(home() / "heinzel" / agent / SPINE).events
    approvals = [e for e in spine if e.kind == "approval.observed"]
    assert [(e.data["key"], e.data["decision"]) for e in approvals] == [
        (f"{agent}@v1@2026-10-26T09:00Z@file:notes/2026102609.md", "approved")
    ]
    assert 0 < approvals[0].data["share_changed"] < 1
    started = [e.data["cause"] for e in spine if e.kind == "turn.started"]
    assert sorted(started[1:]) == ["approval", "schedule"]
