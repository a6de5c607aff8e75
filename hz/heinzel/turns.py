"""What a running turn asks of the agent's lifecycle (the turn engine calls these by name).

`propose_from_turn` is the hook `hz.turn.amend` looks for: the turn holds the spine's lock through its
journal, so the proposal is appended through that journal, and a widening is refused with HZC050.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hz.heinzel.amendments import Proposal, propose


def current_version(events: Any) -> tuple[int, str]:
    """(approved contract version, namespace) as the spine's events so far say."""
    version, namespace = 1, "me"
    for event in events:
        if event.kind == "heinzel.created":
            namespace = event.data["namespace"]
        elif event.kind in ("contract.approved", "contract.amended"):
            version = int(event.data["version"])
    return version, namespace


def propose_from_turn(
    journal: Any,
    agent_id: str,
    amendment_id: str,
    text: str,
    reason: str,
    turn_id: str,
    review: Callable[[], str | None] | None = None,
) -> Proposal:
    version, namespace = current_version(journal.events())
    return propose(
        lambda kind, data: journal.append(kind, data, turn=turn_id, key=None),
        journal.directory,
        base_version=version,
        namespace=namespace,
        text=text,
        by="agent",
        sentence=reason[:1000] or None,
        amendment_id=amendment_id,
        review=review,
    )
