"""The session store: agent folders under `$HZ_HOME/heinzel/`, their one writer, reads and the index.

API (stable, the turn engine builds on it):

    store = Store.from_environ(environ)            # or Store(root)
    store.create(agent_id)                          # <root>/<id>/ (0700)
    with store.writer(agent_id, timeout=10) as w:   # the spine's lock, held for the block
        envelope = w.append(kind, data, turn=..., key=..., now=...)   # validated, fsynced, indexed
    store.read(agent_id)                            # SpineRead: events + problems
    store.index                                     # hz.session.index.Index, caught up on open
    store.close()

`writer` applies every appended line to the index right after it is durable. The spine writer leaves a
pending mark before its first append; the store clears it (still under the lock) once the index holds
everything, so a crash at any point leaves a mark that the next `Index.open` resolves. A caller that
uses `SpineWriter` directly (the turn engine's journal) is caught up the same way on the next open, or
at once when it passes `listeners=[store.index_listener(agent_id)]`.
"""

from __future__ import annotations

import os
import re
import sqlite3
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager, suppress
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from hz.errors import HzError
from hz.fsio import private_dir
from hz.session.frozen import FrozenSpine
from hz.session.index import INDEX, Index
from hz.session.index_damage import damage_of, set_aside, tell
from hz.session.lock import DERIVING, SPINE, clear_pending

if TYPE_CHECKING:  # writing and reading spines is imported where it happens, not by an idle tick
    from hz.session.envelope import Envelope
    from hz.session.spine import SpineRead, SpineWriter

HEINZEL = "heinzel"
AGENT_ID = re.compile(r"^hz-[0-9A-HJKMNP-TV-Z]{26}$")


class UnknownAgent(HzError):
    """No session folder for that id."""


class Store:
    def __init__(self, root: Path) -> None:
        self.root = root
        self._index: Index | None = None
        self.sync = True  # False inside a derivation: durable once at its end (hz.session.derived)

    @classmethod
    def from_environ(cls, environ: Mapping[str, str] = os.environ) -> Store:
        from hz.config import private_home

        return cls(private_home(environ) / HEINZEL)

    def close(self) -> None:
        if self._index is not None:
            self._index.close()
            self._index = None

    def __enter__(self) -> Store:
        return self

    def __exit__(self, kind: object, exc: BaseException | None, trace: object) -> None:
        inode = None if self._index is None else self._index.inode
        self.close()
        if isinstance(exc, sqlite3.DatabaseError) and (why := damage_of(exc)) is not None:
            raise self._index_damaged(why, inode) from exc

    def _index_damaged(self, why: str, inode: int | None) -> HzError:
        """Damage found by a query, past the checks of `Index.open`: set aside now, rebuilt by the next open."""
        path = self.root / INDEX
        aside = set_aside(path, inode)
        kept = f"kept as {aside.name}" if aside is not None else "set aside by another hz process"
        return HzError(
            f"the index {path} is damaged ({why}); it is {kept}",
            hint="run the command again: the next one rebuilds the index from the spines",
        )

    def reindex(self) -> int:
        """Rebuild the index from the spines, in place or, when the file is too damaged for that, anew."""
        try:
            return self.index.rebuild()
        except sqlite3.DatabaseError as exc:
            if (why := damage_of(exc)) is None:
                raise
        path, inode = self.root / INDEX, self.index.inode
        self.close()
        tell(path, why, set_aside(path, inode))
        return len(self.index.spine_ids())  # opening a new file rebuilt it

    @property
    def index(self) -> Index:
        if self._index is None:
            root = private_dir(self.root)
            if os.path.lexists(root / DERIVING):  # a derivation that did not end: undone before anyone reads
                from hz.session.derived import undo_unfinished

                undo_unfinished(root)
            self._index = Index.open(root)
        return self._index

    def agent_dir(self, agent_id: str) -> Path:
        if not AGENT_ID.match(agent_id):
            raise UnknownAgent(f"{agent_id!r} is not a Heinzelmännchen id", hint="ids look like hz-01J…(26 chars)")
        return self.root / agent_id

    def exists(self, agent_id: str) -> bool:
        return (self.agent_dir(agent_id) / SPINE).is_file()

    def create(self, agent_id: str) -> Path:
        directory = self.agent_dir(agent_id)
        try:  # one mkdir: an adoption makes hundreds of these, and the root is there nearly always
            os.mkdir(directory, 0o700)
        except FileExistsError:
            raise HzError(f"{agent_id} exists already; ids are never reused") from None
        except (FileNotFoundError, NotADirectoryError):  # no root yet, or something else in its place
            private_dir(self.root)
            directory.mkdir(mode=0o700)
        return directory

    @contextmanager
    def writer(
        self, agent_id: str, *, timeout: float = 10.0, now: datetime | None = None, repairing: bool = False
    ) -> Iterator[SpineWriter]:
        """The spine's one writer. A frozen agent's spine (the index knows it breaks) takes no line but the
        repair's: what is appended after a break is not trusted, so it would change nothing anyway."""
        from hz.session.spine import SpineWriter

        directory = self.agent_dir(agent_id)
        if not directory.is_dir():
            raise UnknownAgent(f"no session for {agent_id} under {self.root}")
        spine = None if repairing else self.index.spine_state(agent_id)
        if spine is not None and spine["problem"]:
            raise FrozenSpine(agent_id, spine["problem"])
        # Inside a derivation the index reads the new lines once, at the end, in one transaction.
        listeners = [self.index_listener(agent_id)] if self.sync else []
        writer = SpineWriter.open(directory, timeout=timeout, listeners=listeners, now=now, sync=self.sync)
        try:
            yield writer
            if writer.derived:  # its lines are in place once it closes; nobody else can write them
                writer.close()
                self.index.catch_up(agent_id, bytes(writer.written))
            else:
                self.index.catch_up(agent_id)
            if self.sync:
                _clear_pending(directory)
        except FrozenSpine:  # a reader found a break the index has not seen (an edit that kept the size)
            self.index.replay(agent_id)
            raise
        finally:
            writer.close()

    def index_listener(self, agent_id: str) -> Callable[[Envelope, int, str], None]:
        """A `SpineWriter` listener that keeps the index in step line by line.

        The line is durable before the listener runs, so an index that cannot be written right now (a
        busy database) must not make the append look failed: the pending mark stays, and the next
        catch-up reads the line.
        """
        index = self.index

        def listener(envelope: Envelope, size: int, head: str) -> None:
            with suppress(sqlite3.Error):
                index.record(agent_id, envelope, size, head)

        return listener

    def read(self, agent_id: str) -> SpineRead:
        from hz.session.spine import read_spine

        return read_spine(self.agent_dir(agent_id) / SPINE)


def _clear_pending(directory: Path) -> None:
    """Once the index holds every line; inside a batch only after its flush (hz.session.batch)."""
    from hz.session.batch import active

    batch = active()
    if batch is None:
        clear_pending(directory)
    else:
        batch.mark_held(directory)
