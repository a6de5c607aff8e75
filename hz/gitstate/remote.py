"""One team remote as hz sees it: the local repository's objects, the git CLI, hz's tracking refs.

hz fetches `hz/state` and lease refs into its own namespace, `refs/hz/sync/<remote>/…`, so it never
moves the member's branches or remote-tracking refs. A tick fetches once at its start (hz.review.sync)
and its looks (`current`, `looked`) answer from that one snapshot until something fetches again.
Private machine state for this (repository, remote) pair, the outbox and the leases held, lives under
`$HZ_HOME/gitstate/<key>/` (0700).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
from collections.abc import Iterable, Mapping
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from hz.config import private_home
from hz.fsio import private_dir
from hz.gitstate import objects
from hz.gitstate.layout import LEASE_PREFIX
from hz.gitstate.remote_spec import check_remote, redact_url
from hz.gitstate.transport import Git, TransportError
from hz.secrets import count_url_credentials

if TYPE_CHECKING:
    import pygit2

_SIMPLE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")


class TeamRemote:
    def __init__(self, root: Path, remote: str, environ: Mapping[str, str] = os.environ) -> None:
        self.root = root
        self.remote = check_remote(remote, "remote")
        self.git = Git(root, environ)
        self._environ = environ
        # named without the credentials of its URL: nothing stored or shown holds them, and a new token
        # for the same remote keeps its tracking refs and outbox
        self.label = redact_url(remote)
        count_url_credentials(self._url())  # git sends it; a server that echoes it is scrubbed like env tokens
        slug = remote if _SIMPLE.match(remote) else hashlib.sha256(self.label.encode()).hexdigest()[:16]
        self.sync_prefix = f"refs/hz/sync/{slug}/"
        self._key = hashlib.sha256(f"{root.resolve()}\n{self.label}".encode()).hexdigest()[:16]
        # the tick's one fetch (hz.review.sync): ref -> tip it saw (None: not there), and the prefixes it
        # fetched whole, so a ref under one that it did not see is known to be absent
        self.seen: dict[str, str | None] | None = None
        self.seen_prefixes: tuple[str, ...] = ()
        # an Actions run's clone that takes the tips of hz/state and the leases, not their history
        # (hz.review.sync.fetch_view): a lease fetched on its own is then its tip alone too
        self.tips_only = False

    def _url(self) -> str:
        """The URL git reaches: the remote as given, or the URL configured for a remote of that name."""
        if "/" in self.remote or ":" in self.remote:
            return self.remote
        import pygit2

        try:
            return str(self.repo.config[f"remote.{self.remote}.url"])
        except (KeyError, ValueError, pygit2.GitError):  # no such remote, or no repository: git says so later
            return self.remote

    @property
    def in_actions(self) -> bool:
        """Whether this is a GitHub Actions run (a fresh clone and an empty home every time)."""
        return self._environ.get("GITHUB_ACTIONS") == "true"

    @cached_property
    def repo(self) -> pygit2.Repository:
        return objects.open_repo(self.root)

    @cached_property
    def local_dir(self) -> Path:
        return private_dir(private_home(self._environ) / "gitstate" / self._key)

    def tracking(self, ref: str) -> str:
        return self.sync_prefix + ref.removeprefix("refs/")

    def tips(self, refs: Iterable[str]) -> dict[str, str | None]:
        """The remote's current object id for each ref (None: the ref does not exist), one ls-remote."""
        wanted = list(refs)
        found = self.git.ls_remote(self.remote, *wanted)
        return {ref: found.get(ref) for ref in wanted}

    def bring(self, tips: Mapping[str, str | None]) -> None:
        """Make sure the objects of these remote tips are local, fetching only what is missing."""
        missing = [ref for ref, oid in tips.items() if oid is not None and not objects.has_object(self.repo, oid)]
        if missing:
            self.git.fetch(self.remote, [f"+{ref}:{self.tracking(ref)}" for ref in missing])
        for ref, oid in tips.items():
            if oid is not None:
                objects.set_ref(self.repo, self.tracking(ref), oid)

    def looked(self, ref: str) -> tuple[bool, str | None]:
        """(whether the tick's fetch answered for `ref`, the object it saw there, None: no such ref).

        One snapshot, so what it says of `hz/state` and of a lease agree with each other: a push
        guarded by the lease tip seen is refused when either moved since, never run twice."""
        if self.seen is None:
            return False, None
        if ref in self.seen:
            return True, self.seen[ref]
        return ref.startswith(self.seen_prefixes), None

    def fetch_tip(self, ref: str) -> str | None:
        """Fetch one ref straight away (one process): for refs that are expected to have moved.

        The snapshot of the tick's fetch is over from then on: its looks would mix two moments."""
        self.seen, self.seen_prefixes = None, ()
        depth = 1 if self.tips_only and ref.startswith(LEASE_PREFIX) else None
        try:
            self.git.fetch(self.remote, [f"+{ref}:{self.tracking(ref)}"], depth=depth)
        except TransportError as exc:
            if "couldn't find remote ref" not in exc.message:
                raise
            with contextlib.suppress(KeyError):
                self.repo.references.delete(self.tracking(ref))
            return None
        return objects.resolve(self.repo, self.tracking(ref))

    def current(self, ref: str) -> str | None:
        """The remote's tip of one ref, its objects brought here (None: no such ref): what the tick's
        fetch saw (peeled to its commit), else one fetch.

        A fetch reads the same ref advertisement as `git ls-remote` and, in the same connection,
        brings the objects only when they are new here, so it is one round trip where an ls-remote
        and then a fetch were two (measured: an up-to-date fetch costs 1-2 ms more than ls-remote).
        """
        known, tip = self.looked(ref)
        if known:
            return None if tip is None else objects.resolve(self.repo, self.tracking(ref))
        return self.fetch_tip(ref)
