"""Team drafts on branches: `hz/draft/<contract id>/<output>@<key slug>` in the contract's own repository.

A team contract's `state:<path>` output is reviewed truth on `main`, so its draft never touches the
work tree: it is one commit on top of `main` (as the tick's fetch saw it, hz.review.sync) that changes
that one file, written in process (pygit2, as `hz/state`'s commits are), its branch moved by `git update-ref`
guarded by the tip it had. The branch is named for the draft's idempotency key (`hz.idempotency`, default
`{memo_key}`, see `draft_key`), so one key has
one pending draft: a newer draft of the same key is a new commit on `main` and the branch moves there
(the tick's push forces it, guarded by the tip it saw), and its pull request follows; a draft of another
key (another slot of a `{slot}` target) waits on its own branch beside it. The key's slug follows an
`@`, not a `/`: a folder `<output>/` could not exist beside a branch `<output>` that an older hz or an
amendment (`hz/draft/<contract id>/contract`) left, in the remote or in a clone. The commit's subject
names the contract, output and slot; its trailers carry what hz reads back (hz.review.sync parses them
from the fetched branches):

    Hz-Draft: <the team's draft key, hz-<contract id>@v<version>@<slot>@<asset>>
    Hz-Slot: <slot, hz.slots' one form>
    Hz-Contract: <contract id>
    Hz-Output: <output name>

The draft is found again by its key before anything is written. Merging the branch into `main` (a
pull request) approves the draft; closing or deleting it unmerged rejects it.

The commit is signed `hz <hz>`, like hz's commits on `hz/state` (`hz.gitstate.objects`): it never needs
the machine's git identity (an Actions runner has none), and it carries no member's name or address to
the forge. Who ran the slot is on `hz/state`, in the turn's receipts and the lease chain.
"""

from __future__ import annotations

import hashlib
import re
import subprocess
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cached_property
from pathlib import Path
from typing import Any

from hz.errors import HzError
from hz.gitenv import git_env
from hz.repo_paths import MAX_FILE_BYTES, fill_slot
from hz.review import drafts

ZERO = "0" * 40
# a contract id and an output name as one component of a ref name (what git allows, and no more)
_PART = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,99}$")


class GitFailed(HzError):
    """A git command hz ran to place or inspect a draft branch failed."""


DEFAULT_IDEMPOTENCY = "{memo_key}"
_SLUG_CHARS = re.compile(r"[^A-Za-z0-9_]+")
SLUG_TEXT = 48  # characters of the key kept readable in the branch name, before its digest


def draft_key(template: str, contract: str, slot: datetime, asset: str) -> str:
    """A team draft's idempotency key: the contract's `hz.idempotency` filled in. `{contract}` is its id,
    `{slot}`/`{slot:<strftime>}` the slot, and `{memo_key}` the draft's asset (its target filled for the
    slot): hz keeps no memo of inputs, and the file a draft writes is what a newer draft of it replaces,
    so drafts of one file supersede each other and drafts of different files wait side by side."""
    return fill_slot(template.replace("{contract}", contract).replace("{memo_key}", asset), slot)


def key_slug(key: str) -> str:
    """The key as one component of a branch name: its letters and digits, then a digest of the whole key
    (two keys that read alike never share a branch)."""
    readable = _SLUG_CHARS.sub("-", key).strip("-")[:SLUG_TEXT].strip("-")
    digest = hashlib.sha256(key.encode("utf-8")).hexdigest()[:10]
    return f"{readable}-{digest}" if readable else digest


def branch_name(contract: str, output: str, key: str | None = None) -> str:
    """`hz/draft/<contract id>/<output>@<key slug>`: the one branch of a key's pending draft (without a
    key, `hz/draft/<contract id>/<output>`: the form of drafts placed before keys, and of amendments)."""
    for part, what in ((contract, "contract id"), (output, "output name")):
        if not _PART.match(part):
            raise drafts.DraftTargetError(
                f"the {what} {part[:60]!r} cannot name a draft branch", hint="use letters, digits, - and _"
            )
    base = f"hz/draft/{contract}/{output}"
    return base if key is None else f"{base}@{key_slug(key)}"


def old_branch_name(agent_id: str, slot: datetime) -> str:
    """The name drafts had before they were named for the contract: `hz/draft/<agent id>/<slot>`."""
    return f"hz/draft/{agent_id}/{slot.astimezone(UTC).strftime('%Y-%m-%dT%H%MZ')}"


def team_key(key: str, contract: str) -> str:
    """The team's key of a draft a member placed under its own agent id: the contract's id instead."""
    return f"hz-{contract}@{key.split('@', 1)[1]}"


def shown_key(key: str, place: str) -> str:
    """The key a member's draft is shown by: the team's (`hz-<contract id>@…`) when it waits on a branch
    named for its contract, else its own (a personal draft, an older `hz/draft/<agent id>/<slot>` one)."""
    contract = place.removeprefix("hz/draft/").partition("/")[0] if place.startswith("hz/draft/") else ""
    return team_key(key, contract) if _PART.match(contract) and not contract.startswith("hz-") else key


def message(tag: drafts.Tag, contract: str, output: str) -> str:
    """The draft commit's message: a subject for a branch and its pull request, then hz's trailers."""
    slot = tag.key.split("@")[2]
    subject = f"hz draft: {tag.name} · {output} for {slot}"
    trailers = {"Hz-Draft": team_key(tag.key, contract), "Hz-Slot": slot, "Hz-Contract": contract, "Hz-Output": output}
    return subject + "\n\n" + "".join(f"{name}: {value}\n" for name, value in trailers.items())


def _git(root: Path, *args: str, stdin: bytes | None = None, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(
        ["git", "-C", str(root), *args], input=stdin, capture_output=True, env=git_env(env), check=False
    )
    if done.returncode != 0:
        raise GitFailed(f"git {' '.join(args[:2])} failed: {done.stderr.decode(errors='replace').strip()}")
    return done.stdout.decode("utf-8", errors="replace").strip()


def _git_bytes(root: Path, *args: str) -> bytes:
    done = subprocess.run(["git", "-C", str(root), *args], capture_output=True, env=git_env(), check=False)
    if done.returncode != 0:
        raise GitFailed(f"git {' '.join(args[:2])} failed: {done.stderr.decode(errors='replace').strip()}")
    return done.stdout


def _repo(root: Path) -> Any:
    """The repository at `root`, read in process (pygit2): a draft's bookkeeping reads refs and objects many
    times a turn, and a git process for each read was most of a team turn's git processes (issue 22).
    None where there is none: every read then finds nothing, as git's did."""
    import pygit2

    from hz.gitstate.objects import open_repo

    try:
        return open_repo(root)
    except (pygit2.GitError, KeyError, ValueError):
        return None


def _rev(root: Path, ref: str, repo: Any = None) -> str | None:
    """The commit `ref` names (peeled, as `rev-parse <ref>^{commit}`), None when it names none."""
    import pygit2

    repo = repo or _repo(root)
    if repo is None:
        return None
    try:
        return str(repo.revparse_single(f"{ref}^{{commit}}").id)
    except (KeyError, ValueError, pygit2.GitError):
        return None


def _ancestor(repo: Any, commit: str, of: str | None) -> bool:
    """Whether `commit` is `of` or one of its ancestors (`merge-base --is-ancestor`)."""
    if of is None or repo is None:
        return False
    return commit == of or bool(repo.descendant_of(of, commit))


def branch_moved(root: Path, branch: str, key: str) -> bool:
    """A draft branch was deleted or merged into main (a cheap check the idle tick can afford). A team
    draft's fate is read from hz/state by the tick (hz.review.approval_sweep); a superseded one's branch
    holds the newer draft and does not count as moved here: the decision is recorded there first."""
    repo = _repo(root)
    tip = _rev(root, f"refs/heads/{branch}", repo)
    if tip is None:
        return True
    return _ancestor(repo, tip, _rev(root, main_ref(root, repo), repo))


def main_ref(root: Path, repo: Any = None) -> str:
    repo = repo or _repo(root)
    for ref in ("refs/heads/main", "refs/heads/master"):
        if _rev(root, ref, repo):
            return ref
    return "HEAD"


def base_ref(root: Path) -> str:
    """What a new draft is made on: the remote's main as the tick fetched it (hz.review.sync), else the
    clone's own main. A member who never pulls still drafts on the team's current main."""
    from hz.review.sync import fetched_main

    return fetched_main(root) or main_ref(root)


def _tip_key(root: Path, ref: str) -> tuple[str | None, str | None]:
    """(the commit at `ref`, its `Hz-Draft` trailer), (None, None) when there is no such branch."""
    import pygit2

    repo = _repo(root)
    try:
        commit = repo.references[ref].peel(pygit2.Commit)
    except (AttributeError, KeyError, ValueError, pygit2.GitError):  # AttributeError: no repository
        return None, None
    try:
        named = str(commit.message_trailers.get("Hz-Draft") or "").split()
    except (ValueError, pygit2.GitError):
        named = []
    return str(commit.id), (named[-1] if named else None)


@dataclass(frozen=True)
class BranchTarget:
    root: Path
    asset: str
    place: str  # the branch name
    path: str  # the file's path in the repository
    contract: str = ""  # the contract's id ("" for a draft on an older `hz/draft/<agent>/<slot>` branch)
    output: str = ""

    @classmethod
    def create(
        cls, root: Path, contract: str, output: str, asset: str, slot: datetime, place: str | None = None
    ) -> BranchTarget:
        """The target on branch `place` (default `hz/draft/<contract>/<output>`, an amendment's)."""
        drafts.target_path(root, asset, slot, team=True)  # the repository's path rule, `.github/` included
        branch = place or branch_name(contract, output)
        target = cls(root, asset, branch, asset.partition(":")[2], contract, output)
        target._folders_on(target._main)  # the draft's tree is main's, which may differ from the work tree
        return target

    @classmethod
    def old(cls, root: Path, branch: str, asset: str, slot: datetime) -> BranchTarget:
        """A draft placed on an older `hz/draft/<agent>/<slot>` branch, found by its subject's tag (a team
        contract with no `id:` still drafts this way, on main's tree too: its folders are checked there)."""
        drafts.target_path(root, asset, slot, team=True)
        target = cls(root, asset, branch, asset.partition(":")[2])
        target._folders_on(target._main)
        return target

    def _folders_on(self, rev: str) -> None:
        """Every folder of the path is a folder (or absent) on `rev`: a link or a submodule there, which the
        work tree may not show, would take the draft elsewhere or make git refuse it after the think."""
        names = self.path.split("/")
        for depth in range(1, len(names)):
            prefix = "/".join(names[:depth])
            kind, _ = self._object(f"{rev}:{prefix}")
            if kind not in (None, "tree"):
                raise self._refused(f"goes through {prefix} on {rev}, which is a link, a file or a submodule there")

    def _commit_of(self, key: str) -> str | None:
        """The local branch's commit of the draft placed under `key`: its tip, when that names the key
        (the team's form, or this member's own for an older branch's subject)."""
        if not self.contract:
            return self._tagged(key)
        commit, named = _tip_key(self.root, f"refs/heads/{self.place}")
        return commit if commit is not None and named == team_key(key, self.contract) else None

    def _tagged(self, key: str) -> str | None:
        if _rev(self.root, f"refs/heads/{self.place}") is None:
            return None
        log = _git(self.root, "log", "--format=%H %s", f"refs/heads/{self.place}", "--", self.path)
        for line in log.splitlines():
            commit, _, subject = line.partition(" ")
            tag = drafts.Tag.parse(subject)
            if tag is not None and tag.key == key:
                return commit
        return None

    def _file_at(self, rev: str) -> str | None:
        """The text of the target at `rev`, None when it has none there.

        What is there comes from a commit anyone on the team can make, and goes into the turn's body and
        the approval: a folder or a submodule, a blob beyond `MAX_FILE_BYTES` or one that is no UTF-8
        text is a DraftTargetError with its reason, never read whole and never a crash.
        """
        spec = f"{rev}:{self.path}"
        kind, size = self._object(spec)
        if kind is None:
            return None
        if kind != "blob":
            raise self._refused(f"is a {'folder' if kind == 'tree' else 'submodule'} on {rev}, not a file")
        if size > MAX_FILE_BYTES:
            raise self._refused(f"is larger than {MAX_FILE_BYTES // 1024} KiB on {rev}")
        data = bytes(self._repo[self._entry(spec).id].data)
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            raise self._refused(f"holds no UTF-8 text on {rev}") from None

    @cached_property
    def _repo(self) -> Any:
        return _repo(self.root)

    @cached_property
    def _main(self) -> str:
        """`base_ref`, read once a target: finding it reads `hz.toml` and the team's refs each time."""
        return base_ref(self.root)

    def _entry(self, spec: str) -> Any:
        """The tree entry `<rev>:<path>` names (None: none), read from the tree itself: a submodule's commit
        is named there though it is never in this repository."""
        rev, _, path = spec.partition(":")
        if self._repo is None:
            return None
        commit = _rev(self.root, rev, self._repo)
        if commit is None:
            return None
        try:
            return self._repo[commit].tree[path]
        except (KeyError, ValueError):
            return None

    def _object(self, spec: str) -> tuple[str | None, int]:
        """(type, size) of the object `spec` names, (None, 0) when it names none."""
        entry = self._entry(spec)
        if entry is None:
            return None, 0
        if entry.type_str != "blob":
            return entry.type_str, 0
        blob = self._repo.get(entry.id)
        return ("blob", int(blob.size)) if blob is not None else (None, 0)

    def _refused(self, reason: str) -> drafts.DraftTargetError:
        return drafts.DraftTargetError(f"the target {self.asset!r} {reason}", hint="fix the file on main by hand")

    def lookup(self, key: str) -> str | None:
        commit = self._commit_of(key)
        text = self._file_at(commit) if commit else None
        return None if text is None else drafts.draft_hash(text)

    def current(self) -> str | None:
        return self._file_at(self._main)

    def write(self, tag: drafts.Tag, text: str) -> str:
        """One commit on main holding the draft; the branch moves there, whatever draft it held before."""
        body = text if text.endswith("\n") else text + "\n"
        from hz.gitstate.objects import make_commit, write_tree

        if self._repo is None:
            raise GitFailed(f"{self.root} is not a git repository: the draft branch {self.place} has none to live in")
        old = _rev(self.root, f"refs/heads/{self.place}", self._repo)
        base = _rev(self.root, self._main, self._repo)
        tree = write_tree(self._repo, self._repo[base].tree_id if base else None, {self.path: body.encode("utf-8")})
        said = message(tag, self.contract, self.output) if self.contract else tag.line()
        said = said if said.endswith("\n") else said + "\n"
        commit = make_commit(self._repo, tree, [base] if base else [], said, datetime.now(UTC))
        # the branch moves by git, guarded by the tip read above: another process of this clone may move it too
        _git(self.root, "update-ref", f"refs/heads/{self.place}", commit, old or ZERO)
        return drafts.draft_hash(body)

    def observe(self, key: str) -> drafts.Observation:
        commit = self._commit_of(key)
        main = self._main
        if commit is not None:
            if _ancestor(self._repo, commit, _rev(self.root, main, self._repo)):
                return drafts.Observation("approved", self._file_at(main))
            return drafts.Observation("pending")
        if _rev(self.root, f"refs/heads/{self.place}", self._repo) is not None:
            return drafts.Observation("superseded")  # the branch holds a newer draft of the same key
        return drafts.Observation("rejected")

    def delete(self) -> None:
        """Drop the draft branch (a rejected draft); its commits stay reachable through the reflog only."""
        old = _rev(self.root, f"refs/heads/{self.place}")
        if old is not None:
            _git(self.root, "update-ref", "-d", f"refs/heads/{self.place}", old)
