"""Creating a Heinzelmännchen and the user's actions on it: approve, retire, unretire, rename, pause.

Each action checks the state the index shows (`hz.heinzel.states`), then appends one event under the
agent's lock; the index follows from the event. `now` and the time zone are passed in.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

from hz.errors import HzError
from hz.heinzel.identity import BadName, check_name, check_namespace, new_agent_id
from hz.heinzel.states import require
from hz.heinzel.versions import compile_text, facts, load_version, store_version
from hz.session.index import Row
from hz.session.store import Store

if TYPE_CHECKING:
    from hz.contract.load import Contract
    from hz.schedule import Cron


class UnknownHeinzel(HzError):
    """No Heinzelmännchen by that name or id."""


@dataclass(frozen=True)
class Origin:
    """Where a new agent comes from: `file` (hz heinzel new --from), `adopted` (a repository's contract)."""

    kind: str
    source: str | None = None
    repository: Mapping[str, str] | None = None  # the identity of the repository adopted in (hz.heinzel.repository)


def resolve(store: Store, name_or_id: str) -> Row:
    """An agent by id, by `namespace:name`, or by a name that is unique across namespaces."""
    index = store.index
    namespace, _, name = name_or_id.rpartition(":")
    if namespace:
        row = index.agent(name, namespace)
        rows = [row] if row else []
    else:
        rows = [r for r in [index.agent(name_or_id)] if r] if name.startswith("hz-") else index.named(name)
    if not rows:
        spine = index.spine_state(name_or_id) if name_or_id.startswith("hz-") else None
        if spine is not None and spine["problem"]:
            raise UnknownHeinzel(
                f"{name_or_id}: its session breaks at {spine['problem']}",
                hint="restore that line of session.jsonl from a backup, then hz heinzel reindex",
            )
        raise UnknownHeinzel(f"no Heinzelmännchen named {name_or_id}", hint="hz heinzel list shows them all")
    if len(rows) > 1:
        choices = ", ".join(f"{r['namespace']}:{r['name']}" for r in rows)
        raise UnknownHeinzel(f"{name_or_id} names several Heinzelmännchen: {choices}", hint="qualify it: me:NAME")
    return rows[0]


def next_due(contract: Contract, now: datetime, default_tz: str) -> str | None:
    """The first schedule slot after `now` (ISO UTC), or None for a contract without a schedule."""
    from hz.schedule import crons_from

    return _next_due(crons_from(contract.frontmatter.hz.schedule, default_tz), now)


@functools.lru_cache(maxsize=256)
def _next_due(crons: tuple[Cron, ...], now: datetime) -> str | None:
    """Cached: an adoption of many contracts asks it for the same few schedules at one moment."""
    from hz.schedule import next_slot

    slot = next_slot(crons, now)
    return None if slot is None else slot.strftime("%Y-%m-%dT%H:%M:%SZ")


def still_due_since(row: Any, now: datetime) -> datetime:
    """Where a version adopted from main looks for its next slot after: just before the slot the agent still
    has due, when that is earlier than now. Adopting what main says must not drop a due slot nobody ran
    here yet (found: a change of owner merged at 09:05 moved the due 09:00 slot to 10:00, and a new version
    adopted by the 09:00 tick itself skipped 09:00); a new schedule still decides which slot comes next."""
    try:
        due = row["next_due"]
    except (KeyError, IndexError):
        due = None
    if not due:
        return now
    before = datetime.fromisoformat(str(due).replace("Z", "+00:00")).astimezone(UTC) - timedelta(seconds=1)
    return min(before, now)


def create(
    store: Store,
    text: str,
    *,
    label: str,
    namespace: str,
    handle: str | None,
    origin: Origin,
    now: datetime,
    name: str | None = None,
    approve: bool = False,
    default_tz: str = "UTC",
    compiled: Contract | None = None,
) -> str:
    """Compile `text` as version 1 of a new agent (proposed, or asleep when `approve`); return its id.
    `compiled`: `text` compiled already, with this label and namespace (adoption compiled main's blob)."""
    check_namespace(namespace)
    contract = compiled or compile_text(text, label=label, namespace=namespace)
    agent_name = check_name(name or contract.name)
    taken = store.index.agent(agent_name, namespace)
    if taken is not None:
        raise BadName(
            f"{namespace}:{agent_name} exists already ({taken['id']}, {taken['state']})",
            hint="pick another name with --name, or rename the other one",
        )
    agent_id = new_agent_id()
    directory = store.create(agent_id)
    store_version(directory, 1, text, contract, sync=store.sync)
    created: dict[str, Any] = {"agent_id": agent_id, "name": agent_name, "namespace": namespace, "origin": origin.kind}
    if handle:
        created["handle"] = handle
    if origin.source:
        created["source"] = origin.source
    if origin.repository:
        created["repository"] = dict(origin.repository)
    with store.writer(agent_id, now=now) as writer:
        writer.append("heinzel.created", created, now=now)
        writer.append("contract.proposed", {"name": contract.name, **facts(contract)}, now=now)
        if approve:
            due = next_due(contract, now, default_tz)
            writer.append("contract.approved", {"version": 1, "by": handle, "next_due": due}, now=now)
    return agent_id


def approve_agent(store: Store, row: Row, *, by: str | None, now: datetime, default_tz: str = "UTC") -> None:
    """The user approves version 1: only now may the agent wake on its own."""
    require("approve", row["name"], row["state"])
    contract = load_version(store.agent_dir(row["id"]), 1, row["namespace"])
    with store.writer(row["id"], now=now) as writer:
        due = next_due(contract, now, default_tz)
        writer.append("contract.approved", {"version": 1, "by": by, "next_due": due}, now=now)


def _current_due(store: Store, row: Row, now: datetime, default_tz: str) -> str | None:
    version = row["contract_version"] or 1
    return next_due(load_version(store.agent_dir(row["id"]), version, row["namespace"]), now, default_tz)


def retire(store: Store, row: Row, *, now: datetime) -> None:
    require("retire", row["name"], row["state"])
    with store.writer(row["id"], now=now) as writer:
        writer.append("heinzel.retired", {}, now=now)


def unretire(store: Store, row: Row, *, now: datetime, default_tz: str = "UTC") -> None:
    require("unretire", row["name"], row["state"])
    data = {"next_due": _current_due(store, row, now, default_tz)} if row["approved"] else {}
    with store.writer(row["id"], now=now) as writer:
        writer.append("heinzel.unretired", data, now=now)


def pause(store: Store, row: Row, *, now: datetime) -> None:
    require("pause", row["name"], row["state"])
    with store.writer(row["id"], now=now) as writer:
        writer.append("heinzel.paused", {"reason": "user"}, now=now)


def unpause(store: Store, row: Row, *, now: datetime, default_tz: str = "UTC") -> None:
    require("unpause", row["name"], row["state"])
    with store.writer(row["id"], now=now) as writer:
        writer.append("heinzel.unpaused", {"next_due": _current_due(store, row, now, default_tz)}, now=now)


def rename(store: Store, row: Row, new_name: str, *, now: datetime) -> None:
    require("rename", row["name"], row["state"])
    check_name(new_name)
    if new_name == row["name"]:
        return
    taken = store.index.agent(new_name, row["namespace"])
    if taken is not None:
        raise BadName(f"{row['namespace']}:{new_name} exists already ({taken['id']})")
    with store.writer(row["id"], now=now) as writer:
        writer.append("heinzel.renamed", {"name": new_name, "previous": row["name"]}, now=now)
