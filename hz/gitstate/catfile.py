"""Objects read through git itself: one `git cat-file --batch-command` process, `rev-list` and `for-each-ref`.

The pre-receive hook reads a push's objects with this instead of pygit2, whose import alone is about 75 ms
of a fresh process; a request to the running cat-file costs tens of microseconds. Objects are asked for by
hexadecimal id only, and refs are listed exactly (`for-each-ref`), never resolved by git's guessing of
short names: an absent `refs/hz/lease/<id>` must read as absent, not as a branch a pusher named
`refs/heads/refs/hz/lease/<id>`. The environment passes git's quarantine of the pushed objects
(GIT_OBJECT_DIRECTORY and its alternates) on to every process, so they see what the push brings.
"""

from __future__ import annotations

import contextlib
import re
import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import IO

from hz.errors import HzError
from hz.gitenv import git_env
from hz.gitstate.odb import MISSING, Objects

_OID = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
SHORT_RANGE = 64  # commits a push's range is walked for by parents before `rev-list` is asked
BATCH = 256  # requests written before their answers are read: 256 short lines stay far below a pipe's 64 KiB


class GitReadFailure(HzError):
    """git could not answer (a missing commit for a range, git itself failing): nothing is judged on it."""


class CatFile(Objects):
    """The objects and refs of the repository at `git_dir`, as the processes started with `environ` see them."""

    def __init__(self, git_dir: Path, environ: Mapping[str, str]) -> None:
        super().__init__()
        self.git_dir = git_dir
        self._env = git_env(environ, GIT_DIR=str(git_dir))
        self._proc: subprocess.Popen[bytes] | None = None
        self._refs: dict[str, str] | None = None
        self._ranges: dict[tuple[str, str | None], list[tuple[str, tuple[str, ...]]]] = {}

    def __enter__(self) -> CatFile:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def close(self) -> None:
        """End the cat-file process. Its output is closed before the wait: answers left unread (a check that
        stopped halfway) would otherwise keep git blocked on a full pipe, and this wait with it."""
        if self._proc is not None:
            proc, self._proc = self._proc, None
            for stream in (proc.stdin, proc.stdout):
                if stream is not None:
                    with contextlib.suppress(OSError):  # git may be gone already (a broken pipe)
                        stream.close()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()

    def _process(self) -> tuple[IO[bytes], IO[bytes]]:
        if self._proc is None:
            command_line = ["git", "cat-file", "--batch-command", "--buffer"]
            self._proc = subprocess.Popen(command_line, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                          env=git_env(self._env))  # fmt: skip
        assert self._proc.stdin is not None and self._proc.stdout is not None
        return self._proc.stdin, self._proc.stdout

    def _send(self, command: str, oids: list[str]) -> IO[bytes]:
        """Ask about every id at once (a round trip to git costs more than git's work); the answers follow
        in order on the returned stream."""
        stdin, stdout = self._process()
        stdin.write(b"".join(f"{command} {oid}\n".encode("ascii") for oid in oids) + b"flush\n")
        stdin.flush()
        return stdout

    def read_many(self, oids: list[str]) -> list[tuple[str, bytes]]:
        asked = [oid for oid in oids if _OID.fullmatch(oid)]  # only ids: a ref name is never guessed at here
        found: dict[str, tuple[str, bytes]] = {}
        for start in range(0, len(asked), BATCH):  # a batch of requests always fits in the pipe to git
            chunk = asked[start : start + BATCH]
            stdout = self._send("contents", chunk)
            found.update((oid, self._contents(stdout, oid)) for oid in chunk)
        return [found.get(oid, MISSING) for oid in oids]

    def read(self, oid: str) -> tuple[str, bytes]:
        return self.read_many([oid])[0]

    def header(self, oid: str) -> tuple[str, int]:
        if not _OID.fullmatch(oid):
            return "missing", 0
        answer = _header(self._send("info", [oid]), oid)
        return ("missing", 0) if answer is None else answer

    def _contents(self, stdout: IO[bytes], oid: str) -> tuple[str, bytes]:
        answer = _header(stdout, oid)
        if answer is None:
            return MISSING
        kind, size = answer
        data = stdout.read(size + 1)  # the bytes and the newline after them
        if len(data) != size + 1:
            raise GitReadFailure(f"git cat-file ended inside object {oid[:12]}")
        return kind, data[:size]

    def _all_refs(self) -> dict[str, str]:
        if self._refs is None:
            listing = self._git("for-each-ref", "--format=%(objectname) %(refname)")
            pairs = (line.split(" ", 1) for line in listing.splitlines() if " " in line)
            self._refs = {name: oid for oid, name in pairs}
        return self._refs

    def resolve(self, ref: str) -> str | None:
        return self._all_refs().get(ref)

    def refs(self, prefix: str) -> dict[str, str]:
        return {name: oid for name, oid in self._all_refs().items() if name.startswith(prefix)}

    def commits(self, tip: str, base: str | None) -> list[tuple[str, tuple[str, ...]]]:
        if (tip, base) not in self._ranges:
            if not _OID.fullmatch(tip) or (base is not None and not _OID.fullmatch(base)):
                raise GitReadFailure("a commit range named by something other than object ids")
            line = self._line(tip, base)
            if line is None:
                hidden = ["--not", base] if base is not None else []
                listing = self._git("rev-list", "--topo-order", "--reverse", "--parents", tip, *hidden, "--")
                rows = [line.split() for line in listing.splitlines() if line]
                line = [(row[0], tuple(row[1:])) for row in rows]
            self._ranges[tip, base] = line
        return self._ranges[tip, base]

    def _line(self, tip: str, base: str | None) -> list[tuple[str, tuple[str, ...]]] | None:
        """The range when it is a short line of single-parent commits ending at `base` (or at a root, when
        there is no base): what nearly every push is, read without starting `rev-list`. None: ask rev-list."""
        found: list[tuple[str, tuple[str, ...]]] = []
        oid: str | None = tip
        while oid is not None and oid != base and len(found) < SHORT_RANGE:
            commit = self.commit(oid)
            if commit is None or len(commit.parents) > 1:
                return None
            found.append((oid, commit.parents))
            oid = commit.parents[0] if commit.parents else None
        reached = oid == base if base is not None else oid is None
        return found[::-1] if reached else None

    def _git(self, *args: str) -> str:
        command = ["git", *args]
        done = subprocess.run(command, capture_output=True, text=True, env=git_env(self._env), check=False)
        if done.returncode != 0:
            raise GitReadFailure(f"git {args[0]} failed: {' '.join(done.stderr.split())[:200]}")
        return done.stdout


def _header(stdout: IO[bytes], oid: str) -> tuple[str, int] | None:
    """One answer's first line: (type, size), or None for a missing object."""
    words = stdout.readline().split()
    if len(words) == 3:
        return words[1].decode("ascii"), int(words[2])
    if words[-1:] in ([b"missing"], [b"ambiguous"]):
        return None
    raise GitReadFailure(f"git cat-file stopped answering (about {oid[:12]})")
