"""What the hook derives from `main`, kept between pushes, so a push that leaves `main` alone reads no contract.

Judging a push needs the contracts on `main` (names, owners, maintainers, publishes), its roster, its
auto-approve policies and how many versions of each contract it has. Reading them means pygit2, a YAML
parser and every contract file: most of what a push used to cost before any event was read. None of it
changes until `main` does, so the hook keeps it in one file of the bare repository, `hz/hook-main.json`
(a folder hz owns there, 0700; the file 0600, replaced by a rename, not fsynced: a lost file is a miss),
keyed by the ref and the id `main` has before the push, the file's format and hz's version. A push under
the same `main` rebuilds the contracts from that file; any other key, or a file that does not read, is a
miss: the contracts are read from `main` as before and the file is written anew. Counts of versions grow
as pushes ask for them (the walk is lazy), so the file is rewritten when a push proved more of them;
history beyond what it holds is still read from the repository, when an event needs it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hz import __version__
from hz.gitstate.lint_contracts import MAIN_REFS, MainContracts
from hz.gitstate.main_declared import Declared

if TYPE_CHECKING:
    import pygit2

    from hz.contract.policy import Policies
    from hz.gitstate.odb import Objects

FOLDER = "hz"
FILE = "hook-main.json"
FORMAT = 1  # raise it whenever what is kept, or what it means, changes
MAX_BYTES = 16 << 20  # a larger file is not read (and is replaced)


class MainCache:
    """The kept contracts of one bare repository's `main`, as the hook reads and writes them."""

    def __init__(self, git_dir: Path, objects: Objects) -> None:
        self.git_dir = git_dir
        self.path = git_dir / FOLDER / FILE
        self.objects = objects
        self._key: str | None = None
        self._kept: dict[str, Any] | None = None  # what the file held for this key (None: a miss)

    def contracts(self) -> MainContracts | None:
        """The contracts on `main` before this push (None: no main): from the file when it holds this main."""
        self._key = next((f"{ref} {oid}" for ref in MAIN_REFS if (oid := self.objects.resolve(ref))), None)
        if self._key is None:
            return None
        self._kept = self._load()
        if self._kept is not None:
            try:
                return _contracts(self._kept, self._source)
            except (KeyError, TypeError, ValueError, AttributeError):
                self._kept = None  # a file of another shape: read main as if there were none
        repo, tips = self._source()
        return MainContracts.at(repo, tips[0], strict=True) if tips else None

    def save(self, contracts: MainContracts | None) -> None:
        """Keep what `contracts` (of this main) know now, unless the file already says exactly that."""
        if contracts is None or self._key is None:
            return
        data = _kept(self._key, contracts)
        if data == self._kept:
            return
        from hz.errors import HzError
        from hz.fsio import private_dir

        try:
            private_dir(self.path.parent)
            _replace(self.path, json.dumps(data, sort_keys=True, separators=(",", ":")).encode())
        except (OSError, HzError):
            return  # a place the hook cannot write only costs the next push a read of main, never a refusal

    def _load(self) -> dict[str, Any] | None:
        try:
            with self.path.open("rb") as file:
                raw = file.read(MAX_BYTES + 1)
            data = json.loads(raw) if len(raw) <= MAX_BYTES else None
        except (OSError, ValueError, RecursionError):
            return None
        head = (FORMAT, __version__, self._key)
        return (
            data if isinstance(data, dict) and (data.get("format"), data.get("hz"), data.get("main")) == head else None
        )

    def _source(self) -> tuple[pygit2.Repository, tuple[Any, ...]]:
        """The repository (pygit2, opened now) and main's tip commit, for what the file does not hold."""
        from hz.gitstate.lint_contracts import main_tip
        from hz.gitstate.objects import open_repo

        repo = open_repo(self.git_dir)
        tip = main_tip(repo)
        return repo, (() if tip is None else (tip,))


def _replace(path: Path, data: bytes) -> None:
    """Write `path` whole or not at all (a 0600 temporary file renamed over it), without fsync: a file lost
    or cut short by a crash reads as a miss, and the push that waited for a disk would be every push after
    a change of main."""
    import os
    import tempfile

    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)  # 0600
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _kept(key: str, contracts: MainContracts) -> dict[str, Any]:
    counts = contracts.version_counts()
    proven, tried = counts.known() if counts is not None else ({}, {})
    return {
        "format": FORMAT,
        "hz": __version__,
        "main": key,
        "declared": {agent: _declared_json(d) for agent, d in sorted(contracts.declared.items())},
        "members": None if contracts.roster is None else sorted(contracts.roster.members),
        "policies": None if contracts.policies is None else _policies_json(contracts.policies),
        "proven": proven,
        "tried": tried,
    }


def _declared_json(declared: Declared) -> dict[str, Any]:
    return {
        "inputs": sorted(declared.inputs),
        "targets": dict(sorted(declared.targets.items())),
        "owner": declared.owner,
        "maintainers": sorted(declared.maintainers),
        "publishes": sorted(list(p) for p in declared.publishes),
        "idempotency": declared.idempotency,
    }


def _policies_json(policies: Policies) -> dict[str, Any]:
    listed = {
        pid: {
            "owner": p.owner,
            "action": p.action,
            "scope": p.scope,
            "expires": p.expires.isoformat(),
            "contracts": list(p.contracts),
        }
        for pid, p in sorted(policies.policies.items())
    }
    return {"problem": policies.problem, "policies": listed}


def _contracts(data: dict[str, Any], source: Any) -> MainContracts:
    """The contracts the file keeps (any field of the wrong shape raises, and the file counts as a miss)."""
    from hz.gitstate.main_counts import KeptCounts
    from hz.gitstate.main_roster import Roster

    declared = {str(agent): _declared_of(d) for agent, d in data["declared"].items()}
    members = data["members"]
    roster = None if members is None else Roster(frozenset(str(m) for m in members))
    policies = None if data["policies"] is None else _policies_of(data["policies"])
    counts = KeptCounts(_ints(data["proven"]), _ints(data["tried"]), source)
    return MainContracts.kept(declared, roster, policies, counts, source)


def _declared_of(d: dict[str, Any]) -> Declared:
    return Declared(
        frozenset(str(name) for name in d["inputs"]),
        {str(k): str(v) for k, v in d["targets"].items()},
        None if d["owner"] is None else str(d["owner"]),
        frozenset(str(m) for m in d["maintainers"]),
        frozenset((str(a), str(o), str(t), str(p)) for a, o, t, p in d["publishes"]),
        None if d["idempotency"] is None else str(d["idempotency"]),
    )


def _policies_of(d: dict[str, Any]) -> Policies:
    from datetime import datetime

    from hz.contract.policy import Policies, Policy

    listed = {
        str(pid): Policy(
            str(pid),
            str(p["owner"]),
            str(p["action"]),
            str(p["scope"]),
            datetime.fromisoformat(p["expires"]),
            tuple(str(c) for c in p["contracts"]),
        )
        for pid, p in d["policies"].items()
    }
    problem = d["problem"]
    return Policies(listed, None if problem is None else str(problem))


def _ints(d: dict[str, Any]) -> dict[str, int]:
    return {str(k): int(v) for k, v in d.items()}
