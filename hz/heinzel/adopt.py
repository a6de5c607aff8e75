"""Adopting a repository's contracts: each one becomes a Heinzelmännchen at v1, asleep. Idempotent.

For every contract of the repository's own layers (team `workflows/`, project `.heinzel/workflows/`)
that compiles: when no agent of that namespace and name exists, one is created with the file's text as
version 1, approved (the repository's review is the approval) and so asleep. When one exists and its
current version has the same intent fingerprint, nothing happens; when the file says something else,
the edit is proposed as the user's amendment (once: a pending amendment with that fingerprint counts).
Running it twice changes nothing.

A version is stored self-contained: the directory's `_defaults.yaml` is merged into the frontmatter,
so a turn that loads `v<n>.prose.md` alone sees what the repository meant.

The tick's forms take only team contracts (`hz.scope: team` with an `id:`), approved with no `hz approve`,
since review on main approves them (DESIGN.md, "Team operation"). `adopt_team_from_main` reads them
from the remote's main as the tick fetched it: a new one is created at its version there, an agent
whose contract main changed moves to main's version (`hz.heinzel.main_versions`), and one whose text
main changed with the fingerprint where it was takes that text at the same version (a schedule, an
owner: `hz.heinzel.main_text`). Team agents are found by their contract's `id:` first. Without a
fetched main, `adopt_team` reads the working tree and creates only the agents this home lacks: an edit
there is nobody's review, so a changed file of an existing agent waits for main. A tick never proposes
anything.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hz.heinzel.amendments import propose, record_main_version
from hz.heinzel.lifecycle import Origin, create
from hz.heinzel.rebind import free_name, ours
from hz.heinzel.repository import Here
from hz.heinzel.versions import compile_text
from hz.session.store import Store

if TYPE_CHECKING:
    from hz.contract.layers import ContractFile, Layer
    from hz.contract.load import Contract
    from hz.heinzel.main_versions import AtTip, MainVersion, Seen

LAYERS = ("team", "project")


@dataclass(frozen=True)
class Adopted:
    namespace: str
    name: str
    agent_id: str | None
    action: str  # "created" | "unchanged" | "amendment proposed" | "skipped: <why>"

    def as_dict(self) -> dict[str, Any]:
        return {"namespace": self.namespace, "name": self.name, "id": self.agent_id, "action": self.action}


def self_contained(text: str, defaults: Mapping[str, Any] | None) -> str:
    """The contract text with the directory defaults merged into its frontmatter (unchanged without)."""
    if not defaults:
        return text
    import io

    from ruamel.yaml import YAML

    from hz.contract import text as texts
    from hz.contract.load import apply_defaults
    from hz.contract.yamlload import YamlProblem, load_mapping

    split = texts.split_frontmatter(texts.normalize(text))
    if split is None:
        return text
    try:
        frontmatter = load_mapping(split.yaml)
    except YamlProblem:  # left as it is: compiling it fails the same way and says why
        return text
    merged = apply_defaults(dict(frontmatter), defaults)
    yaml = YAML(typ="safe", pure=True)
    yaml.default_flow_style = False
    yaml.sort_base_mapping_type_on_output = False  # type: ignore[assignment]
    out = io.StringIO()
    yaml.dump(_plain(merged), out)
    return f"---\n{out.getvalue()}---\n{split.body}"


def _plain(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


def adopt(
    store: Store,
    root: Path,
    *,
    now: datetime,
    handle: str | None,
    environ: Mapping[str, str],
    default_tz: str = "UTC",
) -> list[Adopted]:
    def one(text: str, file: ContractFile, layer: Layer) -> Adopted:
        return _adopt_one(store, text, file.display, layer.namespace, file.name, now, handle, default_tz, here)

    here = Here(root, environ)

    return _each_contract(root, environ, LAYERS, one)


def adopt_team(
    store: Store,
    root: Path,
    *,
    now: datetime,
    handle: str | None,
    environ: Mapping[str, str],
    default_tz: str = "UTC",
) -> list[Adopted]:
    """The team contracts of `root`'s `workflows/` that this home has no agent for yet, each adopted."""

    from hz.heinzel.main_text import by_contract_id

    def one(text: str, file: ContractFile, layer: Layer) -> Adopted:
        return _adopt_new_team(store, text, file.display, layer.namespace, now, handle, default_tz, here, known)

    here = Here(root, environ)
    known = by_contract_id(store, here, now=now)  # a contract renamed in a file is still its agent's

    return _each_contract(root, environ, ("team",), one)


def adopt_team_from_main(
    store: Store, root: Path, commit: str, *, now: datetime, handle: str | None, default_tz: str = "UTC"
) -> list[Adopted]:
    """Every team contract at `commit` of main: created at its version there, moved to that version, or
    given main's text at the same version when only unfingerprinted keys or wording changed
    (`hz.heinzel.main_text`). This repository's agent of a contract is found by its `id:` first."""
    from hz.heinzel.main_versions import contracts_at_tip
    from hz.session.derived import derivation

    here = Here(root)
    seen: Seen = {}  # each contract blob compiled once, for the tip, the history and the agent it makes
    tip = contracts_at_tip(root, commit, seen)
    if not tip:
        return []
    with derivation(store):  # a fresh home is derived from main alone: durable once, at the end
        return _from_main(store, root, commit, tip, seen, here, now, handle, default_tz)


def _from_main(
    store: Store,
    root: Path,
    commit: str,
    tip: dict[str, AtTip],
    seen: Seen,
    here: Here,
    now: datetime,
    handle: str | None,
    default_tz: str,
) -> list[Adopted]:
    from hz.heinzel.main_text import by_contract_id
    from hz.heinzel.main_versions import versions_on_main

    known = by_contract_id(store, here, now=now)
    rows = {cid: _team_row(store, known, found.contract, here, now) for cid, found in tip.items()}
    behind = {cid for cid, row in rows.items() if row is None or _behind(row, tip[cid].contract)}
    counted = versions_on_main(root, commit, lambda c: str(c.frontmatter.id) in behind, seen) if behind else {}
    adopted: list[Adopted] = []
    for cid, found in sorted(tip.items(), key=lambda item: item[1].label):
        renamed = _follow(store, known.get(cid), found.contract, here, now)
        if cid in counted:
            adopted.append(_adopt_main_version(store, counted[cid], rows[cid], now, handle, default_tz, here))
        else:
            adopted.append(_refresh(store, rows[cid], found, commit, now, default_tz))
        if renamed:
            adopted.append(Adopted("team", renamed, adopted[-1].agent_id, f"renamed from {known[cid].row['name']}"))
    return adopted


def _team_row(store: Store, known: Mapping[str, Any], contract: Contract, here: Here, now: datetime) -> Any:
    """This repository's agent of a team contract: by its `id:` (the team-wide identity), else by name."""
    found = known.get(str(contract.frontmatter.id)) if contract.frontmatter.id else None
    if found is not None:
        return store.index.agent(str(found.row["id"])) or found.row
    return ours(store, contract.name, "team", here, now=now)


def _follow(store: Store, known: Any, contract: Contract, here: Here, now: datetime) -> str | None:
    from hz.heinzel.main_text import follow_name

    return None if known is None else follow_name(store, known, contract, here, now=now)


def _refresh(store: Store, row: Any, found: Any, commit: str, now: datetime, tz: str) -> Adopted:
    from hz.heinzel.main_text import refresh

    contract = found.contract
    if contract.frontmatter.hz.scope != "team" or row is None:
        return Adopted("team", contract.name, None, "skipped: not a team contract with an id")
    done = refresh(store, row, found.text, contract, commit=commit, now=now, default_tz=tz)
    return Adopted("team", contract.name, row["id"], "text from main" if done else "unchanged")


def _adopt_main_version(
    store: Store, version: MainVersion, row: Any, now: datetime, handle: str | None, tz: str, here: Here
) -> Adopted:
    """A new agent at main's version (v1 of this home holds the same text, never approved: the numbers
    stay main's), or an agent whose contract main changed moved to main's version."""
    contract, namespace = version.contract, "team"
    if contract.frontmatter.hz.scope != "team":
        return Adopted(namespace, contract.name, None, "skipped: not a team contract with an id")
    if row is None:
        first, named = version.version == 1, free_name(store, contract.name, namespace, here)
        agent_id = create(
            store, version.text, label=version.label, namespace=namespace, handle=handle,
            origin=Origin("adopted", version.label, here.identity()), now=now, approve=first, default_tz=tz,
            name=named, compiled=version.contract,
        )  # fmt: skip
        row = None if first else store.index.agent(agent_id)  # at main's version already when it is v1
        if row is None:
            return Adopted(namespace, named, agent_id, "created")
    elif not _behind(row, contract):
        return Adopted(namespace, contract.name, row["id"], "unchanged")
    number = record_main_version(
        store, row, version.text, contract, version=version.version, commit=version.commit, now=now, default_tz=tz
    )
    return Adopted(namespace, contract.name, row["id"], f"v{number} from main")


def _behind(row: Any, contract: Contract) -> bool:
    """A live agent whose contract is not the one on main (a retired or unapproved one is left alone)."""
    return row["state"] not in ("retired", "proposed") and row["contract_fingerprint"] != contract.contract_fingerprint


def _each_contract(
    root: Path,
    environ: Mapping[str, str],
    kinds: tuple[str, ...],
    one: Callable[[str, ContractFile, Layer], Adopted],
) -> list[Adopted]:
    """`one` applied to the self-contained text of every contract in the layers of these kinds."""
    from hz.contract.defaults import load_defaults
    from hz.contract.layers import contract_files, discover_layers
    from hz.contract.project import read_contract
    from hz.diagnostic import Diagnostic

    results: list[Adopted] = []
    for layer in discover_layers(root, environ, cwd=root):
        if layer.kind not in kinds:
            continue
        defaults, _ = load_defaults(layer) if layer.kind == "team" else (None, [])
        for file in contract_files(layer):
            # by the repository's path rule, as compiling reads it: never through a link out of it
            read = read_contract(file)
            if isinstance(read, Diagnostic):  # `hz workflow validate` explains it; the other contracts go on
                results.append(Adopted(layer.namespace, file.name, None, f"skipped: {read.message}"))
                continue
            results.append(one(self_contained(read, defaults), file, layer))
    return results


def contract_text_at(root: Path, display: str, environ: Mapping[str, str] | None = None) -> str | None:
    """The self-contained text of the contract at `display` (relative to `root`), None when no layer has it."""
    import os

    found: list[str] = []

    def one(text: str, file: ContractFile, layer: Layer) -> Adopted:
        if file.display == display:
            found.append(text)
        return Adopted(layer.namespace, file.name, None, "read")

    _each_contract(root, os.environ if environ is None else environ, LAYERS, one)
    return found[0] if found else None


def _adopt_new_team(
    store: Store,
    text: str,
    shown: str,
    namespace: str,
    now: datetime,
    handle: str | None,
    tz: str,
    here: Here,
    known: Mapping[str, Any],
) -> Adopted:
    from hz.heinzel.versions import ContractInvalid

    try:
        contract = compile_text(text, label=shown, namespace=namespace)
    except ContractInvalid:
        return Adopted(namespace, shown, None, "skipped: does not compile (hz workflow validate)")
    frontmatter = contract.frontmatter
    if frontmatter.hz.scope != "team" or not frontmatter.id:  # without an id there is no lease to share
        return Adopted(namespace, contract.name, None, "skipped: not a team contract with an id")
    row = _team_row(store, known, contract, here, now)
    if row is not None:
        return Adopted(namespace, contract.name, row["id"], "unchanged")
    named = free_name(store, contract.name, namespace, here)  # another repository's agent may have the name
    agent_id = create(
        store, text, label=shown, namespace=namespace, handle=handle, origin=Origin("adopted", shown, here.identity()),
        now=now, approve=True, default_tz=tz, name=named,
    )  # fmt: skip
    return Adopted(namespace, named, agent_id, "created")


def _adopt_one(
    store: Store,
    text: str,
    shown: str,
    namespace: str,
    name: str,
    now: datetime,
    handle: str | None,
    tz: str,
    here: Here,
) -> Adopted:
    from hz.heinzel.versions import ContractInvalid

    try:
        contract = compile_text(text, label=shown, namespace=namespace)
    except ContractInvalid:
        return Adopted(namespace, name, None, "skipped: does not compile (hz workflow validate)")
    if contract.name != name:  # HZC010: the file and its `name` must agree, or two files could claim one agent
        return Adopted(namespace, name, None, "skipped: its name differs from the file name (hz workflow validate)")
    row = ours(store, contract.name, namespace, here, now=now)
    if row is None:
        named = free_name(store, contract.name, namespace, here)
        agent_id = create(
            store, text, label=shown, namespace=namespace, handle=handle,
            origin=Origin("adopted", shown, here.identity()), now=now, approve=True, default_tz=tz, name=named,
        )  # fmt: skip
        return Adopted(namespace, named, agent_id, "created")
    if row["state"] in ("retired", "proposed") or row["contract_fingerprint"] == contract.contract_fingerprint:
        return Adopted(namespace, contract.name, row["id"], "unchanged")
    waiting = store.index.amendments(row["id"])
    if any(a["status"] == "pending" and a["contract_fingerprint"] == contract.contract_fingerprint for a in waiting):
        return Adopted(namespace, contract.name, row["id"], "unchanged")
    with store.writer(row["id"], now=now) as writer:
        propose(
            lambda kind, data: writer.append(kind, data, now=now),
            store.agent_dir(row["id"]),
            base_version=row["contract_version"],
            namespace=namespace,
            text=text,
            by="user",
            sentence=f"the repository's {shown} changed",
        )
    return Adopted(namespace, contract.name, row["id"], "amendment proposed")
