"""Each tick, what became of every pending team draft: approved on `main`, rejected, or still waiting.

Approval is bookkeeping, not a wake (DESIGN.md, "Team operation"): whichever member or Actions run
ticks first after a reviewer merged (or closed) a draft records it on `hz/state`, once per draft key,
with no lease (hz.review.approval_record). What is read comes from the tick's one fetch (the `TeamView`
of hz.review.sync): the remote's `main`, the draft branches and `hz/state`.

What counts is `main`'s content and who brought it there (hz.review.approval_judge): a commit made or
merged by a member of the roster on `main` that brings the draft's path to text derived from the draft
as placed. Trailers and pull requests only help find the draft and its merger. A draft whose pull
request was closed unmerged, or whose branch is gone with no such commit, is rejected, naming who
closed it; one a newer draft of the same key replaced is superseded.

Every tick that sees a draft waiting keeps its commit in hz's own refs, so the draft as placed can still
be compared with the approved text after a squash merge deleted its branch. A clone that never held it
(hz/state has only its hash) leaves an edited draft's approval to one that does, DRAFT_WAIT at most.
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Literal

from hz.canonical import fingerprint_bytes
from hz.errors import HzError
from hz.gitenv import git_env
from hz.gitstate import objects
from hz.gitstate.events import Event
from hz.gitstate.layout import event_digest
from hz.gitstate.lint_fence import LeaseBook
from hz.gitstate.remote import TeamRemote
from hz.gitstate.shapes import IDENT, occasion, slot_time
from hz.gitstate.types import format_utc
from hz.repo_paths import MAX_FILE_BYTES
from hz.review.approval_judge import Judge
from hz.review.approval_roster import Roster
from hz.review.approval_state import StateBook, remember, remembered, undecided
from hz.review.placed_copies import forget_decided

SINCE_MARGIN = timedelta(days=1)  # committer clocks disagree; a trailer older than its draft is no approval
MAX_COMMITS = 5000  # commits of `main` read for trailers per tick, at most
REVIEW_DEPTH = 20  # a reviewer's commits on top of a draft, looked through for the draft as placed
FORGE_COMMITTERS = frozenset({"noreply@github.com"})  # who commits a merge made on the forge's web page
FORGE_WAIT = timedelta(days=1)  # how long such a merge waits for a tick with a forge to name its merger
DRAFT_WAIT = timedelta(hours=1)  # how long an approval waits for a tick holding the draft as placed (its
# publishes wait too: short, as a team ticking only from Actions has no clone that keeps a draft)
_HEX = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
_TRAILER = re.compile(r"^[\s*>-]*Hz-(Draft|Contract):[ \t]*(\S{1,400})[ \t]*$", re.MULTILINE)
# the subject of an older draft commit (hz.review.drafts.Tag): `… · <key>`
_TAGGED = re.compile(r"\A[^\n]* · (hz-\S{1,400})[ \t]*$", re.MULTILINE)


@dataclass(frozen=True)
class Fate:
    """What became of one pending draft, with what its publishes and its owner's lesson need."""

    kind: Literal["approved", "rejected", "superseded"]
    placed: Event  # its `draft.placed` on hz/state
    output: str
    receipt: Event  # the `approval.observed`, `draft.rejected` or `draft.superseded` to record
    approved: str | None = None  # the text as approved (on main), for an approval


@dataclass
class Watch:
    """One tick's look at the pending drafts."""

    fates: list[Fate] = field(default_factory=list)
    waiting: int = 0  # drafts still waiting for their review
    held: int = 0  # approvals left to a clone that holds the draft as placed (this tick looks again next time)
    errors: list[str] = field(default_factory=list)
    unread: set[str] = field(default_factory=set)  # draft files hz cannot read as events: voided


def watch(remote: TeamRemote, view: Any, forge: Any, roster: Roster, now: datetime) -> Watch:
    """Judge every pending team draft against `view` (a hz.review.sync.TeamView); nothing is written."""
    found = Watch()
    if view.main is None or view.state is None:
        return found
    main = Main(remote, view.main)
    book = StateBook(remote.repo, view.state, only=main.contracts.declared)  # drafts of contracts on main only
    known = remembered(remote.local_dir)
    on_branches = {branch.key: branch for branch in view.drafts.values() if branch.key}

    def output_of(placed: Event) -> str:  # a branch that carries it says, else what main and the copy say
        carried = on_branches.get(placed.key)
        return carried.output if carried is not None else main.output_of(placed)

    def group_of(placed: Event, output: str) -> str:  # the branch of its key: the one carrying it, else main's
        carried = on_branches.get(placed.key)
        return carried.branch if carried is not None else main.branch_of(placed, output)

    pending, decided_now = undecided(book, output_of, known, group_of)
    remember(remote.local_dir, known, decided_now)
    forget_decided(remote, book, now)  # copies of drafts with a fate, whoever recorded it
    found.unread = book.unread
    if not pending:
        return found
    since = min(_parse(p.ts) for p, _, _ in pending) - SINCE_MARGIN
    marks = main.trailers(since)
    leases = LeaseBook.local(remote.repo)
    for placed, output, newer in pending:
        branch = group_of(placed, output)
        judge = Judge(main, placed, output, view, roster, now, forge, authors(main, leases, placed), branch=branch)
        try:
            receipt = judge.decide(marks, _pull(forge, placed, branch) if newer is None else None, newer)
        except HzError as exc:  # the forge or git could not answer: this draft waits for the next tick
            found.errors.append(f"{placed.key}: {exc.message}")
            continue
        if receipt is None:
            found.waiting += 1
            found.held += judge.held
        else:
            found.fates.append(_fate(main, placed, output, receipt))
    return found


_KINDS: dict[str, Literal["approved", "rejected", "superseded"]] = {
    "approval.observed": "approved", "draft.rejected": "rejected", "draft.superseded": "superseded"
}  # fmt: skip


def _fate(main: Main, placed: Event, output: str, receipt: Event) -> Fate:
    text = None
    if receipt.kind == "approval.observed":
        text = main.text_with(str(placed.data["asset"]).partition(":")[2], str(receipt.data["output_fp"]))
    return Fate(_KINDS[receipt.kind], placed, output, receipt, text)


def authors(main: Main, leases: Any, placed: Event) -> frozenset[str]:
    """The members whose agent drafted `placed`: the contract's owner on main, and the member who held
    its lease when it was placed (a maintainer running it as a delegate); an Actions run is no member."""
    from hz.gitstate.identity import handle_of

    found: set[str] = set()
    declared = main.contracts.declared.get(placed.id)
    if declared is not None and declared.owner:
        found.add(declared.owner)
    grants = leases.grants(placed.lease)
    holder = grants.holder(placed.token) if grants is not None else None
    if holder is not None and holder[0].startswith("@"):
        found.add(handle_of(holder[0]))
    return frozenset(found)


def _pull(forge: Any, placed: Event, branch: str) -> Any:
    """The pull request of this very draft (its body names the draft's key), or None."""
    if forge is None:
        return None
    pull = forge.pull_for_branch(branch)
    mark = placed.key.split("@", 1)[1]
    return pull if pull is not None and mark in (pull.body or "") else None


def placed_copy(remote: TeamRemote, placed: Event) -> str:
    """Where this clone keeps a pending draft's commit (hz's own namespace, never pushed), so the draft as
    placed can still be read after its branch was deleted by the merge."""
    return remote.sync_prefix + f"placed/{placed.id}/{event_digest('draft.placed', placed.key)}"


def branch_of(placed: Event, output: str) -> str:
    """`hz/draft/<contract id>/<output>`: the branch of a draft placed before keys (see Main.branch_of)."""
    return f"hz/draft/{placed.id.removeprefix('hz-')}/{output}"


def local_branches(main: Main, placed: Event, branch: str) -> list[str]:
    """This clone's own draft branch `branch` (the owner's clone: the look before the placing could keep
    no copy of it), its tip, and those of older branches under it."""
    prefix = f"refs/heads/{branch}"
    return [str(main.repo.references[name].target) for name in main.repo.references
            if name == prefix or name.startswith(prefix + "/")]  # fmt: skip


def _parse(ts: str) -> datetime:
    return datetime.fromisoformat(ts.replace("Z", "+00:00"))


class Main:
    """The remote's `main` as the tick's fetch brought it: its contracts, commits and files."""

    def __init__(self, remote: TeamRemote, tip: str) -> None:
        from hz.gitstate.lint_contracts import MainContracts

        self.remote = remote
        self.repo = remote.repo
        self.tip = tip
        self.contracts = MainContracts.at(self.repo, self.repo[tip], strict=False)
        self._first_parents: set[str] | None = None

    def output_of(self, placed: Event) -> str:
        """The output a draft is of, so that a newer draft of it supersedes an older one: the `Hz-Output`
        of the draft commit this clone kept, else the output whose target on main, filled for the draft's
        slot, is its asset, else the contract's only output (its target moved since), else the output of
        an earlier version of the contract on main that had that target; else its asset stands for it."""
        kept = objects.resolve(self.repo, placed_copy(self.remote, placed))
        if kept is not None and (said := _trailer(self.repo[kept], "Hz-Output")):
            return said
        declared = self.contracts.declared.get(placed.id)
        if declared is not None and (name := _target_of(declared, placed)) is not None:
            return name
        if declared is not None and len(declared.targets) == 1:
            return next(iter(declared.targets))
        for earlier in self.contracts._earlier_versions(placed.id):  # read once, only for such a draft
            if (name := _target_of(earlier, placed)) is not None:
                return name
        return str(placed.data["asset"])

    def branch_of(self, placed: Event, output: str) -> str:
        """The branch of the draft's idempotency key, by the contract's `hz.idempotency` on main (a contract
        main no longer has: the default); the branch of its output for a name no branch can carry."""
        from hz.review.branches import DEFAULT_IDEMPOTENCY, branch_name, draft_key
        from hz.review.drafts import DraftTargetError

        declared = self.contracts.declared.get(placed.id)
        template = (declared.idempotency if declared is not None else None) or DEFAULT_IDEMPOTENCY
        moment = slot_time(placed.key.split("@")[2]) if occasion(placed.key)[0] == "draft" else None
        contract = placed.id.removeprefix("hz-")
        try:
            if moment is None:
                return branch_name(contract, output)
            return branch_name(contract, output, draft_key(template, contract, moment, str(placed.data["asset"])))
        except DraftTargetError:
            return branch_of(placed, output)

    def git(self, *args: str) -> str:
        done = subprocess.run(["git", "-C", str(self.remote.root), *args], capture_output=True,
                              env=git_env(self.remote.git.env), check=False)  # fmt: skip
        if done.returncode != 0:
            raise HzError(f"git {args[0]} failed: {done.stderr.decode(errors='replace').strip()[:300]}")
        return done.stdout.decode("utf-8", errors="replace")

    def trailers(self, since: datetime) -> dict[str, list[tuple[str, str | None, str | None]]]:
        """Draft occasions (`v1@<slot>@<asset>`) named by `Hz-Draft` lines of main's commits since `since`:
        occasion -> [(commit, the key's id, the commit's Hz-Contract)], oldest commit first."""
        log = self.git("log", f"--max-count={MAX_COMMITS}", f"--since={format_utc(since)}",
                       "--format=%H%x1f%B%x1e", self.tip, "--")  # fmt: skip
        found: dict[str, list[tuple[str, str | None, str | None]]] = {}
        for record in reversed(log.split("\x1e")):
            commit, _, message = record.strip().partition("\x1f")
            if not commit:
                continue
            lines = _TRAILER.findall(message) + [("Draft", key) for key in _TAGGED.findall(message)]
            contract = next((value for name, value in lines if name == "Contract"), None)
            for name, value in lines:
                if name == "Draft" and "@" in value:
                    ident, _, rest = value.partition("@")
                    found.setdefault(rest, []).append((commit, ident, contract))
        return found

    def first_parents(self) -> set[str]:
        if self._first_parents is None:
            listed = self.git("rev-list", "--first-parent", f"--max-count={MAX_COMMITS}", self.tip, "--")
            self._first_parents = set(listed.split())
        return self._first_parents

    def holds(self, commit: str) -> bool:
        """Is `commit` part of main's history (a forge's merge commit that the fetch brought)?"""
        if not _HEX.fullmatch(commit) or not objects.has_object(self.repo, commit):  # the forge said it
            return False
        done = subprocess.run(["git", "-C", str(self.remote.root), "merge-base", "--is-ancestor", commit, self.tip],
                              capture_output=True, env=git_env(self.remote.git.env), check=False)  # fmt: skip
        return done.returncode == 0

    def merge_point(self, commit: str) -> str:
        """The first commit of main's first-parent line that holds `commit` (itself, for a squash or rebase)."""
        if commit in self.first_parents():
            return commit
        listed = self.git("rev-list", "--first-parent", "--reverse", "--ancestry-path", f"{commit}..{self.tip}", "--")
        return next(iter(listed.split()), self.tip)

    def base_at(self, moment: datetime) -> str | None:
        """main as it stood at `moment` (the base of a draft whose own commit is gone); None when main's
        history starts later (clocks disagree): the draft's file is then taken as absent before it."""
        listed = self.git("rev-list", "-1", "--first-parent", f"--before={format_utc(moment)}", self.tip, "--")
        return listed.strip() or None

    def first_change(self, base: str | None, path: str) -> str:
        """The first commit of main's first-parent line after `base` that changed `path` (else main's tip)."""
        span = f"{base}..{self.tip}" if base is not None else self.tip
        listed = self.git("rev-list", "--first-parent", "--reverse", span, "--", path)
        return next(iter(listed.split()), self.tip)

    def committer(self, commit: str) -> str:
        return self.git("log", "-1", "--format=%ce", commit, "--").strip()

    def merges(self, point: str, draft: str | None) -> bool:
        """Is `point` a merge commit that brings the draft commit `draft` in through another parent?"""
        found: Any = self.repo[point]
        if draft is None or len(found.parents) < 2:
            return False
        for parent in found.parents[1:]:
            done = subprocess.run(["git", "-C", str(self.remote.root), "merge-base", "--is-ancestor", draft,
                                   str(parent.id)], capture_output=True, env=git_env(self.remote.git.env),
                                  check=False)  # fmt: skip
            if done.returncode == 0:
                return True
        return False

    def first_parent(self, commit: str) -> str | None:
        found: Any = self.repo[commit]
        return str(found.parents[0].id) if found.parents else None

    def recent(self, point: str, now: datetime, wait: timedelta) -> bool:
        """Was `point` committed less than `wait` before `now`?"""
        when = self.git("log", "-1", "--format=%ct", point, "--").strip()
        return when.isdigit() and now.timestamp() - int(when) < wait.total_seconds()

    def by_the_forge(self, point: str, now: datetime, wait: timedelta) -> bool:
        """Did the forge itself commit `point` (a merge on its web page), within `wait`? Its committer names
        no person: a tick that can ask the forge who merged records it."""
        return self.committer(point).casefold() in FORGE_COMMITTERS and self.recent(point, now, wait)

    def text_with(self, path: str, fp: str) -> str | None:
        """The text of `path` whose fingerprint is `fp`, found on main's recent first-parent line."""
        listed = self.git("rev-list", "--first-parent", "--max-count=200", self.tip, "--", path).split()
        for commit in listed:
            text = self.file_at(commit, path)
            if text is not None and fingerprint_bytes(text.encode("utf-8")) == fp:
                return text
        return None

    def file_at(self, commit: str | None, path: str) -> str | None:
        """The text of `path` at `commit`; None when it is not a bounded UTF-8 file there."""
        if commit is None or not objects.has_object(self.repo, commit):
            return None
        try:
            entry: Any = _tree(self.repo, commit)[path]
        except KeyError:
            return None
        blob: Any = self.repo[entry.id]
        if blob.type_str != "blob" or blob.size > MAX_FILE_BYTES:
            return None
        try:
            return bytes(blob.data).decode("utf-8")
        except UnicodeDecodeError:
            return None


def _target_of(declared: Any, placed: Event) -> str | None:
    """The output of `declared` whose target, filled for the draft's slot, is the draft's asset."""
    from hz.repo_paths import fill_slot

    moment = slot_time(placed.key.split("@")[2]) if occasion(placed.key)[0] == "draft" else None
    if moment is None:
        return None
    asset = str(placed.data["asset"])
    return next((name for name, target in sorted(declared.targets.items()) if fill_slot(target, moment) == asset), None)


def _trailer(commit: Any, key: str) -> str | None:
    try:
        value = commit.message_trailers.get(key)
    except (ValueError, UnicodeDecodeError):
        return None
    said = str(value or "").strip()
    return said if re.fullmatch(IDENT, said) else None  # anyone can push a branch: an output name or nothing


def _tree(repo: Any, commit: str) -> Any:
    import pygit2

    return repo[commit].peel(pygit2.Commit).tree
