"""Cause stale: an approved output past its freshness wakes its agent, by the clock, not the model."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from hz.session.spine import SPINE, read_spine
from hz.tick.daemon import tick
from tests.turn.agents import adopt, contract_text, home

MONDAY = datetime(2026, 10, 26, 9, 0, tzinfo=UTC)


def test_an_output_past_its_freshness_is_rendered_again(repo: Path, hz: Any) -> None:
    text = contract_text().replace("  render_on_schedule:", "  freshness: 2d\n  render_on_schedule:", 1)
    agent = adopt(text, now=MONDAY)
    tick(root=repo, now=MONDAY)
    (repo / "notes/2026-W44.md").write_text("## summary\n\nShipped.\n\n## risks\n\nNone.\n")  # approved by hand
    approved_at = MONDAY + timedelta(hours=1)
    assert [e["disposition"] for e in tick(root=repo, now=approved_at).woken] == ["skipped"]  # the approval turn
    assert tick(root=repo, now=approved_at + timedelta(days=1)).woken == []
    stale = tick(root=repo, now=approved_at + timedelta(days=2, minutes=1))
    assert [(e["action"], e["disposition"]) for e in stale.woken] == [("started", "drafted")]
    started = [e for e in read_spine(home() / "heinzel" / agent / SPINE).events if e.kind == "turn.started"]
    assert started[-1].data["cause"] == "stale"
    assert started[-1].data["keys"] == [f"{agent}@stale:note:2026-10-28T10:00Z"]
    assert tick(root=repo, now=approved_at + timedelta(days=2, minutes=2)).woken == []
