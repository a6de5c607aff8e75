"""Summaries: "what I know about this asset and this user", in the same fields every time, chained.

`summary.written` has six fixed fields (`asset`, `wants`, `decisions`, `open_questions`, `next_deadline`,
`sources`), see `hz.session.item_payloads.SummaryWritten`; `previous_seq` names the summary it continues, so
the chain can be followed from the newest back to the first. `summary_payload` builds one (the turn engine
writes it), `chain` reads them back newest first and stops at a link that does not point at a summary.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any

from hz.session.envelope import Envelope

FIELDS = ("asset", "wants", "decisions", "open_questions", "next_deadline", "sources")


def summary_payload(
    events: Sequence[Envelope],
    *,
    asset: str,
    wants: str,
    decisions: Iterable[str] = (),
    open_questions: Iterable[str] = (),
    next_deadline: datetime | None = None,
    sources: Iterable[str] = (),
    kept_turns: int = 5,
) -> dict[str, Any]:
    previous = next((e for e in reversed(events) if e.kind == "summary.written"), None)
    data: dict[str, Any] = {
        "asset": asset,
        "wants": wants,
        "decisions": list(decisions),
        "open_questions": list(open_questions),
        "sources": list(sources),
        "kept_turns": kept_turns,
    }
    if next_deadline is not None:
        data["next_deadline"] = next_deadline
    if previous is not None:
        data["previous_seq"] = previous.seq
    return data


def chain(events: Sequence[Envelope]) -> list[Envelope]:
    """The summaries from the newest back along `previous_seq`."""
    by_seq = {e.seq: e for e in events if e.kind == "summary.written"}
    newest = max(by_seq, default=None)
    found: list[Envelope] = []
    while newest is not None and newest in by_seq:
        found.append(by_seq[newest])
        newest = by_seq[newest].data.get("previous_seq")
    return found
