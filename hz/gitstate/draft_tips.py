"""A draft's hash against its branch: the `hash` of a `draft.placed` is the text the draft branch holds.

A team draft is one commit on a `hz/draft/<contract id>/<output>` branch (hz.review.branches) whose
`Hz-Draft:` trailer names the draft's key and whose file at the asset's path is the draft; its
`draft.placed` on `hz/state` carries `sha256:` of that file's bytes (hz.review.drafts.draft_hash). The
tick pushes both in one atomic push, so the hook can hold the one to the other; an unchecked hash would be
256 chosen bits per draft. Where hz can compare:

- the hook (`strict`): every draft branch tip of the push whose message names the key, whoever signed it
  (hz writes that commit and pushes it with the event; nothing else may name the key there);
- `hz state lint` in a clone: the draft branch tips the clone has (its own branches, git's and hz's
  copies of the remote's), but only commits hz signed as author and committer: a reviewer who amends
  the draft on its branch leaves a commit of their own, which is no longer the placed draft.

A key no tip names is not checked (the branch moved on to a newer draft, or was merged and deleted).
Raw objects (hz.gitstate.odb) and no model: the hook runs it on every push that places a draft.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from hz.gitstate.odb import Commit, Repo

DRAFT_BRANCHES = "refs/heads/hz/draft/"
TRAILER = "Hz-Draft:"
MAX_DRAFT_BYTES = 1 << 20  # hz.repo_paths.MAX_FILE_BYTES: a draft larger than this was never placed by hz
HINT = "a draft.placed carries sha256 of the file its draft branch holds, pushed with it"
_LOCAL = ("refs/heads/hz/draft/", "refs/remotes/", "refs/hz/sync/")  # and within those, drafts and kept copies


class DraftTips:
    """The draft commits a push (or a clone) holds, by the draft key their `Hz-Draft:` trailer names."""

    def __init__(self, repo: Repo, commits: Iterable[str], *, strict: bool) -> None:
        from hz.gitstate.odb import objects_of

        self.objects = objects_of(repo)
        self.strict = strict  # the hook: any commit naming the key; a clone: hz's own commits only
        self._commits = list(commits)
        self._by_key: dict[str, list[Commit]] | None = None

    @classmethod
    def pushed(cls, repo: Repo, updates: Iterable[tuple[str, str, str]]) -> DraftTips:
        """The new tips of the draft branches a push writes (`(old, new, ref)` as the hook reads them)."""
        return cls(repo, [new for _, new, ref in updates if ref.startswith(DRAFT_BRANCHES) and set(new) != {"0"}],
                   strict=True)  # fmt: skip

    @classmethod
    def local(cls, repo: Repo) -> DraftTips:
        """Every draft branch tip a clone has: its own, its copies of the remote's, and the copies hz keeps of
        pending drafts (`refs/hz/sync/<remote>/placed/…`, hz.review.placed_copies)."""
        from hz.gitstate.odb import objects_of

        objects = objects_of(repo)
        refs = {name: oid for prefix in _LOCAL for name, oid in objects.refs(prefix).items()}
        tips = [oid for ref, oid in sorted(refs.items()) if "/hz/draft/" in ref or "/placed/" in ref]
        return cls(objects, tips, strict=False)

    def problem(self, key: str, asset: str, digest: str) -> str | None:
        """Why a `draft.placed` of `key` for `asset` with hash `digest` is not what its branch holds (None: it is,
        or no commit here names it). Several commits may name one key (a fenced holder's unpushed draft beside
        the winner's in a clone): one that holds the hash is enough."""
        said = None
        for commit in self._tips().get(key, []):
            said = self._differs(commit, asset.partition(":")[2], digest)
            if said is None:
                return None
        return said

    def _differs(self, commit: Commit, path: str, digest: str) -> str | None:
        entry = self.objects.at(commit.tree, path)
        if entry is None:
            return f"the draft branch's commit {commit.oid[:12]} has no file {path}"
        kind, size = self.objects.header(entry.oid)
        if kind != "blob" or size > MAX_DRAFT_BYTES:
            return f"{path} on the draft branch's commit {commit.oid[:12]} is no draft hz places"
        actual = "sha256:" + hashlib.sha256(self.objects.read(entry.oid)[1]).hexdigest()
        if actual != digest:
            return f"hash {digest} is not that of {path} on the draft branch's commit {commit.oid[:12]} ({actual})"
        return None

    def _tips(self) -> dict[str, list[Commit]]:
        if self._by_key is None:
            self._by_key = {}
            for oid in dict.fromkeys(self._commits):
                commit = self.objects.commit(oid)
                if commit is None or not (self.strict or _hz_signed(commit)):
                    continue
                if (key := named_key(commit.message.decode("utf-8", "replace"))) is not None:
                    self._by_key.setdefault(key, []).append(commit)
        return self._by_key


def named_key(message: str) -> str | None:
    """The draft key a commit message's last `Hz-Draft:` line names (None: none)."""
    found = None
    for line in message.splitlines():
        if line.startswith(TRAILER):
            found = line.removeprefix(TRAILER).strip() or None
    return found


def _hz_signed(commit: Commit) -> bool:
    """Author and committer are both hz's own name (hz.gitstate.objects.SIGNATURE_NAME)."""
    from hz.gitstate.objects import SIGNATURE_NAME

    names = [line.split(b" ", 1)[1].split(b"<", 1)[0].rstrip() for line in commit.raw.partition(b"\n\n")[0].split(b"\n")
             if line.startswith((b"author ", b"committer "))]  # fmt: skip
    return len(names) == 2 and all(name == SIGNATURE_NAME.encode() for name in names)
