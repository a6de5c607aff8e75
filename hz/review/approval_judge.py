"""One pending team draft judged against the fetched `main`: approved by a member, rejected, or waiting.

The rule (DESIGN.md, "Team operation"; docs/decisions.md, issue 19): a draft is approved when a commit on
`main`'s first-parent line since the draft's base, made or merged by a member of the roster on `main`,
brings the draft's target path to text derived from the placed draft: at most DERIVED_MAX of its words
changed (the share is recorded). The merger is the forge's, for the merge commit of the draft's own pull
request; else the commit's committer. Trailers (`Hz-Draft:`) and pull request numbers only help find the
draft as placed and the merger; alone they approve nothing. An open pull request is never approved.

Rejected: its pull request closed unmerged (by the closer, through the roster), or its branch gone with
no member's commit bringing it to `main` (by `@unknown`). Superseded: a newer draft of the same
idempotency key was placed; recorded as `draft.superseded` under the newer draft's lease term.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from hz.canonical import fingerprint_bytes
from hz.errors import HzError
from hz.gitstate import objects
from hz.gitstate.events import ApprovalObserved, DraftRejected, DraftSuperseded, Event
from hz.gitstate.types import format_utc
from hz.review.approval_roster import UNKNOWN, Roster
from hz.review.approvals import share_changed

if TYPE_CHECKING:
    from hz.review.approval_watch import Main

DERIVED_MAX = 0.5  # the share of the draft's words a reviewer may change for the text to still be its own
MAX_CANDIDATES = 200  # commits of main that changed the draft's path, looked at per draft and tick


@dataclass
class Judge:
    """One pending draft against main, its branch and its pull request."""

    main: Main
    placed: Event
    output: str
    view: Any
    roster: Roster
    now: datetime
    forge: Any = None  # the forge, when this tick has one (it names mergers and closers)
    authors: frozenset[str] = frozenset()  # the members whose agent drafted it: a self-approval
    held: bool = False  # approved, but left to a clone that holds the draft as placed
    rival: str | None = None  # the text of the newer draft that replaced this one, when there is one
    branch: str = ""  # the branch of its idempotency key (Main.branch_of)

    @property
    def path(self) -> str:
        return str(self.placed.data["asset"]).partition(":")[2]

    @property
    def occasion(self) -> str:
        return self.placed.key.split("@", 1)[1]

    # -- the draft's own commit and text

    def carrier(self) -> str | None:
        """The tip of a draft branch on the remote that still carries this draft, None when none does.

        A branch named for the contract names its draft in a `Hz-Draft` trailer; one of the older
        `hz/draft/<agent>/<slot>` branches names it in its commit's subject."""
        for branch in self.view.drafts.values():
            if self._names(branch.key, branch.trailers.get("Hz-Contract")):
                return str(branch.commit)
        for ref in getattr(self.view, "others", ()):
            tip = objects.resolve(self.main.repo, self.main.remote.tracking(ref))
            commit: Any = self.main.repo[tip] if tip is not None else None
            if commit is not None and commit.type_str == "commit" and self.occasion in commit.message.split("\n", 1)[0]:
                return tip
        return None

    def draft_commit(self, carrier: str | None) -> str | None:
        """The draft's own commit, as placed: on the branch that carries it (under a reviewer's commits on
        top, if any), else the copy this clone kept of it, else the local branch its placing left here."""
        from hz.review.approval_watch import branch_of, local_branches, placed_copy

        copy = placed_copy(self.main.remote, self.placed)
        if carrier is not None:
            own = self._as_placed(carrier)
            objects.set_ref(self.main.repo, copy, own)  # kept: a squash merge may delete the branch
            return own
        kept = objects.resolve(self.main.repo, copy)
        if kept is not None:
            return kept
        for local in local_branches(self.main, self.placed, self.branch or branch_of(self.placed, self.output)):
            found = self._as_placed(local)
            if self._placed_text("", found) is not None:
                return found
        return None

    def _as_placed(self, tip: str) -> str:
        """The newest commit from `tip` down its first parents whose file is the draft as placed (its hash
        is on hz/state); `tip` itself when none of the first REVIEW_DEPTH is."""
        from hz.review.approval_watch import REVIEW_DEPTH

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
        return rest == self.occasion and (ident == self.placed.id or contract == self.placed.id.removeprefix("hz-"))

    def _placed_text(self, approved: str, *commits: str | None) -> str | None:
        """The draft as placed: a commit that holds exactly it (its hash is on hz/state), else None. When
        the approved text is the placed one (merged unedited) it is its own witness."""
        wanted = str(self.placed.data["hash"])
        for text in (*(self.main.file_at(c, self.path) for c in commits if c), approved):
            if text is not None and fingerprint_bytes(text.encode("utf-8")) == wanted:
                return text
        return None

    def _text_of(self, newer: Event) -> str | None:
        """The text of the newer draft as placed, from the branch that carries it (None: not here)."""
        other = Judge(self.main, newer, self.output, self.view, self.roster, self.now, branch=self.branch)
        commit = other.draft_commit(other.carrier())
        return other._placed_text("", commit)

    # -- the verdict

    def decide(
        self, marks: Mapping[str, Sequence[tuple[str, str | None, str | None]]], pull: Any, newer: Event | None = None
    ) -> Event | None:
        """The receipt of this draft's fate, or None while it waits. `newer`: the draft of the same
        idempotency key placed after it (then, unless a member approved this one first, it is superseded)."""
        carrier = self.carrier()
        draft = self.draft_commit(carrier)
        if pull is not None and pull.state == "open":
            return None  # under review: an open pull request is never approved, whatever main holds
        mine = self.occasion
        named = [c for c, ident, contract in marks.get(mine, ()) if self._names(f"{ident}@{mine}", contract)]
        witnesses = (draft, *named)  # commits that may hold the draft as placed
        base = self._base(draft)
        self.rival = None if newer is None else self._text_of(newer)
        for point, merger in [*self._candidates(base, pull), *self._merged_here(draft)]:
            merged = merger is not None or self.main.merges(point, draft)
            receipt = self._approval_at(point, merger, witnesses, carrier is None or merged, merged)
            if receipt is not None or self.held:
                return receipt
        if newer is not None:
            return self._superseded(newer)
        if pull is not None and not pull.merged:  # closed unmerged
            return self._rejected(self._closer(pull))
        if carrier is None:
            return self._rejected(UNKNOWN)
        return None

    def _candidates(self, base: str | None, pull: Any) -> list[tuple[str, str | None]]:
        """(commit, the forge's merger or None) to judge, in order: the merge commit of the draft's own
        pull request, then each commit of main's first-parent line since `base` that changed the path."""
        found: list[tuple[str, str | None]] = []
        if pull is not None and pull.merged and pull.merge_commit and self.main.holds(pull.merge_commit):
            found.append((str(pull.merge_commit), str(pull.merged_by or "") or None))
        if base == self.main.tip:  # main has not moved since the draft branched off it: nothing to list
            return found
        span = f"{base}..{self.main.tip}" if base is not None else self.main.tip
        listed = self.main.git("rev-list", "--first-parent", "--reverse", f"--max-count={MAX_CANDIDATES}", span,
                               "--", self.path).split()  # fmt: skip
        found += [(commit, None) for commit in listed if commit not in {c for c, _ in found}]
        return found

    def _merged_here(self, draft: str | None) -> list[tuple[str, str | None]]:
        """The merge commit of main's first-parent line that brought the draft commit in (`git merge
        --no-ff` of its branch), when main holds the draft but no commit listed for its path is that merge:
        its first parent already held the text (someone pasted it first). Read in process; a git process
        only when main holds the draft commit."""
        try:
            if draft is None or draft == self.main.tip or not self.main.repo.descendant_of(self.main.tip, draft):
                return []
        except (KeyError, ValueError):  # an object this clone lacks: nothing to judge here
            return []
        point = self.main.merge_point(draft)
        return [(point, None)] if point != draft and self.main.merges(point, draft) else []

    def _base(self, draft: str | None) -> str | None:
        if draft is not None:
            commit: Any = self.main.repo[draft]
            if commit.parents:
                return str(commit.parents[0].id)
        return self.main.base_at(_parse(self.placed.ts))

    def _approval_at(
        self, point: str, merger: str | None, witnesses: Sequence[str | None], trusted: bool, merged: bool = False
    ) -> Event | None:
        """The approval `point` makes, if it is one: it changed the path, a member made or merged it, and
        the text there is derived from the draft. `trusted`: the draft's branch is gone or the forge merged
        its pull request, so a text this clone cannot compare (it never held the draft) counts once no
        clone that can has recorded it within DRAFT_WAIT. `merged`: `point` merges the draft's own branch (the
        forge's merge of its pull request, or a merge commit holding the draft commit): the reviewer's text
        on that branch is approved however much of it they rewrote."""
        from hz.review.approval_watch import DRAFT_WAIT, FORGE_WAIT

        approved = self.main.file_at(point, self.path)
        parent = self.main.first_parent(point)
        if approved is None or (not merged and parent is not None and self.main.file_at(parent, self.path) == approved):
            # it did not bring the path anywhere (a trailer on some other commit, a deletion). A merge of the
            # draft (the forge's of its pull request, a merge commit holding the draft commit) is judged even
            # so: someone (an outsider pasting the text first) may have brought the path there before it
            return None
        approver = self._approver(point, merger)
        if approver is None:
            if merger is None and self.forge is None and self.main.by_the_forge(point, self.now, FORGE_WAIT):
                self.held = True  # merged on the forge's web page: a tick with a forge names the merger
            return None
        placed_text = self._placed_text(approved, *witnesses)
        if placed_text is None:
            if not trusted:
                return None
            if self.main.recent(point, self.now, DRAFT_WAIT):
                self.held = True  # a clone that holds the draft records the true share
                return None
            share = 1.0
        else:
            share = share_changed(placed_text, approved)
            if share > DERIVED_MAX and not merged:
                return None  # someone else's text at the draft's path, not the draft edited
            if self.rival is not None and share_changed(self.rival, approved) <= share:
                return None  # the newer draft of the same key, merged: not this one's approval
        data = ApprovalObserved(
            key=self.placed.key,
            asset=str(self.placed.data["asset"]),
            approver=approver,
            share_changed=share,
            output_fp=fingerprint_bytes(approved.encode("utf-8")),
            self_approved=approver in self.authors,
        )
        return self._event("approval.observed", data)

    def _approver(self, point: str, merger: str | None) -> str | None:
        """The member who merged (the forge's merger) or made (the committer) `point`; None: no member."""
        if merger is not None:
            return self.roster.member_login(merger)
        return self.roster.member_email(self.main.committer(point))

    def _closer(self, pull: Any) -> str:
        closer = getattr(self.forge, "closer", None)
        try:
            login = closer(pull.number) if closer is not None else None
        except HzError:
            login = None
        return (self.roster.member_login(login) if login else None) or UNKNOWN

    def _rejected(self, by: str) -> Event:
        data = DraftRejected(key=self.placed.key, asset=str(self.placed.data["asset"]), by=by)
        return self._event("draft.rejected", data)

    def _superseded(self, newer: Event) -> Event:
        data = DraftSuperseded(key=self.placed.key, asset=str(self.placed.data["asset"]), by=newer.key)
        # written under the newer draft's lease term: the turn that replaced it
        return Event.make("draft.superseded", id=self.placed.id, key=self.placed.key, ts=format_utc(self.now),
                          lease=newer.lease, token=newer.token, data=data)  # fmt: skip

    def _event(self, kind: Any, data: Any) -> Event:
        return Event.make(kind, id=self.placed.id, key=self.placed.key, ts=format_utc(self.now),
                          lease=self.placed.lease, token=self.placed.token, data=data)  # fmt: skip


def _parse(ts: str) -> datetime:
    return datetime.fromisoformat(ts.replace("Z", "+00:00"))
