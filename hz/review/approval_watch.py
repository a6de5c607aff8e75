"""Each tick, what became of every pending team draft: approved on `main`, rejected, or still waiting.

Approval is bookkeeping, not a wake (DESIGN.md, "Team operation"): whichever member or Actions run
ticks first after a reviewer merged (or closed) a draft records it on `hz/state`, once per draft key,
with no lease (hz.review.approval_record). What is read comes from the tick's one fetch (the `TeamView`
of hz.review.sync): the remote's `main`, the draft branches and `hz/state`.

A draft was approved when its content reached `main`, however it got there: merged, rebased, squashed,
or edited by the reviewer first. Two signs count, never ancestry alone (a squash leaves the draft commit
out of `main`'s history, and an ancestor says nothing about a reviewer who reverted the file):

- a commit on `main` since the draft was placed names it in a `Hz-Draft: <key>` line (the draft
  commit's trailer, kept by a merge or a rebase, listed in the message of a squash);
- the draft's file on `main` changed since the draft's base, and its branch is gone or the forge says
  its pull request was merged.

It was rejected when its pull request was closed unmerged, its branch was deleted with nothing of it on
`main`, or a newer draft of the same output superseded it (then only a commit naming it approves it).
Who approved: the pull request's merger from the forge, else the committer of the commit that brought
the text to `main`, both mapped to a handle by the roster (hz.review.approval_roster).

Every tick that sees a draft waiting keeps its commit in hz's own refs, so the draft as placed can still
be compared with the approved text after a squash merge deleted its branch. A clone that never held it
(hz/state has only its hash) leaves an edited draft's approval to one that does, DRAFT_WAIT at most.
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Literal

from hz.canonical import fingerprint_bytes
from hz.errors import HzError
from hz.gitenv import git_env
from hz.gitstate import objects
from hz.gitstate.events import ApprovalObserved, DraftRejected, Event
from hz.gitstate.layout import event_digest
from hz.gitstate.remote import TeamRemote
from hz.gitstate.shapes import IDENT, occasion, slot_time
from hz.gitstate.types import format_utc
from hz.repo_paths import MAX_FILE_BYTES
from hz.review.approval_roster import UNKNOWN, Roster
from hz.review.approval_state import StateBook, remember, remembered, undecided
from hz.review.approvals import share_changed

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

    kind: Literal["approved", "rejected"]
    placed: Event  # its `draft.placed` on hz/state
    output: str
    receipt: Event  # the `approval.observed` or `draft.rejected` to record
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
    book = StateBook(remote.repo, view.state)
    known = remembered(remote.local_dir)
    pending, decided_now = undecided(book, main.output_of, known)
    remember(remote.local_dir, known, decided_now)
    found.unread = book.unread
    if not pending:
        return found
    since = min(_parse(p.ts) for p, _, _ in pending) - SINCE_MARGIN
    marks = main.trailers(since)
    for placed, output, superseded in pending:
        judge = Judge(main, placed, output, view, roster, now, forge is not None)
        try:
            fate = judge.decide(marks, None if superseded else _pull(forge, placed, output), superseded)
        except HzError as exc:  # the forge or git could not answer: this draft waits for the next tick
            found.errors.append(f"{placed.key}: {exc.message}")
            continue
        if fate is None:
            found.waiting += 1
            found.held += judge.held
        else:
            found.fates.append(fate)
    return found


def _pull(forge: Any, placed: Event, output: str) -> Any:
    """The pull request of this very draft (its body names the draft's key), or None."""
    if forge is None:
        return None
    pull = forge.pull_for_branch(branch_of(placed, output))
    mark = placed.key.split("@", 1)[1]
    return pull if pull is not None and mark in (pull.body or "") else None


def placed_copy(remote: TeamRemote, placed: Event) -> str:
    """Where this clone keeps a pending draft's commit (hz's own namespace, never pushed), so the draft as
    placed can still be read after its branch was deleted by the merge."""
    return remote.sync_prefix + f"placed/{placed.id}/{event_digest('draft.placed', placed.key)}"


def branch_of(placed: Event, output: str) -> str:
    return f"hz/draft/{placed.id.removeprefix('hz-')}/{output}"


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


@dataclass
class Judge:
    """One pending draft against main, its branch and its pull request."""

    main: Main
    placed: Event
    output: str
    view: Any
    roster: Roster
    now: datetime
    forge: bool = False  # this tick can ask the forge who merged
    held: bool = False  # approved, but left to a clone that holds the draft as placed

    @property
    def path(self) -> str:
        return str(self.placed.data["asset"]).partition(":")[2]

    def carrier(self) -> str | None:
        """The tip of a draft branch on the remote that still carries this draft, None when none does.

        A branch named for the contract and output names its draft in a `Hz-Draft` trailer; one of the
        older `hz/draft/<agent>/<slot>` branches names it in its commit's subject."""
        for branch in self.view.drafts.values():
            if self._names(branch.key, branch.trailers.get("Hz-Contract")):
                return str(branch.commit)
        mine = self.placed.key.split("@", 1)[1]
        for ref in getattr(self.view, "others", ()):
            tip = objects.resolve(self.main.repo, self.main.remote.tracking(ref))
            commit: Any = self.main.repo[tip] if tip is not None else None
            if commit is not None and commit.type_str == "commit" and mine in commit.message.split("\n", 1)[0]:
                return tip
        return None

    def draft_commit(self, carrier: str | None) -> str | None:
        """The draft's own commit, as placed: on the branch that carries it (under a reviewer's commits on
        top, if any), else the copy this clone kept of it, else the local branch its placing left here (the
        owner's clone: the look before the placing could keep no copy)."""
        copy = placed_copy(self.main.remote, self.placed)
        if carrier is not None:
            own = self._as_placed(carrier)
            objects.set_ref(self.main.repo, copy, own)  # kept: a squash merge may delete the branch
            return own
        kept = objects.resolve(self.main.repo, copy)
        if kept is not None:
            return kept
        local = objects.resolve(self.main.repo, f"refs/heads/{branch_of(self.placed, self.output)}")
        found = None if local is None else self._as_placed(local)
        return found if found is not None and self._placed_text("", found) is not None else None

    def _as_placed(self, tip: str) -> str:
        """The newest commit from `tip` down its first parents whose file is the draft as placed (its hash
        is on hz/state); `tip` itself when none of the first REVIEW_DEPTH is."""
        commit: Any = self.main.repo[tip]
        for _ in range(REVIEW_DEPTH):
            text = self.main.file_at(str(commit.id), self.path)
            if text is not None and fingerprint_bytes(text.encode("utf-8")) == self.placed.data["hash"]:
                return str(commit.id)
            if not commit.parents:
                break
            commit = commit.parents[0]
        return tip

    def _names(self, key: str | None, contract: str | None) -> bool:
        """Does a `Hz-Draft` value name this draft (the team's key, or a member's local key of it)?"""
        if not key or "@" not in key:
            return False
        ident, _, rest = key.partition("@")
        mine = self.placed.key.split("@", 1)[1]
        return rest == mine and (ident == self.placed.id or contract == self.placed.id.removeprefix("hz-"))

    def decide(
        self, marks: Mapping[str, Sequence[tuple[str, str | None, str | None]]], pull: Any, superseded: bool = False
    ) -> Fate | None:
        """Approved, rejected, or None (still waiting). A superseded draft is approved only when a commit on
        main names it (its file may have changed through the draft that replaced it); else rejected."""
        carrier = self.carrier()
        draft = self.draft_commit(carrier)
        named = [c for c, ident, contract in marks.get(self.placed.key.split("@", 1)[1], ())
                 if self._names(f"{ident}@{self.placed.key.split('@', 1)[1]}", contract)]  # fmt: skip
        merged = pull is not None and pull.merged
        on_main = pull.merge_commit if merged and pull.merge_commit and self.main.holds(pull.merge_commit) else None
        if named:
            return self._approved(on_main or self.main.merge_point(named[0]), draft, named[0], pull)
        if superseded:
            return self._rejected()
        base = self._base(draft)
        branch_gone = carrier is None
        changed = self.main.file_at(self.main.tip, self.path) != self.main.file_at(base, self.path)
        if changed and (branch_gone or merged):
            return self._approved(on_main or self.main.first_change(base, self.path), draft, None, pull)
        if (pull is not None and pull.state == "closed" and not merged) or branch_gone:
            return self._rejected()
        return None

    def _base(self, draft: str | None) -> str | None:
        if draft is not None:
            commit: Any = self.main.repo[draft]
            if commit.parents:
                return str(commit.parents[0].id)
        return self.main.base_at(_parse(self.placed.ts))

    def _approved(self, point: str, draft: str | None, named: str | None, pull: Any) -> Fate | None:
        if pull is None and not self.forge and self._by_the_forge(point):
            return None  # merged on the forge's web page: a tick that can ask it who merged records it
        approved = self.main.file_at(point, self.path) or ""
        placed_text = self._placed_text(approved, draft, named if named != point else None)
        if placed_text is None and self._recent(point, DRAFT_WAIT):
            # This clone never held the draft (a squash merge deleted its branch before any fetch here):
            # its share would be a guess. Its owner's clone kept the draft (hz/state has only its hash) and
            # records the true share; past DRAFT_WAIT with no such tick, the whole text counts as changed.
            self.held = True
            return None
        share = share_changed(placed_text, approved) if placed_text is not None else 1.0
        data = ApprovalObserved(
            key=self.placed.key,
            asset=str(self.placed.data["asset"]),
            approver=self._approver(point, pull),
            share_changed=share,
            output_fp=fingerprint_bytes(approved.encode("utf-8")),
        )
        return Fate("approved", self.placed, self.output, self._event("approval.observed", data), approved)

    def _placed_text(self, approved: str, *commits: str | None) -> str | None:
        """The draft as placed: a commit that holds exactly it (its hash is on hz/state), else None.

        When the approved text is the placed one (merged unedited) it is its own witness. None: no copy of
        the draft is left here (a squash merge deleted a branch this clone never fetched)."""
        wanted = str(self.placed.data["hash"])
        for text in (*(self.main.file_at(c, self.path) for c in commits), approved):
            if text is not None and fingerprint_bytes(text.encode("utf-8")) == wanted:
                return text
        return None

    def _by_the_forge(self, point: str) -> bool:
        """Did the forge itself commit `point` (a merge on its web page), within FORGE_WAIT? Its committer
        names no person; past FORGE_WAIT with no tick that has a forge, it is recorded with UNKNOWN."""
        committer = self.main.committer(point)
        return committer.casefold() in FORGE_COMMITTERS and self._recent(point, FORGE_WAIT)

    def _recent(self, point: str, wait: timedelta) -> bool:
        """Was `point` committed less than `wait` before this tick?"""
        when = self.main.git("log", "-1", "--format=%ct", point, "--").strip()
        return when.isdigit() and self.now.timestamp() - int(when) < wait.total_seconds()

    def _approver(self, point: str, pull: Any) -> str:
        if pull is not None and pull.merged and pull.merged_by:
            return self.roster.for_login(str(pull.merged_by)) or UNKNOWN
        return self.roster.for_email(self.main.committer(point))

    def _rejected(self) -> Fate:
        data = DraftRejected(key=self.placed.key, asset=str(self.placed.data["asset"]))
        return Fate("rejected", self.placed, self.output, self._event("draft.rejected", data))

    def _event(self, kind: Any, data: Any) -> Event:
        return Event.make(kind, id=self.placed.id, key=self.placed.key, ts=format_utc(self.now),
                          lease=self.placed.lease, token=self.placed.token, data=data)  # fmt: skip
