"""Every spine read and folded into rows for a full rebuild, in worker processes when there are many.

A rebuild spends most of its time in Python reading spines (one orjson call and one sha256 per line)
and folding their events (`hz.session.fold`); SQLite only inserts the result. Both cores can share the
first part: forked workers read and fold chunks of agents and send their rows back as `marshal`
bytes of one flat list per table (`hz.session.rows`; several times cheaper than pickle), while the
parent, the only process that touches SQLite, inserts whatever chunk arrives first. Forking pays only
for many spines, and never when the process runs other threads (forking those is unsafe, and warns on
Python 3.12+), and only on Linux.

A worker that fails or dies simply delivers fewer chunks: the parent folds every chunk that did not
arrive itself, so an error surfaces in the parent exactly as a single-process rebuild would raise it.
"""

from __future__ import annotations

import marshal
import os
import signal
import sys
import threading
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, cast

from hz.session.fold import Fold
from hz.session.lock import SPINE
from hz.session.rows import Flat, Rows, flatten_into
from hz.session.spine import SpineRead, read_spine

if TYPE_CHECKING:
    from multiprocessing.connection import Connection
    from multiprocessing.process import BaseProcess

PARALLEL_FROM = 100  # spines; measured on 2 cores: no gain at 50, a fifth faster at 100 to 500, 40% at 10,000
MAX_PROCESSES = 4  # the parent's inserts bound the rebuild long before more workers would help
_CHUNK = 250  # agents per message from a worker: about a megabyte of rows
_SINGLE_CHUNK = 1000  # agents per insert batch without workers


def spine_rows(agent: str, read: SpineRead) -> Rows:
    """The rows of one agent replayed from nothing, its `spines` row included."""
    fold = Fold(agent)
    fold.apply_all(read.events)
    fold.settle()
    rows = fold.rows()
    rows["spines"] = [(agent, read.end, read.last_seq, read.head, read.broken_at, read.break_problem)]
    return rows


def chunk_rows(base: str, agents: Sequence[str]) -> Flat:
    """The rows of several agents, ready for `hz.session.rows.write_flat`."""
    flat: Flat = {}
    for agent in agents:
        flatten_into(flat, spine_rows(agent, read_spine(os.path.join(base, agent, SPINE))))
    return flat


def processes_for(spines: int, requested: int | None = None) -> int:
    """How many worker processes a rebuild of `spines` uses; 1 means none, everything in this process."""
    if threading.active_count() > 1 or sys.platform != "linux":  # fork is safe (and the default) on Linux only
        return 1
    if requested is not None:
        return max(1, min(requested, spines))
    if spines < PARALLEL_FROM:
        return 1
    return max(1, min(len(os.sched_getaffinity(0)), MAX_PROCESSES))


class Replay:
    """`with Replay(base, agents, processes) as replay: for rows in replay: ...`

    Entering starts the workers, so the caller can prepare its tables while they already read.
    """

    def __init__(self, base: str, agents: Sequence[str], processes: int) -> None:
        self.base = base
        self.processes = processes
        size = _SINGLE_CHUNK if processes < 2 else max(1, min(_CHUNK, -(-len(agents) // (processes * 8))))
        self.chunks = [agents[at : at + size] for at in range(0, len(agents), size)]
        self._workers: list[BaseProcess] = []
        self._readers: list[Connection] = []
        self._finished = False

    def __enter__(self) -> Replay:
        if self.processes > 1:
            try:
                self._start()
            except OSError:  # no process to be had: this one folds every chunk itself
                self._stop()
            except BaseException:
                self._stop()
                raise
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop()

    def _stop(self) -> None:
        for reader in self._readers:
            reader.close()  # a worker still sending meets a broken pipe and exits
        for worker in self._workers:
            if not self._finished and worker.is_alive():
                worker.terminate()
            worker.join()
            worker.close()
        self._readers, self._workers = [], []

    def _start(self) -> None:
        import multiprocessing

        context = multiprocessing.get_context("fork")
        for first in range(self.processes):
            reader, writer = context.Pipe(duplex=False)
            self._readers.append(reader)
            args = (self.base, self.chunks, first, self.processes, writer, list(self._readers))
            worker = context.Process(target=_work, args=args, daemon=True)
            try:
                worker.start()
            finally:
                writer.close()  # only the worker holds the sending end now: its exit is our end of file
            self._workers.append(worker)

    def __iter__(self) -> Iterator[Flat]:
        delivered: set[int] = set()
        if self._readers:
            from multiprocessing.connection import wait

            waiting = list(self._readers)
            while waiting:
                for ready in wait(waiting):
                    reader = cast("Connection", ready)
                    try:
                        number, rows = marshal.loads(reader.recv_bytes())
                    except EOFError:
                        waiting.remove(reader)
                        continue
                    delivered.add(number)
                    yield rows
        for number, chunk in enumerate(self.chunks):
            if number not in delivered:  # no workers, or one failed: fold here, raising what it raised
                yield chunk_rows(self.base, chunk)
        self._finished = True


def _work(
    base: str, chunks: list[Sequence[str]], first: int, step: int, out: Connection, inherited: list[Connection]
) -> None:
    """A worker: fold every `step`-th chunk from `first` and send each as soon as it is ready."""
    for signum in (signal.SIGTERM, signal.SIGINT):  # not the handlers of the process it was forked from
        signal.signal(signum, signal.SIG_DFL)  # (the daemon's only set a flag): stop when told to
    for reader in inherited:  # forked copies of the parent's receiving ends, its own among them: only while
        reader.close()  # the parent alone holds them does a parent killed mid-rebuild end its workers' sends
    try:
        for number in range(first, len(chunks), step):
            out.send_bytes(marshal.dumps((number, chunk_rows(base, chunks[number]))))
    except BaseException:  # the parent folds what never arrived, and meets the error itself
        pass
    finally:
        out.close()
