"""A personal contract's drafts supersede each other by idempotency key, as a team's do (issue 19).

`hourly-note` drafts one page an hour (`notes/{slot:%H}.md`) under `hz.idempotency: "{slot:%Y-%m-%d}"`:
the hours of one day are one job, so the 10:00 draft replaces the 09:00 one under review although it
writes another file, and the next day's draft is a job of its own. Before, a personal draft was replaced
only by a newer draft of the same file, so the 09:00 page was still watched: deleting it read as a
rejection. The tick is the real one, in process, on a real spine and repository.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from hz.tick.daemon import tick
from tests.turn.agents import adopt, contract_text

NINE = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)


def fates(woken: list[dict[str, Any]]) -> list[tuple[str, str]]:
    return [(e["action"], e["key"].rsplit("@", 1)[1]) for e in woken if e["action"] in ("rejected", "superseded")]


def test_a_newer_personal_draft_of_the_same_key_supersedes_the_older_one(repo: Path) -> None:
    text = contract_text("hourly-note", cron="0 * * * *", target="file:notes/{{slot:%H}}.md")
    adopt(text.replace("  outputs:", '  idempotency: "{slot:%Y-%m-%d}"\n  outputs:'), now=NINE)
    tick(root=repo, now=NINE)  # the created turn drafts notes/09.md
    tick(root=repo, now=NINE + timedelta(hours=1))  # notes/10.md: the same day, the same key
    assert sorted(p.name for p in (repo / "notes").iterdir()) == ["09.md", "10.md"]

    (repo / "notes" / "09.md").unlink()  # the superseded page is no longer under review: no fate to read
    assert fates(tick(root=repo, now=NINE + timedelta(hours=1, minutes=5)).woken) == []
    (repo / "notes" / "10.md").unlink()  # the newest of its key is: deleting it rejects it
    assert fates(tick(root=repo, now=NINE + timedelta(hours=1, minutes=10)).woken) == [("rejected", "file:notes/10.md")]
    # the next day is another key: its 09:00 draft waits beside nothing, and deleting it rejects it
    tick(root=repo, now=NINE + timedelta(days=1))
    (repo / "notes" / "09.md").unlink()
    assert fates(tick(root=repo, now=NINE + timedelta(days=1, minutes=5)).woken) == [("rejected", "file:notes/09.md")]
