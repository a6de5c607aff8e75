"""The daily discovery pass: sources a playbook hint turns up that an agent's contract does not read.

Once per UTC day per repository (`hz.tick.discover_day`), inside the tick: for each active agent of this
repository that a hint is for, the files the hint's glob names (`hz.tick.repoglob`) minus the ones its
contract already reads, minus the ones its session already knows (the key `<id>@discovered:<source
fingerprint>` is in the index, whatever became of that turn). At most `MAX_PER_AGENT` sources per agent
and day, in hint order then path order; the rest wait for the next day's pass. Each one becomes a
`discovered` cause, so the tick wakes the agent once for all of them.

The source's words (its reference, the hint's name and `why`) never reach the spine: they are kept in a
small file per source in the agent's folder (`discovered/<fingerprint>.json`, 0600), which the turn reads
back by its keys (`sources_for`), so a resumed turn sees what the first attempt saw.

The day is marked before anyone is woken: an agent that is busy, deferred or fails keeps its sources
unknown to its session, and the next day's pass finds them again. So does an agent with a question the
user has not answered yet (of any turn): questions never stack up.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from hz.canonical import fingerprint
from hz.contract.playbook import Hint
from hz.errors import HzError
from hz.fsio import atomic_write, private_dir, read_own
from hz.registry import SOURCE_SCHEMES
from hz.session.store import Store
from hz.tick.repoglob import matches, matching_files
from hz.turn.causes import Cause, discovered_key
from hz.turn.discovered import DETAILS, DETAILS_LIMIT
from hz.turn.discovered import file_name as _file_name
from hz.turn.discovered import sources_for as sources_for  # read back by the turn (hz.turn.discovered)
from hz.turn.plan import Plan

MAX_PER_AGENT = 5
_COLUMNS = ("id", "name", "namespace", "state", "origin", "source", "contract_name", "contract_version",
            "pending_question")  # fmt: skip
_INACTIVE = frozenset({"proposed", "paused", "retired"})  # asleep, awake and waiting agents are active


@dataclass
class Discovery:
    causes: dict[str, list[Cause]] = field(default_factory=dict)  # agent id -> its new discovered causes
    errors: list[str] = field(default_factory=list)  # the playbook's diagnostics, one line each


def discovery_pass(store: Store, root: Path, now: datetime, *, default_tz: str = "UTC") -> Discovery:
    from hz.contract.playbook import load_playbook
    from hz.tick.discover_day import mark_done

    mark_done(root, store.root, now)
    hints, problems = load_playbook(root)
    found = Discovery(errors=[f"{d.path}:{d.line}:{d.column}  {d.code}  {d.loc}: {d.message}" for d in problems])
    if not hints:
        return found
    listings: dict[str, list[str]] = {}
    wanted = _named_targets(hints)
    for row in store.index.agents(columns=_COLUMNS):
        if row["state"] in _INACTIVE or (wanted is not None and _contract_name(row) not in wanted):
            continue
        if row["pending_question"]:  # one question at a time: new sources wait until the user answered
            continue
        sources = _new_sources(store, row, hints, root, listings, default_tz)
        if sources:
            agent_id = str(row["id"])
            found.causes[agent_id] = [_cause(store, agent_id, source, now) for source in sources]
    return found


def _named_targets(hints: Sequence[Hint]) -> set[str] | None:
    """The contract names the hints are for, when only names count (no tags, no hint for everyone).

    Then an agent of another contract is passed over without loading its contract."""
    names: set[str] = set()
    for hint in hints:
        if hint.targets is None or any(t.startswith("tag:") for t in hint.targets):
            return None
        names.update(hint.targets)
    return names


def _contract_name(row: Mapping[str, Any]) -> str:
    return str(row.get("contract_name") or row["name"])


@dataclass(frozen=True)
class Source:
    ref: str  # `file:<path>`
    hint: str
    why: str

    @property
    def fingerprint(self) -> str:
        return fingerprint(self.ref)


def _new_sources(
    store: Store, row: Mapping[str, Any], hints: Sequence[Hint], root: Path, listings: dict[str, list[str]], tz: str
) -> list[Source]:
    """Up to `MAX_PER_AGENT` sources the hints turn up for this agent that it neither reads nor knows."""
    plan = _plan(store, row, root, tz)
    if plan is None:
        return []
    agent_id, reads = plan.agent_id, named_files(plan.contract, root)
    picked: dict[str, Source] = {}
    for hint in (h for h in hints if _offered(h, plan)):
        if hint.pattern not in listings:
            listings[hint.pattern] = matching_files(root, hint.pattern)
        for path in listings[hint.pattern]:
            source = Source(f"{hint.scheme}:{path}", hint.name, hint.why)
            if source.ref in picked or is_named(path, reads):
                continue
            if store.index.key_kind(agent_id, discovered_key(agent_id, source.fingerprint)) is None:
                picked[source.ref] = source
            if len(picked) >= MAX_PER_AGENT:
                return list(picked.values())
    return list(picked.values())


def _plan(store: Store, row: Mapping[str, Any], root: Path, tz: str) -> Plan | None:
    from hz.tick.candidates import belongs_here
    from hz.turn.agents import load_plan

    if not row.get("contract_version") or not belongs_here(row, root):
        return None
    try:
        return load_plan(store.agent_dir(str(row["id"])), row, int(row["contract_version"]), root=root, default_tz=tz)
    except HzError:
        return None  # the agent's own turns say why its contract does not load


def _offered(hint: Hint, plan: Plan) -> bool:
    """Whether the hint is for this contract, and names a source the contract's scope may read."""
    contract = plan.contract
    if not hint.applies(contract.name, tuple(contract.frontmatter.hz.tags)):
        return False
    # a team contract cannot read a personal source (HZC017): proposing one would be noise
    return not (plan.scope == "team" and SOURCE_SCHEMES[hint.scheme].personal)


def named_files(contract: Any, root: Path) -> list[str]:
    """The `file:` paths and globs a contract reads, relative to the repository root."""
    base = root.resolve()
    named: list[str] = []
    for spec in contract.frontmatter.hz.inputs.values():
        for uri in spec.source:
            if not str(uri).startswith("file:"):
                continue
            target = str(uri)[len("file:") :].strip()
            if target.startswith("/"):
                try:
                    target = Path(target).relative_to(base).as_posix()
                except ValueError:
                    continue  # outside the root: it names nothing discovery could find
            named.append(target)
    return named


def is_named(path: str, named: Iterable[str]) -> bool:
    return any(matches(glob, path) for glob in named)


def _cause(store: Store, agent_id: str, source: Source, now: datetime) -> Cause:
    key = discovered_key(agent_id, source.fingerprint)
    folder = private_dir(store.agent_dir(agent_id) / DETAILS)
    record = json.dumps({"source": source.ref, "hint": source.hint, "why": source.why}, sort_keys=True)
    path = folder / _file_name(source.fingerprint)
    same = read_own(path, DETAILS_LIMIT) == record.encode()  # offered before, not taken up yet (busy, deferred)
    if not same:
        atomic_write(path, record)
    return Cause("discovered", key, now, {"source": source.ref})
