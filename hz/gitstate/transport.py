"""Talking to the team's remote: every fetch, ls-remote and push goes through the `git` CLI.

Why the CLI and not libgit2 (pygit2) for the network: measured here, libgit2's transport for a path
or `file://` remote overwrites a ref that moved without checking its old value (two racing writers
both "win" and events are lost), it has no atomic multi-ref push, and it ignores the credentials,
ssh configuration and `http.extraheader` (set by actions/checkout) that the user's git already has.
`git push` sends the old value of every ref it updates and the remote's receive-pack checks it under
the ref lock, which is the compare-and-swap that leases and fenced writes rely on.

Over `git://` hz reads (ls-remote, fetch) with protocol version 0. Measured on loopback: git writes a
version 2 request as many small packets on a socket without TCP_NODELAY, so Nagle holds the tail until
the daemon's delayed ACK (40 ms) on every command; version 0 sends nothing before the daemon's
advertisement and costs 10 ms instead of 50. Elsewhere version 2 stays: over https it lets the server
filter refs instead of advertising all of them, and curl already sets TCP_NODELAY.

A remote string is never an option to git: every verb here checks it again (`remote_spec`, also
checked where it enters: `hz.toml` and `--remote`) and passes it after `--`, which git 2.39 accepts
before the repository of `fetch`, `push` and `ls-remote` alike (tried: `--upload-pack=…` after `--` is
a "strange pathname" git refuses). The environment limits the transports (`hz.gitenv`). Git's own
error text can echo the remote URL, so a credential in it is cut out before the text becomes an error.
"""

from __future__ import annotations

import subprocess
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from hz.errors import HzError
from hz.gitenv import git_env
from hz.gitstate.layout import ZERO as ZERO
from hz.gitstate.remote_spec import check_remote, redact_text


class TransportError(HzError):
    """git could not reach or talk to the remote."""


BUSY = "another hz process in this clone is fetching the team's refs right now"
LOCK_RETRY_S = 0.5


class RefsBusy(TransportError):
    """Another process of this clone held the refs a fetch updates, twice: busy, not broken."""


def _lock_race(said: str) -> bool:
    """git's words for a ref (or packed-refs) lock another process holds."""
    return "cannot lock ref" in said or ("Unable to create" in said and ".lock" in said)


@dataclass(frozen=True)
class RefResult:
    """One line of `git push --porcelain`: did this ref land, and if not, why."""

    ref: str
    flag: str  # ' ' fast-forward, '+' forced, '-' deleted, '*' new, '=' up to date, '!' rejected
    summary: str

    @property
    def ok(self) -> bool:
        return self.flag != "!"


@dataclass(frozen=True)
class PushResult:
    refs: dict[str, RefResult]
    stderr: str

    @property
    def ok(self) -> bool:
        return bool(self.refs) and all(r.ok for r in self.refs.values())

    @property
    def hook_declined(self) -> bool:
        return any("hook declined" in r.summary for r in self.refs.values())


class Git:
    """The git CLI bound to one local repository (its objects are where pygit2 writes)."""

    def __init__(self, repo: Path, environ: Mapping[str, str] | None = None) -> None:
        self.repo = repo
        env = git_env(environ)
        env.setdefault("LC_ALL", "C")  # porcelain and error texts in one language
        self.env = env

    def run(
        self, *args: str, check: bool = True, stdin: str | None = None, remote: str = ""
    ) -> subprocess.CompletedProcess[str]:
        """Run git here; a failure is a TransportError whose text holds no credential of `remote`."""
        try:
            proc = subprocess.run(
                ["git", "-C", str(self.repo), *args],
                input=stdin,
                capture_output=True,
                text=True,
                env=self.env,
                check=False,
            )
        except FileNotFoundError:
            raise TransportError(
                "git is not installed, or not on PATH: team state travels with the git command",
                hint="install git (https://git-scm.com) or add it to PATH, then run hz again",
            ) from None
        if check and proc.returncode != 0:
            verb = next((a for a in args if not a.startswith("-") and "=" not in a), "")
            said = redact_text(proc.stderr.strip() or proc.stdout.strip(), remote)
            raise TransportError(
                f"git {verb} failed: {said}",
                hint="check the remote ([state] remote in hz.toml, or --remote) and your access to it",
            )
        return proc

    def ls_remote(self, remote: str, *refs: str) -> dict[str, str]:
        """ref -> object id on the remote, for the refs named (all refs when none are)."""
        proc = self.run(*read_protocol(remote), "ls-remote", "--refs", "--", _checked(remote), *refs, remote=remote)
        found: dict[str, str] = {}
        for line in proc.stdout.splitlines():
            oid, _, ref = line.partition("\t")
            found[ref] = oid
        return found

    def fetch(self, remote: str, refspecs: Sequence[str], *, prune: bool = False, depth: int | None = None) -> None:
        """Fetch into local (hz-private) refs; a refspec whose source is missing on the remote fails.
        `prune`: drop the copies (under the refspecs' destinations) of refs the remote no longer has.
        `depth`: the refs' newest commits alone (`--depth`), their history left out (the clone is shallow there).

        Two hz processes of one clone (a daemon's tick and a `hz drafts`) may fetch the same refs at once;
        git then refuses the one that finds the other's ref lock. That fetch is tried once more after a
        moment (the other one has usually finished, and fetched the same); a second refusal is `RefsBusy`."""
        try:
            self._fetch(remote, refspecs, prune=prune, depth=depth)
        except TransportError as exc:
            if not _lock_race(exc.message):
                raise
            time.sleep(LOCK_RETRY_S)
            try:
                self._fetch(remote, refspecs, prune=prune, depth=depth)
            except TransportError as again:
                if _lock_race(again.message):
                    raise RefsBusy(BUSY, hint="run it again in a moment; nothing was lost") from None
                raise

    def _fetch(self, remote: str, refspecs: Sequence[str], *, prune: bool, depth: int | None) -> None:
        self.run(
            *read_protocol(remote),
            "-c",
            "maintenance.auto=false",
            "fetch",
            "--quiet",
            "--no-tags",
            "--no-write-fetch-head",
            "--no-recurse-submodules",  # a submodule's URL is not the team's remote: nothing else is fetched
            *(["--prune"] if prune else []),
            *([f"--depth={depth}"] if depth else []),
            "--",
            _checked(remote),
            *refspecs,
            remote=remote,
        )

    def push(self, remote: str, updates: Mapping[str, str], expected: Mapping[str, str]) -> PushResult:
        """Push `updates` (ref -> local commit) atomically, each guarded by its expected old value.

        `expected[ref]` is the object id the remote must still have (`ZERO` or "" for "must not exist").
        There is never a `+` in a refspec: that would switch the check off.
        """
        args = ["push", "--atomic", "--porcelain", "--no-verify"]
        for ref, old in expected.items():
            args.append(f"--force-with-lease={ref}:{'' if old == ZERO else old}")
        args += ["--", _checked(remote)]
        args.extend(f"{commit}:{ref}" for ref, commit in updates.items())
        proc = self.run(*args, check=False)
        result = PushResult(parse_porcelain(proc.stdout), redact_text(proc.stderr, remote))
        if not result.refs:
            raise TransportError(f"git push failed: {result.stderr.strip()}")
        return result


def _checked(remote: str) -> str:
    """The remote again through the shape check: a caller that skipped it still never reaches git."""
    return check_remote(remote, "git remote")


def read_protocol(remote: str) -> tuple[str, ...]:
    """Options for a read from `remote`: protocol version 0 over git:// (see the module docstring)."""
    return ("-c", "protocol.version=0") if remote.startswith("git://") else ()


def parse_porcelain(stdout: str) -> dict[str, RefResult]:
    """Read `git push --porcelain` output: `<flag>\\t<from>:<to>\\t<summary>` per ref."""
    results: dict[str, RefResult] = {}
    for line in stdout.splitlines():
        parts = line.split("\t")
        if len(parts) < 3 or len(parts[0]) != 1:
            continue  # "To <url>" and "Done"
        _, _, ref = parts[1].partition(":")
        results[ref] = RefResult(ref, parts[0], parts[2])
    return results
