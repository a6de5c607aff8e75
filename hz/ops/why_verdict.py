"""The answer of `why` in one sentence, from its facts alone (a pure function: no reads, no clock but `now`)."""

from __future__ import annotations

from datetime import datetime

from hz.ops.models_why import WhyData


def verdict(facts: WhyData, now: datetime) -> str:
    """The first fact that explains the slot, most decisive first."""
    from hz.slots import parse_slot

    slot, fate, lease, agent = facts["slot"], facts["fate"], facts["lease"], facts["agent"]
    if agent is not None and agent["state"] in {"paused", "retired", "proposed", "frozen"}:
        return f"its agent here is {agent['state']}: it does not wake"
    if slot is None and fate is None:
        return "it has no schedule: it runs when an input moves, or when someone wakes or asks it"
    if slot is not None and parse_slot(slot) > now:
        return f"not due yet: its slot is {slot}"
    if fate is not None:
        return _fated(fate)
    if lease is not None and lease.get("this_slot") and lease["held_now"]:
        return f"running: {lease['holder']} ({lease['role']}) holds the lease until {lease['expires']}"
    grace = facts["grace"]
    if grace is not None and facts["roles"]["my_role"] != "owner" and now < parse_slot(grace["others_from"]):
        owner = facts["roles"]["owner"] or "the owner"
        return f"waiting for {owner} to run it; delegates and Actions may take it from {grace['others_from']}"
    waiting = [u for u in facts["upstream"] if u["pending_draft"]]
    if waiting:
        return f"an upstream draft waits for approval: {waiting[0]['pending_draft']} of {waiting[0]['contract']}"
    if facts["cap"] is not None:
        return f"a spending cap stopped it ({facts['cap']['name']} cap)"
    if facts["roles"]["my_role"] is None and facts["scope"] == "team":
        return "nobody ran it yet, and this machine's member is neither its owner nor a delegate"
    return "nothing ran for this slot yet (no receipt on hz/state and no turn here)"


def _fated(fate: dict[str, object] | object) -> str:
    assert isinstance(fate, dict)
    by = f" by {fate['holder']} ({fate['role']})" if fate.get("holder") else ""
    reason = f" ({fate['reason']})" if fate.get("reason") else ""
    draft = f"; its draft {fate['draft']} is {fate['draft_fate']}" if fate.get("draft") else ""
    return f"{fate['outcome']} at {fate['at']}{by}: {fate['disposition']}{reason}{draft}"
