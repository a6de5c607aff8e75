"""Amendments: a proposed new text of the contract, by the agent or by the user, approved into v n+1.

The rule that keeps an agent from granting itself permissions lives here, in code: an amendment the
agent proposes that widens the frontmatter (`hz.heinzel.widening`) is recorded and refused at once with
HZC050; the same text proposed by the user is an ordinary pending amendment. `hz approve` turns a
pending amendment into the next version. A team contract's versions come from main instead
(`record_main_version`): the review there is the approval. The proposed text is kept in
`<id>/contract/amendments/<amendment id>.prose.md`; the spine holds only its fingerprints.

`propose(...)` takes an `append(kind, data)` callable so that it works both under the store's writer
(the user's commands) and inside a running turn that already holds the lock (`hz.heinzel.turns`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from hz.diagnostic import Diagnostic
from hz.errors import HzError
from hz.fsio import atomic_write
from hz.heinzel.lifecycle import next_due, still_due_since
from hz.heinzel.states import require
from hz.heinzel.versions import DAMAGED_COPY, amendment_path, compile_text, facts, load_version, store_version
from hz.heinzel.widening import widened
from hz.session.index import Row
from hz.session.store import Store
from hz.textfile import read_text_file

Append = Callable[[str, dict[str, Any]], object]


@dataclass(frozen=True)
class Proposal:
    amendment_id: str
    widens: tuple[str, ...]
    refusal: Diagnostic | None  # HZC050 when the agent proposed a widening

    @property
    def refused(self) -> bool:
        return self.refusal is not None


def new_amendment_id() -> str:
    from ulid import ULID

    return f"am-{ULID()}"


def propose(
    append: Append,
    agent_dir: Path,
    *,
    base_version: int,
    namespace: str,
    text: str,
    by: str,
    sentence: str | None = None,
    amendment_id: str | None = None,
    review: Callable[[], str | None] | None = None,
) -> Proposal:
    """Compile `text`, compare it with `base_version`, record the proposal (and a refusal, if due).

    `review` places a proposal that is not refused where the team reviews it (a draft branch, whose
    name it returns; hz.turn.amend): only after the widening check, so a refused one never reaches it."""
    amendment_id = amendment_id or new_amendment_id()
    path = amendment_path(agent_dir, amendment_id)
    new = compile_text(text, label=str(path), namespace=namespace)
    old = load_version(agent_dir, base_version, namespace)
    widens = tuple(widened(old.frontmatter, new.frontmatter))
    refused = by == "agent" and bool(widens)
    atomic_write(path, text)
    place = review() if review is not None and not refused else None
    data: dict[str, Any] = {
        "amendment_id": amendment_id,
        "by": by,
        "base_version": base_version,
        "contract_fingerprint": new.contract_fingerprint,
        "source_fingerprint": new.source_fingerprint,
        "widens": list(widens),
    }
    if sentence:
        data["sentence"] = sentence
    if place:
        data["place"] = place
    append("amendment.proposed", data)
    if not refused:
        return Proposal(amendment_id, widens, None)
    append("amendment.refused", {"amendment_id": amendment_id, "code": "HZC050", "widens": list(widens)})
    line, column = new.locate_key(tuple(widens[0].split(".")))
    refusal = Diagnostic(
        str(path),
        line,
        column,
        "HZC050",
        "error",
        widens[0],
        f"a Heinzelmännchen may not widen its own contract ({', '.join(widens)}); the amendment is refused",
        "only you can widen it: propose the same text yourself (hz heinzel amend NAME --from FILE)",
    )
    return Proposal(amendment_id, widens, refusal)


def propose_by_user(
    store: Store,
    row: Row,
    text: str,
    *,
    now: datetime,
    sentence: str | None = None,
    review: Callable[[], str | None] | None = None,
) -> Proposal:
    """A person's amendment (`text` self-contained); `review` puts a team contract's on its review branch."""
    require("amend", row["name"], row["state"])
    with store.writer(row["id"], now=now) as writer:
        return propose(
            lambda kind, data: writer.append(kind, data, now=now),
            store.agent_dir(row["id"]),
            base_version=row["contract_version"],
            namespace=row["namespace"],
            text=text,
            by="user",
            sentence=sentence,
            review=review,
        )


def pending(store: Store, row: Row, amendment_id: str) -> Row:
    for amendment in store.index.amendments(row["id"]):
        if amendment["amendment_id"] == amendment_id:
            if amendment["status"] != "pending":
                raise HzError(f"amendment {amendment_id} of {row['name']} is {amendment['status']}, not pending")
            return amendment
    raise HzError(f"{row['name']} has no amendment {amendment_id}", hint=f"hz heinzel show {row['name']}")


def approve(
    store: Store, row: Row, amendment_id: str, *, by: str | None, now: datetime, default_tz: str = "UTC"
) -> int:
    """Make a pending amendment the next version; return the new version number.

    Not an amendment of a team contract on its review branch (an agent's, or a person's made where the
    repository keeps team state): those are approved on main, by the review of a pull request, and every
    member's tick adopts the merged version (`hz.heinzel.main_versions`). Approved here, one member's
    agent would run a version no one else has."""
    proposal = pending(store, row, amendment_id)
    reviewed = proposal["by_whom"] == "agent" or _placed(store, row, amendment_id)
    team_id = _team_contract_id(store, row) if reviewed else None
    if team_id is not None:
        path = amendment_path(store.agent_dir(row["id"]), amendment_id)
        raise HzError(
            f"{amendment_id} amends the team contract {row['name']}, and a team contract is approved on main",
            hint=f"review its pull request (branch hz/draft/{team_id}/contract), or propose its text ({path}) "
            "in one yourself; once merged, every member's tick adopts it",
        )
    if proposal["base_version"] != row["contract_version"]:
        raise HzError(
            f"amendment {amendment_id} was written against v{proposal['base_version']}, "
            f"and {row['name']} is at v{row['contract_version']} now",
            hint="decline it and propose the change again on the current version",
        )
    directory = store.agent_dir(row["id"])
    path = amendment_path(directory, amendment_id)
    text = read_text_file(path, hint=DAMAGED_COPY)
    contract = compile_text(text, label=str(path), namespace=row["namespace"])
    version = int(row["contract_version"]) + 1
    store_version(directory, version, text, contract)
    data = {"version": version, "amendment_id": amendment_id, "by": by, **facts(contract)}
    data["next_due"] = next_due(contract, now, default_tz)
    with store.writer(row["id"], now=now) as writer:
        writer.append("contract.amended", data, now=now)
    return version


def record_main_version(
    store: Store, row: Row, text: str, contract: Any, *, version: int, commit: str, now: datetime, default_tz: str
) -> int:
    """A team contract's version as merged on main becomes this agent's version, with no `hz approve`:
    review on main approved it. Numbered as on main (`hz.heinzel.main_versions`), or next after the
    agent's own when this home went past that number (an earlier `hz approve` of a local amendment).
    The amendment id names the commit, so where a version came from stays readable in the spine."""
    number = max(version, int(row["contract_version"]) + 1)
    store_version(store.agent_dir(row["id"]), number, text, contract, sync=store.sync)
    data: dict[str, Any] = {"version": number, "amendment_id": f"main:{commit}", **facts(contract)}
    data["next_due"] = next_due(contract, still_due_since(row, now), default_tz)
    waiting = [a["amendment_id"] for a in store.index.amendments(row["id"]) if a["status"] == "pending"]
    with store.writer(row["id"], now=now) as writer:
        writer.append("contract.amended", data, now=now)
        for amendment_id in waiting:  # written against an older version, they can never be approved now
            writer.append("amendment.declined", {"amendment_id": amendment_id}, now=now)
    return number


def _placed(store: Store, row: Row, amendment_id: str) -> bool:
    """Whether the amendment went on a review branch (a team contract's, under team state): main decides."""
    return any(
        e.kind == "amendment.proposed" and e.data.get("amendment_id") == amendment_id and e.data.get("place")
        for e in store.read(row["id"]).events
    )


def _team_contract_id(store: Store, row: Row) -> str | None:
    """The id of the agent's contract when it is a team contract with one (the team shares it on main)."""
    frontmatter = load_version(store.agent_dir(row["id"]), int(row["contract_version"]), row["namespace"]).frontmatter
    return str(frontmatter.id) if frontmatter.hz.scope == "team" and frontmatter.id else None


def decline(store: Store, row: Row, amendment_id: str, *, now: datetime) -> None:
    pending(store, row, amendment_id)
    with store.writer(row["id"], now=now) as writer:
        writer.append("amendment.declined", {"amendment_id": amendment_id}, now=now)
