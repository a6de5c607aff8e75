"""Team drafts on branches: `hz/draft/<agent id>/<slot>` in the contract's own repository.

A team contract's `state:<path>` output is reviewed truth on `main`, so its draft never touches the
work tree: it is a commit on the draft branch that changes that one file, made with a private index
(`GIT_INDEX_FILE`) and `git commit-tree`, whose subject is the draft's tag line (agent, contract
version, key). The branch is found again by that key before anything is written. Merging the branch
into `main` approves the draft; deleting it unmerged rejects it. The slot in the branch name is UTC
`YYYY-MM-DDTHHMMZ` (a ref name may not hold `:`).

The commit is signed `hz <hz>`, like hz's commits on `hz/state` (`hz.gitstate.objects`): it never needs
the machine's git identity (an Actions runner has none), and it carries no member's name or address to
the forge. Who ran the slot is on `hz/state`, in the turn's receipts and the lease chain.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from hz.errors import HzError
from hz.gitenv import git_env
from hz.gitstate.objects import SIGNATURE_NAME
from hz.repo_paths import MAX_FILE_BYTES
from hz.review import drafts

ZERO = "0" * 40
# git's identity for the draft commit, set for that one process: no user.name/user.email is consulted
HZ_IDENTITY = {
    "GIT_AUTHOR_NAME": SIGNATURE_NAME,
    "GIT_AUTHOR_EMAIL": SIGNATURE_NAME,
    "GIT_COMMITTER_NAME": SIGNATURE_NAME,
    "GIT_COMMITTER_EMAIL": SIGNATURE_NAME,
}


class GitFailed(HzError):
    """A git command hz ran to place or inspect a draft branch failed."""


def branch_name(agent_id: str, slot: datetime) -> str:
    return f"hz/draft/{agent_id}/{slot.astimezone(UTC).strftime('%Y-%m-%dT%H%MZ')}"


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
    """A draft branch was deleted or merged into main (a cheap check the idle tick can afford)."""
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


@dataclass(frozen=True)
class BranchTarget:
    root: Path
    asset: str
    place: str  # the branch name
    path: str  # the file's path in the repository

    @classmethod
    def create(cls, root: Path, agent_id: str, asset: str, slot: datetime) -> BranchTarget:
        drafts.target_path(root, asset, slot, team=True)  # the repository's path rule, `.github/` included
        target = cls(root, asset, branch_name(agent_id, slot), asset.partition(":")[2])
        target._folders_on(main_ref(root))  # the draft's tree is main's, which may differ from the work tree
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
        return self._file_at(main_ref(self.root))

    def write(self, tag: drafts.Tag, text: str) -> str:
        body = text if text.endswith("\n") else text + "\n"
        old = _rev(self.root, f"refs/heads/{self.place}")
        base = old or _rev(self.root, main_ref(self.root))
        blob = _git(self.root, "hash-object", "-w", "--stdin", stdin=body.encode("utf-8"))
        with tempfile.TemporaryDirectory() as scratch:
            env = {**os.environ, "GIT_INDEX_FILE": str(Path(scratch) / "index")}
            if base:
                _git(self.root, "read-tree", base, env=env)
            _git(self.root, "update-index", "--add", "--cacheinfo", f"100644,{blob},{self.path}", env=env)
            tree = _git(self.root, "write-tree", env=env)
        parents = ["-p", base] if base else []
        commit = _git(self.root, "commit-tree", tree, *parents, "-m", tag.line(), env={**os.environ, **HZ_IDENTITY})
        _git(self.root, "update-ref", f"refs/heads/{self.place}", commit, old or ZERO)
        return drafts.draft_hash(body)

    def observe(self, key: str) -> drafts.Observation:
        commit = self._commit_of(key)
        main = main_ref(self.root)
        if commit is not None:
            merged = subprocess.run(
                ["git", "-C", str(self.root), "merge-base", "--is-ancestor", commit, main],
                capture_output=True,
                env=git_env(),
                check=False,
            )
            if merged.returncode == 0:
                return drafts.Observation("approved", self._file_at(main))
            tip = _git(self.root, "log", "-1", "--format=%s", f"refs/heads/{self.place}", "--", self.path)
            tag = drafts.Tag.parse(tip)
            return drafts.Observation("pending" if tag is None or tag.key == key else "superseded")
        return drafts.Observation("rejected")

    def delete(self) -> None:
        """Drop the draft branch (a rejected draft); its commits stay reachable through the reflog only."""
        old = _rev(self.root, f"refs/heads/{self.place}")
        if old is not None:
            _git(self.root, "update-ref", "-d", f"refs/heads/{self.place}", old)
