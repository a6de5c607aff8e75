"""Placing an adopted agent in the repository a tick or an adoption runs in, binding it when it must be.

`place` answers whether the agent is this repository's (`hz.heinzel.repository.belongs`), and appends a
`heinzel.bound` line in two cases: an agent adopted before identities were recorded, found in the
repository it was adopted in (a file at its recorded path whose contract compiles to a fingerprint the
agent has held: a repository holding another text at that path never binds it); and an agent adopted
before its repository's first commit, found there after it. A spine busy in another process is left
for the next tick (the agent is not this tick's then).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from hz.errors import HzError, LockTimeout
from hz.heinzel.repository import Here, belongs, needs_root
from hz.session.store import Store


def place(store: Store, row: Mapping[str, Any], here: Here | None, *, now: datetime) -> bool:
    """Whether the agent of `row` is this repository's; binds it when it is and was not yet bound."""
    verdict = belongs(row, here)
    if verdict is True:
        if here is not None and needs_root(row, here):
            bind(store, str(row["id"]), here, now=now)  # it runs here either way
        return True
    if verdict is False or here is None or not held_here(store, row, here):
        return False
    return bind(store, str(row["id"]), here, now=now)


def bind(store: Store, agent_id: str, here: Here, *, now: datetime) -> bool:
    """Record `here` as the agent's repository; False when its spine is busy (tried again next tick)."""
    try:
        with store.writer(agent_id, timeout=0.2, now=now) as writer:
            writer.append("heinzel.bound", here.identity(), now=now)
    except LockTimeout:
        return False
    return True


def held_here(store: Store, row: Mapping[str, Any], here: Here) -> bool:
    """An old agent's contract is at its recorded path here, as one of the texts it has held."""
    source = str(row.get("source") or "")
    path = here.root / source
    if not source or not path.is_file():
        return False
    fingerprint = fingerprint_at(here, source, str(row["namespace"]))
    if fingerprint is None:
        return False
    agent = str(row["id"])
    known = {v["contract_fingerprint"] for v in store.index.versions(agent)}
    known |= {a["contract_fingerprint"] for a in store.index.amendments(agent)}
    return fingerprint in known


def fingerprint_at(here: Here, source: str, namespace: str) -> str | None:
    """The contract fingerprint of the file at `source` (directory defaults merged as adoption does)."""
    from hz.heinzel.adopt import contract_text_at
    from hz.heinzel.versions import compile_text

    text = contract_text_at(here.root, source, here.environ)
    if text is None:
        return None
    try:
        return compile_text(text, label=source, namespace=namespace).contract_fingerprint
    except HzError:  # a file that no longer compiles holds none of the agent's texts
        return None


def ours(store: Store, contract_name: str, namespace: str, here: Here, *, now: datetime) -> dict[str, Any] | None:
    """This repository's agent of the contract `contract_name` in `namespace`, bound on the way if old.

    Adoption also records a remote that changed (a repository renamed or moved on its forge): the root
    commit still names the repository, and lists then show where it lives now. Ticks never look."""
    for row in store.index.agents_of_contract(contract_name, namespace):
        if place(store, row, here, now=now):
            if row.get("repo_root") and here.remote and row.get("repo_remote") != here.remote:
                bind(store, str(row["id"]), here, now=now)
            return store.index.agent(str(row["id"])) or row
    return None


def free_name(store: Store, name: str, namespace: str, here: Here) -> str:
    """`name`, or when another repository's agent has it, `name-<folder>` or `name-<root commit>`."""
    from hz.heinzel.identity import NAME

    if store.index.agent(name, namespace) is None:
        return name
    folder = "-".join(part for part in _slug(here.root.name).split("-") if part)
    tails = [folder, (here.commit or "")[:7], *(f"{folder or 'repo'}-{n}" for n in range(2, 100))]
    for tail in tails:
        candidate = f"{name[: 63 - len(tail)]}-{tail}" if tail else ""
        if candidate and NAME.match(candidate) and store.index.agent(candidate, namespace) is None:
            return candidate
    return name  # create() says the name is taken, with its hint


def _slug(text: str) -> str:
    import re

    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
