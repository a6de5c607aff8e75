"""Names on `hz/state` checked against the contracts on `main`: the inputs, outputs and targets they declare.

Shapes alone (hz.gitstate.shapes) cannot tell `weekly_prs` from `priya_asked_for_risks`: both are input
names. The contracts on `main` can. A team contract's receipts use the id `hz-<contract id>`; for such an
event every input name (`input_fps`, `moved`, an `<input>:<hash>` key), every output name (a `stale:`
key) and every asset (a draft key, `asset`) must be one its contract declares, the asset being exactly a
target with its `{slot…}` placeholders filled for the draft's slot.

A receipt is judged by what `main` declared when it was written, which may not be what `main` says
now: a slot drafted under the old target, an input renamed, a contract retired or re-identified while
a member's outbox still held its receipts, and every past receipt a local lint of the whole branch
reads. So a name the tip of `main` does not declare is looked up in the earlier versions of the
contract on `main`'s first-parent history (read only then, once, for at most MAX_HISTORY commits): one
version that declares every name of the event lets it pass. Review on `main` approved each of those
versions, so this admits no name the team never reviewed. Leases are not judged by history: who may
begin a hold is what the contract on the tip says (`holder_problem`).

Where there is no `main` (a remote that only carries `hz/state`, as in hz's own tests), there is
nothing to compare with and only the shapes hold. An event whose id no contract on `main` names is
refused by the hook (a new receipt is always for a live contract) but only skipped by a local
`hz state lint`, which reads history: a contract retired since left receipts that were fine when written.

The same contracts say who may hold a lease (`role_problem`): role `owner` is the contract's owner's,
`delegate` its maintainers', `actions` an Actions run's. The hook checks it for every lease commit that
begins a hold or changes its role; `hz lease acquire` checks it before pushing.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

from hz.gitstate.main_declared import Declared
from hz.gitstate.main_declared import blobs_under as _blobs_under
from hz.gitstate.main_declared import contract_texts as _contract_texts
from hz.gitstate.main_declared import declared as _declared
from hz.gitstate.main_declared import defaults as _defaults
from hz.gitstate.main_declared import folder as _folder
from hz.gitstate.main_declared import policies as _policies
from hz.gitstate.odb import Objects
from hz.gitstate.shapes import occasion, slot_time

if TYPE_CHECKING:
    from datetime import datetime

    import pygit2

    from hz.contract.policy import Policies
    from hz.gitstate.event_shapes import EventView as Event
    from hz.gitstate.main_counts import Counts
    from hz.gitstate.main_roster import Roster
    from hz.gitstate.odb import Repo
    from hz.gitstate.remote import TeamRemote

MAIN_REFS = ("refs/heads/main", "refs/heads/master")
UNKNOWN_HANDLE = "@unknown"  # who rejected, when the roster lists nobody for it (hz.review.approval_roster)
MAX_HISTORY = 10_000
"""How many of `main`'s first-parent commits the earlier versions of contracts are read from: years of
a busy repository, read in about a second (each distinct `workflows/` tree and contract blob once)."""


def role_problem(declared: Declared, holder: str, role: str) -> str | None:
    """Why the contract on main does not give `holder` the lease role `role` (None: it does).
    Roles belong to the handle, on every machine of it (hz.gitstate.identity.Identity.role_for)."""
    from hz.gitstate.identity import handle_of

    handle = handle_of(holder)
    if role == "actions":
        return None if holder.startswith("actions:") else f"role actions is an Actions run's, not {handle}'s"
    if holder.startswith("actions:"):
        return f"an Actions run holds a lease as actions, not as {role}"
    if role == "owner" and handle != declared.owner:
        owner = declared.owner or "nobody a handle can name"
        return f"role owner is the contract's owner's ({owner}), not {handle}'s"
    if role == "delegate" and handle not in declared.maintainers:
        names = ", ".join(sorted(declared.maintainers)) or "none"
        return f"role delegate is for the contract's maintainers ({names}), not {handle}"
    return None


class MainContracts:
    """The team contracts on `main`, by agent id (`hz-<contract id>`), and lazily their earlier versions."""

    def __init__(
        self,
        declared: Mapping[str, Declared],
        *,
        strict: bool,
        earlier: Callable[[], Mapping[str, list[Declared]]] | None = None,
        roster: Roster | None = None,
        policies: Policies | None = None,
        tips: tuple[pygit2.Repository, tuple[Any, ...]] | None = None,
        counts: Counts | None = None,
    ) -> None:
        self.declared = declared
        self.strict = strict  # the hook: an id no contract names is refused
        self.roster = roster  # None: no roster was read (no member then)
        self.policies = policies  # policies/auto-approve.toml on main (None: none read, so none grants)
        self._earlier = earlier  # every version on main's history, read the first time a name needs it
        self._versions: Mapping[str, list[Declared]] | None = None
        self._tips = tips  # the repository and the tips of main read, for the count of versions
        self._counts: Counts | None = counts  # given: what a cache kept of main's counts

    def holder_problem(self, lease_id: str, holder: str, role: str) -> str | None:
        """Why the contracts on main do not let `holder` hold lease `lease_id` as `role`, or None."""
        declared = self.declared.get(lease_id)
        if declared is None:
            return f"no contract on main has the id {lease_id.removeprefix('hz-')}" if self.strict else None
        return role_problem(declared, holder, role)

    @classmethod
    def read(cls, repo: Repo, *, strict: bool) -> MainContracts | None:
        """The contracts at the tip of `main` (else `master`, as hz.sources.contract reads it), or None
        when the repository has neither. A reader without pygit2 (the hook's) opens the repository only
        when there is a main to read."""
        from hz.gitstate.catfile import CatFile
        from hz.gitstate.odb import PygitObjects

        if isinstance(repo, PygitObjects):
            repo = repo.repo
        elif isinstance(repo, Objects) and not any(repo.resolve(ref) for ref in MAIN_REFS):
            return None
        elif isinstance(repo, CatFile):
            from hz.gitstate.objects import open_repo

            repo = open_repo(repo.git_dir)
        if isinstance(repo, Objects):
            raise TypeError(f"main's contracts are read with pygit2, not from {type(repo).__name__}")
        tip = main_tip(repo)
        return None if tip is None else cls.at(repo, tip, strict=strict)

    @classmethod
    def on_remote(cls, remote: TeamRemote) -> MainContracts | None:
        """The contracts on the remote's `main` (else `master`), fetched now, as its hook will judge a push;
        None when it has neither. A tick asks it for the roles of a claim, so that a reviewed change of
        owner or maintainers counts at once, whatever version of the contract this machine runs."""
        for ref in MAIN_REFS:
            if (oid := remote.current(ref)) is not None:
                commit: Any = remote.repo[oid]
                return cls.at(remote.repo, commit, strict=False) if commit.type_str == "commit" else None
        return None

    @classmethod
    def at(cls, repo: pygit2.Repository, tip: Any, *, strict: bool, also: tuple[Any, ...] = ()) -> MainContracts:
        """The contracts of one commit of `main` (`tip`), its first-parent history (and that of the
        commits `also`) read when needed."""
        from hz.gitstate.main_roster import Roster

        declared: dict[str, Declared] = {}
        defaults = _defaults(repo, tip.tree)
        for text in _contract_texts(repo, tip.tree):
            if (found := _declared(text, defaults)) is not None:
                declared[found[0]] = found[1]
        roster = Roster.at(repo, tip, history=None if strict else (tip, *also))
        earlier = lambda: _histories(repo, (tip, *also))  # noqa: E731
        policies = _policies(repo, tip.tree)
        tips = (repo, (tip, *also))
        return cls(declared, strict=strict, earlier=earlier, roster=roster, policies=policies, tips=tips)

    @classmethod
    def kept(
        cls,
        declared: Mapping[str, Declared],
        roster: Roster | None,
        policies: Policies | None,
        counts: Counts,
        source: Callable[[], tuple[pygit2.Repository, tuple[Any, ...]]],
    ) -> MainContracts:
        """The hook's contracts as a cache kept them for one main (hz.gitstate.main_cache); `source` opens
        the repository and main's tip, only if an event needs main's history after all."""
        return cls(declared, strict=True, earlier=lambda: _histories(*source()), roster=roster, policies=policies,
                   counts=counts)  # fmt: skip

    def version_counts(self) -> Counts | None:
        """How many versions main has of each contract, walked when a version asks (hz.gitstate.main_counts)."""
        if self._counts is None and self._tips is not None:
            from hz.gitstate.main_counts import VersionCounts

            self._counts = VersionCounts(*self._tips)
        return self._counts

    def grants(self, policy_id: str, action: str, when: datetime) -> bool:
        """Does a live policy on main with this id auto-approve `action` at `when`? (Its owner and scope are
        the tick's to check before it publishes; the hook holds a receipt to an existing, live grant.)"""
        policy = self.policies.policies.get(policy_id) if self.policies is not None else None
        return policy is not None and policy.action == action and when < policy.expires

    def member(self, handle: str, *, allow_unknown: bool = True) -> bool:
        """Is `handle` a member of the roster on main (`@unknown` too, where `allow_unknown`)?"""
        return (allow_unknown and handle == UNKNOWN_HANDLE) or (self.roster is not None and self.roster.has(handle))

    @classmethod
    def read_local(cls, repo: pygit2.Repository) -> MainContracts | None:
        """A member's clone, for `hz state lint` (never strict): its own main judges, and the versions on
        every main the clone knows count as history (git's `origin/main`, the remote's main hz fetched
        for its last claim). A clone whose own main lags behind is still clean about a receipt written
        under a version it has not pulled yet; the hook, which has the remote's main, keeps the last word."""
        tips = [tip for ref in _local_mains(repo) if (tip := _commit_at(repo, ref)) is not None]
        return cls.at(repo, tips[0], strict=False, also=tuple(tips[1:])) if tips else None

    def problem(self, event: Event) -> str | None:
        """Which name of `event` its contract on `main` does not declare, or None (see the module doc)."""
        declared = self.declared.get(event.id)
        found = (
            _names_problem(declared, event)
            if declared is not None
            else (f"no contract on main has the id {event.id.removeprefix('hz-')}" if self.strict else None)
        )
        if found is None or any(_names_problem(v, event) is None for v in self._earlier_versions(event.id)):
            return None
        return found

    def retired(self, agent_id: str) -> bool:
        """Whether a contract with this id was on main's history but is not on its tip (history read once)."""
        return agent_id not in self.declared and bool(self._earlier_versions(agent_id))

    def _earlier_versions(self, agent_id: str) -> list[Declared]:
        if self._versions is None:
            self._versions = self._earlier() if self._earlier is not None else {}
        return self._versions.get(agent_id, [])


def _names_problem(declared: Declared, event: Event) -> str | None:
    """Which name of `event` this version of its contract does not declare, or None."""
    for name in _input_names(event):
        if name not in declared.inputs:
            return f"input {name!r} is not declared by the contract on main"
    for name in _output_names(event):
        if name not in declared.targets:
            return f"output {name!r} is not declared by the contract on main"
    for slot, asset in _assets(event):
        if asset not in _filled(declared, slot):
            return f"asset {asset!r} is not a target of the contract on main"
    return None


def _history(repo: pygit2.Repository, tip: Any) -> dict[str, list[Declared]]:
    """Every version of every contract on `main`'s first-parent history (the tip's included), by agent id."""
    import pygit2

    versions: dict[str, list[Declared]] = {}
    trees: set[Any] = set()
    blobs: set[Any] = set()
    walker = repo.walk(tip.id, pygit2.enums.SortMode.NONE)
    walker.simplify_first_parent()
    for commit in itertools.islice(walker, MAX_HISTORY):
        folder = _folder(repo, commit.tree)
        if folder is None or folder.id in trees:
            continue
        trees.add(folder.id)
        for blob in _blobs_under(repo, folder, 0):
            if blob.id in blobs:
                continue
            blobs.add(blob.id)
            if (found := _declared(bytes(blob.data).decode("utf-8", "replace"))) is not None:
                known = versions.setdefault(found[0], [])
                known.extend([] if found[1] in known else [found[1]])
    return versions


def _local_mains(repo: pygit2.Repository) -> list[str]:
    """The refs of a clone that may hold main: its own first, then git's and hz's copies of the remote's."""
    copies = [
        ref
        for ref in repo.references
        if ref.startswith(("refs/remotes/", "refs/hz/sync/")) and ref.rsplit("/", 1)[-1] in ("main", "master")
    ]
    return [*MAIN_REFS, *sorted(copies)]


def _commit_at(repo: pygit2.Repository, ref: str) -> Any | None:
    try:
        tip: Any = repo.references[ref].peel()
    except (KeyError, ValueError):
        return None
    return tip if tip.type_str == "commit" else None


def _histories(repo: pygit2.Repository, tips: tuple[Any, ...]) -> dict[str, list[Declared]]:
    merged: dict[str, list[Declared]] = {}
    for tip in {str(tip.id): tip for tip in tips}.values():
        for agent_id, versions in _history(repo, tip).items():
            known = merged.setdefault(agent_id, [])
            known.extend(v for v in versions if v not in known)
    return merged


def main_tip(repo: pygit2.Repository) -> Any | None:
    """The commit at `main` (else `master`), tags peeled; None when neither is a commit."""
    for ref in MAIN_REFS:
        try:
            tip: Any = repo.references[ref].peel()
        except (KeyError, ValueError):
            continue
        return tip if tip.type_str == "commit" else None
    return None


def _keys(event: Event) -> list[str]:
    data = event.data
    keys = [event.key, *data.get("keys", [])]
    if isinstance(data.get("key"), str):
        keys.append(data["key"])
    return keys


def _input_names(event: Event) -> Iterator[str]:
    yield from event.data.get("input_fps", {})
    yield from event.data.get("moved", [])
    for key in _keys(event):
        form, rest = occasion(key)
        if form == "input":
            yield rest.split(":", 1)[0]


def _output_names(event: Event) -> Iterator[str]:
    for key in _keys(event):
        form, rest = occasion(key)
        if form == "stale":
            yield rest.split(":", 2)[1]


def _assets(event: Event) -> Iterator[tuple[str, str]]:
    """(slot, asset) of every draft a key of `event` names; a payload's `asset` goes with its `key`."""
    for key in _keys(event):
        form, rest = occasion(key)
        if form == "approval":
            form, rest = occasion(rest.split(":", 1)[1])
        if form == "draft":
            _, slot, asset = rest.split("@", 2)
            yield slot, asset
            if isinstance(event.data.get("asset"), str) and key == event.data.get("key"):
                yield slot, event.data["asset"]


def _filled(declared: Declared, slot: str) -> frozenset[str]:
    """Every target of the contract with its placeholders filled for `slot` (none for a slot that is no time)."""
    return _filled_targets(tuple(declared.targets.values()), slot)


@functools.lru_cache(maxsize=1024)  # a push names the same few slots of the same contracts in many events
def _filled_targets(targets: tuple[str, ...], slot: str) -> frozenset[str]:
    from hz.repo_paths import fill_slot  # what the turn engine fills a target with (hz.review.drafts)

    moment = slot_time(slot)
    return frozenset() if moment is None else frozenset(fill_slot(target, moment) for target in targets)
