"""Live pages: one watcher for the whole server, and Server-Sent Events streams that wait on it.

The watcher is one asyncio task that, while any stream is open, looks at the files the open streams care
about (an agent's spine; the index and its write-ahead log for the list; those and the repository's hz
refs for the drafts, graph and why pages) every `INTERVAL_S`: one `stat` per file (a walk of the few
folders of a refs tree), whatever the number of streams, and no task at all when none is open. A stream sleeps on a
condition until its file's signature (size, mtime, inode) moved, then asks its source for what is new.

A stream starts with the current row (never the history) and then sends deltas, each with an `id:` the
browser sends back as `Last-Event-ID` when it reconnects; a source decides what a given id still lets
it send (the few events missed, or the current row again when it is too far behind).
"""

from __future__ import annotations

import asyncio
import json
import os
import stat
from collections.abc import AsyncIterator, Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

INTERVAL_S = 0.2  # a change reaches an open page within this (plus the time to read it)
KEEPALIVE_S = 15.0  # a comment line now and then: a browser that left is noticed, a proxy keeps the line


@dataclass(frozen=True)
class Event:
    kind: str
    data: Any
    id: str | None = None

    def frame(self) -> bytes:
        """One SSE frame; the JSON has no raw newline, so a value can never open a second field."""
        lines = [f"event: {self.kind}"]
        if self.id is not None:
            lines.append(f"id: {self.id}")
        lines.append("data: " + json.dumps(self.data, ensure_ascii=False, separators=(",", ":"), default=str))
        return ("\n".join(lines) + "\n\n").encode("utf-8")


class Source(Protocol):
    """What a page streams: the files to watch, the first events for a (re)connect, then what changed."""

    def paths(self) -> list[Path]: ...

    def start(self, last_event_id: str | None) -> list[Event]: ...

    def changed(self) -> list[Event]: ...


def signature(path: Path) -> tuple[int, int, int] | None:
    """A file's size, mtime and inode; a folder's as a tree (`_tree`); None while there is none."""
    try:
        found = os.stat(path)
    except OSError:
        return None
    if stat.S_ISDIR(found.st_mode):
        return _tree(path, found.st_mtime_ns)
    return (found.st_size, found.st_mtime_ns, found.st_ino)


def _tree(path: Path, mtime_ns: int) -> tuple[int, int, int]:
    """A folder of git refs: a ref written or removed anywhere below it renames or unlinks a file in its
    own folder, which moves that folder's mtime; so the folders' count and mtimes say whether a ref moved
    (a few small folders: a walk costs about what a few stats do)."""
    count, total = 1, mtime_ns
    for folder, children, _ in os.walk(path):
        for child in children:
            try:
                total += os.stat(os.path.join(folder, child)).st_mtime_ns
            except OSError:
                continue
            count += 1
    return (count, total % (1 << 62), 0)


@dataclass
class Watcher:
    interval_s: float = INTERVAL_S
    _seen: dict[Path, tuple[int, int, int] | None] = field(default_factory=dict)
    _users: dict[Path, int] = field(default_factory=dict)
    _moved: asyncio.Condition | None = None
    _task: asyncio.Task[None] | None = None
    closing: bool = False

    def _condition(self) -> asyncio.Condition:
        if self._moved is None:
            self._moved = asyncio.Condition()
        return self._moved

    def watch(self, paths: Iterable[Path]) -> None:
        for path in paths:
            self._users[path] = self._users.get(path, 0) + 1
            self._seen.setdefault(path, signature(path))
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._poll())

    def unwatch(self, paths: Iterable[Path]) -> None:
        for path in paths:
            left = self._users.get(path, 0) - 1
            if left > 0:
                self._users[path] = left
            else:
                self._users.pop(path, None)
                self._seen.pop(path, None)

    def version(self, paths: Iterable[Path]) -> tuple[Any, ...]:
        return tuple(self._seen.get(p) for p in paths)

    async def wait(self, paths: list[Path], since: tuple[Any, ...], timeout: float) -> bool:
        """Until one of `paths` moved past `since` (True) or `timeout` passed (False)."""
        condition = self._condition()
        async with condition:
            try:
                await asyncio.wait_for(
                    condition.wait_for(lambda: self.closing or self.version(paths) != since), timeout
                )
            except TimeoutError:
                return False
        return not self.closing

    async def _poll(self) -> None:
        while self._users and not self.closing:
            await asyncio.sleep(self.interval_s)
            moved = False
            for path in list(self._users):
                now = signature(path)
                if self._seen.get(path) != now:
                    self._seen[path] = now
                    moved = True
            if moved:
                condition = self._condition()
                async with condition:
                    condition.notify_all()

    async def close(self) -> None:
        self.closing = True
        condition = self._condition()
        async with condition:
            condition.notify_all()


async def stream(
    watcher: Watcher,
    source: Source,
    last_event_id: str | None,
    run: Callable[[Callable[[], list[Event]]], Any],
) -> AsyncIterator[bytes]:
    """The frames of one open page; `run` calls a source's blocking read off the event loop."""
    paths = source.paths()
    watcher.watch(paths)
    try:
        since = watcher.version(paths)
        yield b"retry: 1000\n\n"
        for event in await run(lambda: source.start(last_event_id)):
            yield event.frame()
        while not watcher.closing:
            if not await watcher.wait(paths, since, KEEPALIVE_S):
                if watcher.closing:
                    return
                yield b": keep-alive\n\n"
                continue
            since = watcher.version(paths)
            for event in await run(source.changed):
                yield event.frame()
    finally:
        watcher.unwatch(paths)
