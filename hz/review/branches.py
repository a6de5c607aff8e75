"""Team drafts on branches: `hz/draft/<contract id>/<output>@<key slug>` in the contract's own repository.

A team contract's `state:<path>` output is reviewed truth on `main`, so its draft never touches the
work tree: it is one commit on top of `main` (as the tick's fetch saw it, hz.review.sync) that changes
that one file, made with a private index (`GIT_INDEX_FILE`) and `git commit-tree`. The branch is named
for the draft's idempotency key (`hz.idempotency`, default `{memo_key}`, see `draft_key`), so one key has
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
import os
import re
import subprocess
import tempfile
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from hz.errors import HzError
from hz.gitenv import git_env
from hz.gitstate.objects import SIGNATURE_NAME
from hz.repo_paths import MAX_FILE_BYTES, fill_slot
from hz.review import drafts

ZERO = "0" * 40
# git's identity for the draft commit, set for that one process: no user.name/user.email is consulted
HZ_IDENTITY = {
    "GIT_AUTHOR_NAME": SIGNATURE_NAME,
    "GIT_AUTHOR_EMAIL": SIGNATURE_NAME,
    "GIT_COMMITTER_NAME": SIGNATURE_NAME,
    "GIT_COMMITTER_EMAIL": SIGNATURE_NAME,
}
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


def _rev(root: Path, ref: str) -> str | None:
    done = subprocess.run(
        ["git", "-C", str(root), "rev-parse", "-q", "--verify", f"{ref}^{{commit}}"],
        capture_output=True,
        env=git_env(),
        check=False,
    )
    return done.stdout.decode().strip() if done.returncode == 0 else None


def branch_moved(root: Path, branch: str, key: str) -> bool:
    """A draft branch was deleted or merged into main (a cheap check the idle tick can afford). A team
    draft's fate is read from hz/state by the tick (hz.review.approval_sweep); a superseded one's branch
    holds the newer draft and does not count as moved here: the decision is recorded there first."""
    tip = _rev(root, f"refs/heads/{branch}")
    if tip is None:
        return True
    merged = subprocess.run(["git", "-C", str(root), "merge-base", "--is-ancestor", tip, main_ref(root)],
                            capture_output=True, env=git_env(), check=False)  # fmt: skip
    return merged.returncode == 0


def main_ref(root: Path) -> str:
    for ref in ("refs/heads/main", "refs/heads/master"):
        if _rev(root, ref):
            return ref
    return "HEAD"


def base_ref(root: Path) -> str:
    """What a new draft is made on: the remote's main as the tick fetched it (hz.review.sync), else the
    clone's own main. A member who never pulls still drafts on the team's current main."""
    from hz.review.sync import fetched_main

    return fetched_main(root) or main_ref(root)


def _tip_key(root: Path, ref: str) -> tuple[str | None, str | None]:
    """(the commit at `ref`, its `Hz-Draft` trailer), (None, None) when there is no such branch."""
    said = "--format=%(objectname) %(trailers:key=Hz-Draft,valueonly,separator=%x20)"
    done = subprocess.run(["git", "-C", str(root), "for-each-ref", said, ref], capture_output=True, env=git_env(),
                          check=False)  # fmt: skip
    line = done.stdout.decode("utf-8", errors="replace").strip()
    if done.returncode != 0 or not line:
        return None, None
    commit, _, key = line.partition(" ")
    return commit, (key.split()[-1] if key.split() else None)


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
        target._folders_on(base_ref(root))  # the draft's tree is main's, which may differ from the work tree
        return target

    @classmethod
    def old(cls, root: Path, branch: str, asset: str, slot: datetime) -> BranchTarget:
        """A draft placed on an older `hz/draft/<agent>/<slot>` branch, found by its subject's tag (a team
        contract with no `id:` still drafts this way, on main's tree too: its folders are checked there)."""
        drafts.target_path(root, asset, slot, team=True)
        target = cls(root, asset, branch, asset.partition(":")[2])
        target._folders_on(base_ref(root))
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
        data = _git_bytes(self.root, "cat-file", "blob", spec)
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            raise self._refused(f"holds no UTF-8 text on {rev}") from None

    def _object(self, spec: str) -> tuple[str | None, int]:
        """(type, size) of the object `spec` names, (None, 0) when it names none."""
        done = subprocess.run(
            ["git", "-C", str(self.root), "cat-file", "--batch-check=%(objecttype) %(objectsize)"],
            input=spec.encode("utf-8") + b"\n", capture_output=True, env=git_env(), check=False,
        )  # fmt: skip
        kind, _, size = done.stdout.decode("utf-8", errors="replace").strip().partition(" ")
        if done.returncode != 0 or not size.isdigit():  # "<spec> missing"
            return None, 0
        return kind, int(size)

    def _refused(self, reason: str) -> drafts.DraftTargetError:
        return drafts.DraftTargetError(f"the target {self.asset!r} {reason}", hint="fix the file on main by hand")

    def lookup(self, key: str) -> str | None:
        commit = self._commit_of(key)
        text = self._file_at(commit) if commit else None
        return None if text is None else drafts.draft_hash(text)

    def current(self) -> str | None:
        return self._file_at(base_ref(self.root))

    def write(self, tag: drafts.Tag, text: str) -> str:
        """One commit on main holding the draft; the branch moves there, whatever draft it held before."""
        body = text if text.endswith("\n") else text + "\n"
        old = _rev(self.root, f"refs/heads/{self.place}")
        base = _rev(self.root, base_ref(self.root))
        blob = _git(self.root, "hash-object", "-w", "--stdin", stdin=body.encode("utf-8"))
        with tempfile.TemporaryDirectory() as scratch:
            env = {**os.environ, "GIT_INDEX_FILE": str(Path(scratch) / "index")}
            if base:
                _git(self.root, "read-tree", base, env=env)
            _git(self.root, "update-index", "--add", "--cacheinfo", f"100644,{blob},{self.path}", env=env)
            tree = _git(self.root, "write-tree", env=env)
        parents = ["-p", base] if base else []
        said = message(tag, self.contract, self.output) if self.contract else tag.line()
        commit = _git(self.root, "commit-tree", tree, *parents, "-m", said, env={**os.environ, **HZ_IDENTITY})
        _git(self.root, "update-ref", f"refs/heads/{self.place}", commit, old or ZERO)
        return drafts.draft_hash(body)

    def observe(self, key: str) -> drafts.Observation:
        commit = self._commit_of(key)
        main = base_ref(self.root)
        if commit is not None:
            merged = subprocess.run(
                ["git", "-C", str(self.root), "merge-base", "--is-ancestor", commit, main],
                capture_output=True,
                env=git_env(),
                check=False,
            )
            if merged.returncode == 0:
                return drafts.Observation("approved", self._file_at(main))
            return drafts.Observation("pending")
        if _rev(self.root, f"refs/heads/{self.place}") is not None:
            return drafts.Observation("superseded")  # the branch holds a newer draft of the same key
        return drafts.Observation("rejected")

    def delete(self) -> None:
        """Drop the draft branch (a rejected draft); its commits stay reachable through the reflog only."""
        old = _rev(self.root, f"refs/heads/{self.place}")
        if old is not None:
            _git(self.root, "update-ref", "-d", f"refs/heads/{self.place}", old)
