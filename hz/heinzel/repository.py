"""Which repository an adopted agent belongs to: the repository's identity, not the path of its contract.

Every `hz init` repository holds the same example contract path, so a path alone names no repository.
A repository is named by its root commit: the parentless commit reached by following first parents from
HEAD (histories merged in later keep the mainline's first commit, and every clone finds the same one).
Its remote URL (normalised: no scheme, user, token, query or `.git`) is recorded beside it and only
decides where a root is missing on one side: a repository without a commit yet (there the work tree's
path is recorded too, so the first tick after its first commit, in that repository, fills the root in
with `heinzel.bound`) or a shallow clone, whose oldest commit is not the root.

Two clones of one repository are the same repository: same root commit, one agent and one spine per
contract in a home (two would draft the same output twice and pay twice for it).

Agents adopted before identities were recorded carry only the contract's path. One is bound by the
first tick (or adoption) in a repository that has a file at that path whose contract compiles to a
fingerprint the agent has held (`hz.heinzel.rebind`); a repository with another text there never is.

Reading the identity costs one git call, made lazily once per tick or command (`Here`), and only when
some agent has to be placed: an idle tick never asks.
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from hz.addresses import looks_like_address
from hz.gitenv import git_env

_SHA = re.compile(r"^[0-9a-f]{40}([0-9a-f]{24})?$")
_SCP = re.compile(r"^(?:[^@/:]+@)?(?P<host>[^/:]+):(?P<path>(?!/).*)$")  # git@host:org/repo.git
_MAX = 500  # a recorded remote or path longer than this is left out rather than cut


def normalise_remote(url: str) -> str | None:
    """`host[:port]/path` for a forge URL in any of git's spellings, or the local path; never a secret.

    User names and tokens (`https://x-access-token:…@host/…`), queries and fragments are dropped; the
    host is lower-cased; a trailing `/` or `.git` goes, so `git@github.com:Org/repo.git` and
    `https://github.com/Org/repo` are one remote."""
    url = url.strip()
    if not url:
        return None
    if "://" in url:
        parts = urlsplit(url)
        host = (parts.hostname or "").lower()
        try:
            port = parts.port
        except ValueError:  # a port that is no number: the rest still names the repository
            port = None
        where = f"{host}:{port}" if port else host
        shown = f"{where}{parts.path}" if where else parts.path
    elif (scp := _SCP.match(url)) and not url.startswith(("/", ".")):
        shown = f"{scp['host'].lower()}/{scp['path']}"
    else:
        shown = url
    shown = shown.rstrip("/").removesuffix(".git").rstrip("/")
    if not shown or len(shown) > _MAX or looks_like_address(shown):
        return None
    return shown


@dataclass
class Here:
    """The repository a tick or a command runs in, its identity read at most once (lazily)."""

    root: Path
    environ: Mapping[str, str] | None = None
    _commit: str | None = field(default=None, init=False)
    _remote: str | None = field(default=None, init=False)
    _read: set[str] = field(default_factory=set, init=False)

    @property
    def commit(self) -> str | None:
        """The root commit (see the module), or None in a repository without a commit yet, and in a
        shallow clone, whose oldest commit is only where its history was cut (git marks it grafted)."""
        if "commit" not in self._read:
            self._read.add("commit")
            # decorations limited to no ref at all: only git's own `grafted` mark can show
            shown = ("--first-parent", "--max-parents=0", "--decorate-refs=refs/nothing/", "--format=%H%d")
            lines = self._git("log", *shown, "HEAD", "--").splitlines()
            first, _, marks = (lines[-1] if lines else "").partition(" ")
            self._commit = first if _SHA.match(first) and "grafted" not in marks else None
        return self._commit

    @property
    def remote(self) -> str | None:
        """`origin`'s URL normalised, else the first remote's (sorted by name); None without one."""
        if "remote" not in self._read:
            self._read.add("remote")
            urls: dict[str, str] = {}
            for line in self._git("config", "--get-regexp", r"^remote\..*\.url$").splitlines():
                key, _, value = line.partition(" ")
                urls[key.removeprefix("remote.").removesuffix(".url")] = value
            chosen = urls.get("origin") or next((urls[k] for k in sorted(urls)), "")
            if chosen.startswith(("./", "../")):  # relative to the work tree: named the same from anywhere
                chosen = str((self.root / chosen).resolve())
            self._remote = normalise_remote(chosen)
        return self._remote

    @property
    def path(self) -> str:
        return str(self.root)

    def identity(self) -> dict[str, str]:
        """What an agent adopted here records (`heinzel.created`'s `repository`, `heinzel.bound`).

        The path only while there is no commit: then it is the one thing that finds this repository again."""
        found = {"root": self.commit, "remote": self.remote}
        if self.commit is None and len(self.path) <= _MAX and not looks_like_address(self.path):
            found["path"] = self.path
        return {k: v for k, v in found.items() if v}

    def _git(self, *args: str) -> str:
        try:
            done = subprocess.run(
                ["git", "-C", str(self.root), *args],
                capture_output=True,
                text=True,
                errors="replace",
                env=git_env(self.environ, GIT_OPTIONAL_LOCKS="0"),
                timeout=30,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired):
            return ""
        return done.stdout if done.returncode == 0 else ""


_HERE: dict[str, Here] = {}  # the repository of this process's current tick, read once per tick


def here_of(root: Path | None, environ: Mapping[str, str] | None = None, *, fresh: bool = False) -> Here | None:
    """The tick's `Here` for `root`; `fresh` (at a tick's start) reads the identity anew, lazily."""
    if root is None:
        return None
    key = str(root)
    if fresh or key not in _HERE:
        _HERE.clear()  # one repository per tick: a daemon never keeps another's
        _HERE[key] = Here(root, environ)
    return _HERE[key]


def bound(row: Mapping[str, Any]) -> bool:
    """Whether the agent knows its repository (adopted after identities were recorded, or bound since)."""
    return bool(row.get("repo_root") or row.get("repo_remote") or row.get("repo_path"))


def adopted(row: Mapping[str, Any]) -> bool:
    return row.get("origin") == "adopted" and bool(row.get("source"))


def belongs(row: Mapping[str, Any], here: Here | None) -> bool | None:
    """True: the agent is this repository's (or no repository's); False: another's; None: an old agent
    that recorded only its contract's path, to be bound or not by `hz.heinzel.rebind`."""
    if not adopted(row):
        return True
    if here is None:
        return False
    if not bound(row):
        return None
    if row.get("repo_root") and here.commit is not None:
        return bool(here.commit == row["repo_root"])
    # a root on one side only (adopted before the first commit, or ticked in a shallow clone): the
    # remote decides, else the work tree it was adopted in
    if row.get("repo_remote") and here.remote:
        return bool(here.remote == row["repo_remote"])
    return bool(row.get("repo_path") == here.path)


def needs_root(row: Mapping[str, Any], here: Here) -> bool:
    """An agent adopted before its repository's first commit, ticked here now that there is one."""
    return adopted(row) and not row.get("repo_root") and bound(row) and here.commit is not None


def elsewhere(rows: Iterable[Mapping[str, Any]], here: Here | None) -> set[str]:
    """The ids among `rows` of agents another repository adopted: lists leave them out unless asked for all.

    An old agent not bound yet counts as here when its contract's path is (lists bind nothing)."""
    hidden: set[str] = set()
    for row in rows:
        verdict = belongs(row, here)
        if verdict is None and here is not None:
            verdict = (here.root / str(row["source"])).is_file()
        if not verdict:
            hidden.add(str(row["id"]))
    return hidden


def named_repository(row: Mapping[str, Any]) -> str:
    """How lists name an agent's repository: its remote, its root commit, its path, or `-`."""
    if not adopted(row):
        return "-"
    if row.get("repo_remote"):
        return str(row["repo_remote"])
    if row.get("repo_root"):
        return f"root {str(row['repo_root'])[:12]}"
    return str(row.get("repo_path") or "unbound")
