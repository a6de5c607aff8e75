"""The tick's one fetch from the team remote: `main`, the draft branches, `hz/state` and the leases.

With `[state]`, a tick starts with one `git fetch` of

    refs/heads/main (else master)   the reviewed truth: approvals, team contract versions, `contract:` inputs
    refs/heads/hz/*                 `hz/state` and every `hz/draft/<contract>/<output>@<key>` branch
    refs/hz/lease/*                 the leases

into hz's own namespace, `refs/hz/sync/<remote>/…` (`TeamRemote.tracking`), never moving a member's own
branches or remote-tracking refs. `--prune` drops the copies of branches the remote no longer has, so a
merged or rejected draft leaves the view. The result, a `TeamView`, is what the rest of the tick reads:
the claims look at `main`'s owners and maintainers, the slot's receipts and the lease there (one
consistent advertisement; the lease push that follows is guarded by the lease tip seen, so a view grown
stale during the tick costs a refused push, never a second run), approvals compare drafts with `main`.

An Actions run whose clone has no copy of `hz/state` yet (the tick workflow checks out main alone) first
takes the newest commit of `hz/state` alone (`take_tips`): its history is never read by a tick, and after a
year it is most of what the remote holds. Such a run fetches no lease in its first fetch: once the tick
knows which team contracts are due, it takes the tips of their leases alone, with `hz/state` again in the
same fetch so the claims read one snapshot (`bring_leases`); a lease it did not bring reads as not looked
at, and the claim that needs it fetches it first. A member's clone is never cut short: the lint and a
member's readers of history run there.

A missing `main` or `hz/state` is normal on a new remote: the globs never fail, and a missing `main`
is asked again as `master`, then left out (a second process only then).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path

from hz.gitdir import git_dir, holds_ref
from hz.gitstate.layout import LEASE_PREFIX, STATE_REF, lease_ref
from hz.gitstate.remote import TeamRemote
from hz.gitstate.shapes import MAX_KEY
from hz.gitstate.transport import TransportError

MAIN_REFS = ("refs/heads/main", "refs/heads/master")
HZ_BRANCHES = "refs/heads/hz/"
TIPS_DEPTH = 1  # a fresh clone's hz/state and leases: their tips alone (`take_tips`)
DRAFT_PREFIX = "refs/heads/hz/draft/"
# trailers of a draft commit (see hz.review.branches); a value longer than a key is no hz trailer
TRAILER_MAX = MAX_KEY
# what hz writes there: ids, slots, names; printable ASCII with no space, so nothing shown to a terminal
# (`hz drafts`) or a forge can carry an escape sequence or pass for two values
_TOKEN = re.compile(r"^[\x21-\x7e]+$")
# a contract id and an output name, as hz.review.branches names a branch for them
_PART = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,99}$")


@dataclass(frozen=True)
class DraftBranch:
    """One `hz/draft/<contract>/<output>@<key slug>` branch as the remote has it (no slug: a draft placed
    before keys, or an amendment's `hz/draft/<contract>/contract`)."""

    contract: str
    output: str
    commit: str
    trailers: Mapping[str, str]
    committed: datetime
    slug: str = ""

    @property
    def branch(self) -> str:
        tail = f"{self.output}@{self.slug}" if self.slug else self.output
        return f"hz/draft/{self.contract}/{tail}"

    @property
    def ref(self) -> str:
        return "refs/heads/" + self.branch

    @property
    def key(self) -> str | None:
        return self.trailers.get("Hz-Draft")

    @property
    def slot(self) -> str | None:
        return self.trailers.get("Hz-Slot")


@dataclass(frozen=True)
class TeamView:
    """What the tick's one fetch brought: the remote's main, its draft branches, hz/state, the leases."""

    main: str | None  # the commit of the remote's main (None: it has none)
    main_ref: str | None  # which branch that was, refs/heads/main or refs/heads/master
    state: str | None  # hz/state's tip
    drafts: Mapping[str, DraftBranch] = field(default_factory=dict)  # branch name -> branch
    leases: Mapping[str, str] = field(default_factory=dict)  # lease ref -> its tip (the object itself)
    others: tuple[str, ...] = ()  # refs under hz/draft/ of no (contract, output) shape: old-style branches
    # this clone's own `hz/draft/…` branches as (ref, commit, Hz-Draft key), read in the same listing
    local_drafts: tuple[tuple[str, str, str | None], ...] = ()

    def tips(self) -> dict[str, str | None]:
        """Every ref this fetch answered for (None: the remote has no such ref)."""
        tips: dict[str, str | None] = {ref: None for ref in MAIN_REFS}
        if self.main_ref is not None:
            tips[self.main_ref] = self.main
        tips[STATE_REF] = self.state
        tips.update({draft.ref: draft.commit for draft in self.drafts.values()})
        tips.update(self.leases)
        return tips


def fetch_team(repo_root: Path, remote: str, environ: Mapping[str, str] = os.environ) -> TeamView:
    """One fetch of the team remote `remote` into the repository at `repo_root`; the view it brought."""
    return fetch_view(TeamRemote(repo_root, remote, environ))


def fetch_view(team: TeamRemote) -> TeamView:
    """Fetch and read the view; the remote then answers its looks (`TeamRemote.current`) from it.

    Git alone, no pygit2 or pydantic: an idle tick pays this fetch and one local listing, nothing heavy."""
    if team.in_actions:
        team.tips_only = not holds_state(team) or is_shallow(team.root)
        if not holds_state(team):
            take_tips(team)
    prefixes = (HZ_BRANCHES,) if team.tips_only else (HZ_BRANCHES, LEASE_PREFIX)
    globs = [f"+{prefix}*:{team.tracking(prefix)}*" for prefix in prefixes]
    main_ref: str | None = None
    for candidate in (*MAIN_REFS, None):
        specs = globs if candidate is None else [f"+{candidate}:{team.tracking(candidate)}", *globs]
        try:
            team.git.fetch(team.remote, specs, prune=True)
        except TransportError as exc:
            if candidate is None or "couldn't find remote ref" not in exc.message:
                raise
            continue
        main_ref = candidate
        break
    view = read_view(team, main_ref)
    team.seen, team.seen_prefixes = view.tips(), prefixes
    if team.tips_only:  # copies an earlier command of this run brought: not of this snapshot
        team.seen = {ref: tip for ref, tip in team.seen.items() if not ref.startswith(LEASE_PREFIX)}
    return view


def holds_state(team: TeamRemote) -> bool:
    """Whether this clone has some copy of `hz/state` already: hz's own, or a branch `git clone` brought.
    Refs laid out where hz cannot read them count as a copy (the usual fetch, as before)."""
    return holds_ref(team.root, (team.tracking(STATE_REF), "refs/remotes/*/hz/state")) is not False


def is_shallow(root: Path) -> bool:
    """Whether the clone at `root` holds some history from a shallow boundary on (git's `shallow` file)."""
    folder = git_dir(root)
    return folder is not None and (folder / "shallow").is_file()


def take_tips(team: TeamRemote) -> None:
    """The newest commit of `hz/state` alone, into hz's copy, for an Actions run's clone that has none.

    An Actions run checks out `main` alone and starts from nothing every time: `hz/state` grows by every
    slot the team ever ran, and none of that history is read by a tick (receipts are read at the tip, and
    a push only needs the tip it builds on). The fetch that follows then brings only what is newer than
    this tip. A remote without `hz/state` yet has nothing to take."""
    try:
        team.git.fetch(team.remote, [f"+{STATE_REF}:{team.tracking(STATE_REF)}"], depth=TIPS_DEPTH)
    except TransportError as exc:
        if "couldn't find remote ref" not in exc.message:
            raise


def bring_leases(team: TeamRemote, lease_ids: Iterable[str]) -> None:
    """Add the leases `lease_ids` (the tick's due team contracts) to the snapshot of a clone that takes tips
    alone (`fetch_view`): one fetch of their tips, `hz/state` fetched again with them.

    Why `hz/state` again: a claim reads whether the slot ended on `hz/state` and who holds the lease, and
    the two must be one moment. A lease read after the receipts could show a slot released by a member
    whose `turn.finished` the older `hz/state` does not show yet: the slot would run twice. A lease that
    does not exist reads as absent (a contract never run); one not asked for here stays unknown, and the
    claim that needs it fetches it itself (hz.gitstate.lease.read_lease), so nothing is claimed blind.
    Each lease is asked for by a pattern that names it whole, since naming a ref the remote lacks fails
    the whole fetch. Nothing to do in a member's clone, whose one fetch brought every lease."""
    # no hz/state yet (a new remote): the claims fetch what they read, since a shallow fetch whose patterns
    # match nothing fails without a word
    if not team.tips_only or team.seen is None or team.seen.get(STATE_REF) is None:
        return
    wanted = sorted({lease_ref(lease_id) for lease_id in lease_ids} - set(team.seen))
    if not wanted:
        return
    specs = [f"+{STATE_REF}:{team.tracking(STATE_REF)}", *(f"+{ref}*:{team.tracking(ref)}*" for ref in wanted)]
    try:
        team.git.fetch(team.remote, specs, prune=True, depth=TIPS_DEPTH)
    except TransportError as exc:
        if "couldn't find remote ref" not in exc.message:
            raise
        return  # hz/state went away meanwhile: each claim fetches what it reads
    copies = [team.tracking(ref) for ref in (STATE_REF, *wanted)]
    listed = team.git.run("for-each-ref", "--format=%(refname)%00%(objectname)%00%(objecttype)", "--", *copies)
    rows = [line.split("\0") for line in listed.stdout.splitlines()]
    found = {row[0]: (row[1], row[2]) for row in rows if len(row) == 3}
    seen = dict(team.seen)
    oid, kind = found.get(team.tracking(STATE_REF), (None, None))
    seen[STATE_REF] = oid if kind == "commit" else None
    # the object itself, as `read_view` has it: a tag there is a damaged lease, not the commit inside
    seen.update({ref: found[team.tracking(ref)][0] if team.tracking(ref) in found else None for ref in wanted})
    team.seen = seen


# one record per ref: name, object, its type, commit time, its trailers unfolded (for a commit)
_FORMAT = "%(refname)%00%(objectname)%00%(objecttype)%00%(committerdate:unix)%00%(trailers:only,unfold,separator=%x1f)"


def read_view(team: TeamRemote, main_ref: str | None) -> TeamView:
    """The view from the tracking refs the last fetch left, and this clone's own draft branches (one local
    `git for-each-ref`, no network: an idle tick starts no other git process after its fetch)."""
    copies = [team.tracking(prefix) for prefix in (*MAIN_REFS, HZ_BRANCHES, LEASE_PREFIX)]
    listed = team.git.run("for-each-ref", f"--format={_FORMAT}", "--", *copies, DRAFT_PREFIX).stdout
    main: str | None = None
    state: str | None = None
    drafts: dict[str, DraftBranch] = {}
    others: list[str] = []
    leases: dict[str, str] = {}
    local: list[tuple[str, str, str | None]] = []
    for line in listed.splitlines():
        name, oid, kind, when, said = (line.split("\0") + [""] * 5)[:5]
        if name.startswith(DRAFT_PREFIX):  # a branch of this clone, not a copy of the remote's
            local.append((name, oid, parse_trailers(said.split("\x1f")).get("Hz-Draft")))
            continue
        ref = "refs/" + name.removeprefix(team.sync_prefix)
        if ref in MAIN_REFS:
            if ref == main_ref:
                main = oid if kind == "commit" else None
            else:  # a copy of a main the remote no longer has would pass for its truth
                team.git.run("update-ref", "-d", name, oid, check=False)
        elif ref == STATE_REF:
            state = oid if kind == "commit" else None
        elif ref.startswith(LEASE_PREFIX):
            leases[ref] = oid  # the object itself: a tag there is a damaged lease, not the commit inside
        elif ref.startswith(DRAFT_PREFIX):
            found = _draft(ref.removeprefix(DRAFT_PREFIX), oid, kind, when, said)
            if found is None:
                others.append(ref)
            else:
                drafts[found.branch] = found
    for place, draft in list(drafts.items()):
        if draft.key is None:  # a reviewer's commit on top: the draft is the nearest commit naming one
            drafts[place] = _beneath(team, draft)
    return TeamView(main, main_ref if main else None, state, drafts, leases, tuple(others), tuple(local))


REVIEW_DEPTH = 20  # commits a reviewer may have put on a draft branch, looked through for the draft's own


def _beneath(team: TeamRemote, draft: DraftBranch) -> DraftBranch:
    """The branch with the trailers of the newest commit under its tip that has a `Hz-Draft`: a reviewer
    who edits on the branch leaves the draft it carries the same (one process, only for such a branch)."""
    said = "--format=%x1e%(trailers:only,unfold,separator=%x1f)"
    log = team.git.run("log", "--first-parent", f"-n{REVIEW_DEPTH}", said, draft.commit, "--", check=False).stdout
    for record in log.split("\x1e")[1:]:
        found = parse_trailers(record.strip().split("\x1f"))
        if "Hz-Draft" in found:
            return replace(draft, trailers=found)
    return draft


def _draft(tail: str, oid: str, kind: str, when: str, said: str) -> DraftBranch | None:
    """A draft branch named `<contract>/<output>[@<key slug>]` whose tip is a commit; None for anything else."""
    named = split_branch("hz/draft/" + tail)
    if named is None or kind != "commit" or not when.isdigit():
        return None
    contract, output, slug = named
    trailers = parse_trailers(said.split("\x1f"))
    return DraftBranch(contract, output, oid, trailers, datetime.fromtimestamp(int(when), UTC), slug)


def split_branch(branch: str) -> tuple[str, str, str] | None:
    """(contract id, output, key slug or "") of a branch `branch_name` makes; None for any other name."""
    contract, _, tail = branch.removeprefix("hz/draft/").partition("/")
    output, _, slug = tail.partition("@")
    if not branch.startswith("hz/draft/") or not (_PART.match(contract) and _PART.match(output)):
        return None
    return (contract, output, slug) if not slug or _PART.match(slug) else None


def parse_trailers(lines: list[str]) -> dict[str, str]:
    """`Key: value` trailers as git found them, hz's own (`Hz-…`) only, bounded: anyone can push a
    branch, so a value that is no short token is no hz trailer. The last of a key counts."""
    found: dict[str, str] = {}
    for line in lines:
        key, sep, value = line.partition(":")
        value = value.strip()
        if sep and key.startswith("Hz-") and _TOKEN.match(key) and _TOKEN.match(value) and len(value) <= TRAILER_MAX:
            found[key] = value
    return found


def team_remote(root: Path, environ: Mapping[str, str] = os.environ) -> TeamRemote | None:
    """The team remote `hz.toml`'s `[state]` names (None: the repository keeps no team state)."""
    from hz.errors import ConfigError
    from hz.gitstate.settings import load_state_settings, read_hz_toml

    try:
        document = read_hz_toml(root)
        if document is None or "state" not in document:
            return None
        return TeamRemote(root, load_state_settings(root).remote, environ)
    except ConfigError:
        return None


def fetched_main(root: Path) -> str | None:
    """hz's copy of the remote's main as the last fetch left it (its ref name; None: there is none).

    Asked twice a drafted turn (where its draft branches off), and each answer read `hz.toml` twice and
    opened the repository; inside a tick it is read once (`hz.contract.compiled`): the copy's name follows
    from `hz.toml` and the tick's fetch, which made the copy before any turn."""
    from hz.contract.compiled import kept

    return kept(("fetched main", str(root)), lambda: _fetched_main(root))  # type: ignore[no-any-return]


def _fetched_main(root: Path) -> str | None:
    from hz.gitstate import objects

    remote = team_remote(root)
    if remote is None:
        return None
    return next((copy for ref in MAIN_REFS if objects.resolve(remote.repo, copy := remote.tracking(ref))), None)
