"""The contract's `hz:` tools offered to the model: read-only operations over the repository it drafts in.

A contract lists tools under `hz.tools` (`hz:git.log.read`); validation already refused unknown ones and
writes. Here each listed operation that hz can carry out becomes a `ToolSpec` for the runner; an
operation without an implementation yet (the feeds, trackers and other contracts' outputs) is simply not
offered. Every tool here only reads, so each is `replay_safe`: after a crash it may run again.

Both tools stay inside the repository root: paths are resolved (symlinks included) and must land under
it, outside `.git` (whose config may hold credentials), and the file tool reads no file git ignores (a
member's `.env`, through a link or not). What they return is data for the model, never
instructions; the runner hands it back as a tool result.
"""

from __future__ import annotations

import os
import stat
import subprocess
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from hz.errors import HzError
from hz.gitenv import git_env
from hz.gitignored import ignored
from hz.repo_paths import is_git_name, open_below
from hz.runners.base import ToolSpec

MAX_COMMITS = 100
MAX_BYTES = 64 * 1024
GIT_TIMEOUT_S = 20.0


class ToolRefused(HzError):
    """A tool call the repository boundary refuses; the model sees the message as the tool's answer."""


def offered(tools: Iterable[str], root: Path | None) -> tuple[ToolSpec, ...]:
    """The ToolSpecs for the contract's `hz:` tools that have an implementation, in the contract's order."""
    if root is None:
        return ()
    specs: list[ToolSpec] = []
    for tool in tools:
        kind, _, operation = tool.partition(":")
        make = _MAKERS.get(operation) if kind == "hz" else None
        if make is not None:
            specs.append(make(root))
    return tuple(specs)


def tool_name(operation: str) -> str:
    """Providers accept only [A-Za-z0-9_-] in tool names: `git.log.read` is offered as `hz_git_log_read`."""
    return "hz_" + operation.replace(".", "_")


# --- hz:git.log.read ------------------------------------------------------------------------------


def git_log(root: Path) -> ToolSpec:
    def call(args: dict[str, Any]) -> str:
        count = _count(args.get("max_count", 20))
        command = ["git", "-C", str(root), "log", f"--max-count={count}", "--date=iso-strict"]
        command.append("--format=%H%x09%ad%x09%an%x09%s")
        path = args.get("path")
        if path is not None:
            command += ["--", _relative(root, str(path))]
        done = subprocess.run(
            command, capture_output=True, text=True, env=git_env(), timeout=GIT_TIMEOUT_S, check=False
        )
        if done.returncode != 0:
            raise ToolRefused(f"git log failed: {done.stderr.strip() or done.returncode}")
        return done.stdout or "(no commits)"

    return ToolSpec(
        name=tool_name("git.log.read"),
        description=(
            "hz:git.log.read: the repository's recent commits, newest first, one per line: "
            "hash, date, author, subject (tab-separated). Optionally only those touching a path."
        ),
        replay_safe=True,
        call=call,
        parameters={
            "type": "object",
            "properties": {
                "max_count": {"type": "integer", "minimum": 1, "maximum": MAX_COMMITS},
                "path": {"type": "string", "description": "a path relative to the repository root"},
            },
            "additionalProperties": False,
        },
    )


def _count(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_COMMITS:
        raise ToolRefused(f"max_count must be a whole number from 1 to {MAX_COMMITS}")
    return value


# --- hz:file.text.read ----------------------------------------------------------------------------


def file_text(root: Path) -> ToolSpec:
    def call(args: dict[str, Any]) -> str:
        path = args.get("path")
        if not isinstance(path, str):
            raise ToolRefused("path is required: a file relative to the repository root")
        inside = _relative(root, path)
        if ignored(root, [inside]):  # a model told by a planted file to read `.env` gets nothing
            raise ToolRefused(f"{path} is a file git ignores here (a local file such as .env), which tools do not read")
        try:
            # never blocks (a FIFO), and only a regular file is read (never a device or a FIFO)
            fd = open_below(root, Path(os.path.realpath(root)) / inside)  # no folder followed as a link
        except OSError as exc:
            raise ToolRefused(f"cannot read {path}: {exc.strerror}") from None
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            os.close(fd)
            raise ToolRefused(f"{path} is not a regular file")
        try:
            with os.fdopen(fd, "rb") as handle:
                data = handle.read(MAX_BYTES + 1)
        except OSError as exc:  # a directory, say
            raise ToolRefused(f"cannot read {path}: {exc.strerror}") from None
        try:
            text = data[:MAX_BYTES].decode("utf-8")
        except UnicodeDecodeError:
            raise ToolRefused(f"{path} is not a UTF-8 text file") from None
        return text + ("\n[… cut at 64 KiB]" if len(data) > MAX_BYTES else "")

    return ToolSpec(
        name=tool_name("file.text.read"),
        description="hz:file.text.read: the text of one file of the repository (UTF-8, at most 64 KiB).",
        replay_safe=True,
        call=call,
        parameters={
            "type": "object",
            "properties": {"path": {"type": "string", "description": "a path relative to the repository root"}},
            "required": ["path"],
            "additionalProperties": False,
        },
    )


def _relative(root: Path, path: str) -> str:
    """`path` as a path relative to the repository, after symlinks; refused when it leaves it or enters .git."""
    base = root.resolve()
    if not path or "\x00" in path:
        raise ToolRefused("path must name something inside the repository")
    try:
        target = (base / path).resolve()
    except OSError as exc:  # a link that changed while it was followed
        raise ToolRefused(f"cannot read {path}: {exc.strerror}") from None
    try:
        inside = target.relative_to(base)
    except ValueError:
        raise ToolRefused(f"{path} is outside the repository") from None
    if any(is_git_name(part) for part in inside.parts):  # `.GIT` is `.git` on a case-insensitive disk
        raise ToolRefused(f"{path} is inside .git, which tools do not read")
    return inside.as_posix()


_MAKERS: dict[str, Callable[[Path], ToolSpec]] = {
    "git.log.read": git_log,
    "file.text.read": file_text,
}
