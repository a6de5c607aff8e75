"""Receipts on a repository's own `hz/state`, made with hz's event models, and contracts with an `id:`.

A fast stand-in for a team's day where a test needs exact receipts (an input the reader no longer
declares, a contract that never ran): each event is built by `Event.make` and stored at `path_of`, as
hz's writer stores it; the lease record that gave its token sits at `refs/hz/lease/<id>`, where a
server's (or a mirror's) repository keeps it.
"""

from __future__ import annotations

import hashlib
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path

from hz.gitstate.events import DraftPlaced, Event, TurnEnded, TurnStarted, path_of
from hz.gitstate.lease_record import LeaseRecord
from tests.compile.contracts import contract
from tests.gitstate import plumbing

SLOT = "2026-11-02T09:00:00Z"


def contract_id(n: int) -> str:
    return f"01KC{n:022d}"


def team_contract(flows: Path, name: str, n: int, *, title: str | None = None, **kwargs: object) -> str:
    """A team contract with `id:` (its receipts carry `hz-<id>`); returns that agent id."""
    text = contract(name, **kwargs).replace("kind: responsibility\n", f"kind: responsibility\nid: {contract_id(n)}\n")  # type: ignore[arg-type]
    if title is not None:
        text = text.replace(f"  title: {name}\n", f"  title: '{title}'\n")
    flows.mkdir(parents=True, exist_ok=True)
    (flows / f"{name}.prose.md").write_text(text, encoding="utf-8")
    return f"hz-{contract_id(n)}"


def sha(text: str) -> str:
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()


def ran(agent: str, turn: str, inputs: Mapping[str, str], *, token: int = 1, usd: float = 0.25) -> list[Event]:
    """A turn that drafted `state:reports/<turn>.md`: started, placed, finished with its input fingerprints."""
    key = f"{agent}@{SLOT.replace(':00Z', 'Z')}"
    common = {"turn": turn, "cause": "schedule", "keys": [key]}
    started = TurnStarted(**common, contract_version=1, contract_fp=sha("c"), token=token, role="owner")  # type: ignore[arg-type]
    draft_key = f"{agent}@v1@{SLOT.replace(':00Z', 'Z')}@state:reports/{turn}.md"
    placed = DraftPlaced(turn=turn, key=draft_key, asset=f"state:reports/{turn}.md", hash=sha(turn))
    fps = {name: sha(value) for name, value in inputs.items()}
    ended = TurnEnded(**common, disposition="drafted", cost_usd=usd, input_fps=fps)  # type: ignore[arg-type]
    envelope = {"id": agent, "ts": SLOT, "lease": agent, "token": token}
    return [
        Event.make("turn.started", key=key, data=started, **envelope),  # type: ignore[arg-type]
        Event.make("draft.placed", key=draft_key, data=placed, **envelope),  # type: ignore[arg-type]
        Event.make("turn.finished", key=key, data=ended, **envelope),  # type: ignore[arg-type]
    ]


def land(repo: Path, events: Sequence[Event], holders: Mapping[str, tuple[str, str]]) -> None:
    """The events in one commit on `refs/heads/hz/state`, each lease's record (holder, role) at token 1."""
    files = {path_of(event): event.line() for event in events}
    tip = plumbing.commit(repo, plumbing.tree(repo, plumbing.nested(files)))  # type: ignore[arg-type]
    subprocess.run(["git", "-C", str(repo), "update-ref", "refs/heads/hz/state", tip], check=True)
    for lease, (holder, role) in holders.items():
        record = LeaseRecord(lease=lease, holder=holder, role=role, token=1, slot=SLOT,  # type: ignore[arg-type]
                             acquired="2026-11-02T08:59:00Z", expires="2026-11-02T09:09:00Z")  # fmt: skip
        chain = plumbing.commit(repo, plumbing.tree(repo, {b"lease.json": record.line()}), message=b"lease\n")
        subprocess.run(["git", "-C", str(repo), "update-ref", f"refs/hz/lease/{lease}", chain], check=True)
