"""The spend ledger's cost per model call: one reservation and its settlement, each a durable commit.

Run: .venv/bin/python bench/reserve.py [--pairs 2000] [--dir PATH]

A fresh ledger file (WAL, `synchronous = FULL`: every commit is fsynced before `reserve` returns) in a
temporary folder, or in `--dir` to measure another disk. Printed:
- reserve alone (one fsynced commit), settle alone (committed without an fsync of its own, see
  `Ledger.settle`), and the pair, over `--pairs` pairs in one process (goal: the pair under 1 ms);
- the same pair with two processes reserving and settling against the same file at once, each timed in
  its own process (the `BEGIN IMMEDIATE` write lock makes one wait for the other);
- the read of today's total that the tick's cheap cap check makes;
- first, this disk's own fdatasync of a small write in place, the floor under any durable commit.
Figures only; nothing here fails on time. The disk matters most: tmpfs has no fsync cost, a laptop's
NVMe a few hundred microseconds, a network file system far more.
"""

from __future__ import annotations

import argparse
import multiprocessing
import multiprocessing.synchronize
import os
import tempfile
import time
from pathlib import Path

from timing import repeat, stats

from hz.spend.ledger import Ledger, Limits, Reserved

DAY = "2026-12-01"
LIMITS = Limits(turn_usd=1e9, day_usd=1e12)  # never binding: the figure is the transaction, not a refusal


def pairs(folder: Path, count: int, agent: str) -> tuple[list[float], list[float], list[float]]:
    ledger = Ledger.open(folder)
    reserve, settle, both = [], [], []
    for n in range(count):
        began = time.perf_counter()
        found = ledger.reserve(agent=agent, turn=f"{agent}-{n}", runner="model", day=DAY, limits=LIMITS,
                               least=0.001, most=0.34)  # fmt: skip
        reserved = time.perf_counter()
        assert isinstance(found, Reserved)
        ledger.settle(found.id, 0.0042)
        done = time.perf_counter()
        reserve.append(reserved - began)
        settle.append(done - reserved)
        both.append(done - began)
    ledger.close()
    return reserve, settle, both


def _contend(
    folder: str, count: int, agent: str, start: multiprocessing.synchronize.Event, out: multiprocessing.Queue
) -> None:  # type: ignore[type-arg]
    Ledger.open(Path(folder)).close()
    start.wait()
    out.put((agent, pairs(Path(folder), count, agent)[2]))


def contended(folder: Path, count: int) -> dict[str, list[float]]:
    context = multiprocessing.get_context("spawn")
    start, out = context.Event(), context.Queue()
    workers = [context.Process(target=_contend, args=(str(folder), count, name, start, out)) for name in ("a", "b")]
    for worker in workers:
        worker.start()
    time.sleep(1.0)  # both have imported hz and opened the file
    start.set()
    found = dict(out.get(timeout=600) for _ in workers)
    for worker in workers:
        worker.join()
    return found


def fsync_floor(folder: Path, count: int = 300) -> list[float]:
    """A small write in place and its fdatasync (what SQLite does to its log), alone: the floor under any
    durable commit on this disk."""
    path = folder / "fsync-probe"
    path.write_bytes(b"\0" * 4096)
    fd = os.open(path, os.O_RDWR)
    runs = []
    try:
        for n in range(count):
            began = time.perf_counter()
            os.pwrite(fd, n.to_bytes(4, "big") * 25, 0)
            os.fdatasync(fd)
            runs.append(time.perf_counter() - began)
    finally:
        os.close(fd)
    return runs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=2000)
    parser.add_argument("--dir", type=Path, default=None)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(dir=args.dir) as raw:
        folder = Path(raw)
        print(f"this disk's fdatasync:    {stats(fsync_floor(folder))}")
        reserve, settle, both = pairs(folder / "one", args.pairs, "a")
        print(f"reserve alone:            {stats(reserve)}")
        print(f"settle alone:             {stats(settle)}")
        print(f"reserve + settle:         {stats(both)}")
        for name, runs in sorted(contended(folder / "two", args.pairs).items()):
            print(f"two processes, {name}:       {stats(runs)}")
        ledger = Ledger.open(folder / "one")
        print(f"today's total (read):     {stats(repeat(lambda: ledger.day_total(DAY), 500))}")
        print(f"ledger rows:              {2 * args.pairs} across both files, {ledger.day_total(DAY):.4f} USD in one")


if __name__ == "__main__":
    main()
