"""An amendment the model proposes: kept in the turn body, recorded for the user to decide.

Whether an amendment widens the contract (and is refused with HZC050 when the agent proposes it) is
decided by the agent's contract versions in `hz.heinzel`; when that module offers `propose_amendment`
it is used, otherwise hz records the proposal with the fingerprints of the proposed text.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Mapping
from typing import Any

from hz.canonical import fingerprint_bytes
from hz.session.bodies import append_body
from hz.turn.engine import Deps, Turn
from hz.turn.journal import Journal


def propose(journal: Journal, turn: Turn, deps: Deps, amendment: Mapping[str, Any]) -> None:
    amendment_id = f"am-{turn.id}"
    if any(e.kind.startswith("amendment.") and e.data.get("amendment_id") == amendment_id for e in journal.events()):
        return
    text = str(amendment["text"])
    append_body(journal.directory, turn.id, {"amendment": {"id": amendment_id, "text": text}})
    hook = _heinzel_hook()
    if hook is not None:
        hook(journal, turn.plan.agent_id, amendment_id, text, str(amendment.get("reason", "")), turn.id)
        return
    digest = fingerprint_bytes(text.encode("utf-8"))
    data = {
        "amendment_id": amendment_id,
        "by": "agent",
        "base_version": turn.plan.version,
        "contract_fingerprint": digest,
        "source_fingerprint": digest,
        "sentence": str(amendment.get("reason", "a change to the contract"))[:1000],
    }
    journal.append("amendment.proposed", data, turn=turn.id, key=None)


def _heinzel_hook() -> Any:
    if importlib.util.find_spec("hz.heinzel.turns") is None:
        return None
    return getattr(importlib.import_module("hz.heinzel.turns"), "propose_from_turn", None)
