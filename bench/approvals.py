"""The approval bookkeeping's cost per tick on a grown hz/state: the look at every team draft's fate.

Run: .venv/bin/python bench/approvals.py [--quick]

A local repository whose hz/state holds N drafts placed (one contract, hourly, each with its fate
already recorded) and three still waiting. Measured, median of 5, for N = 100, 1,000, 5,000 (10,000
without --quick): `undecided` the first time (a fresh clone: every `draft.placed` read and its fate
looked up), and again with the paths a past tick found decided (a member's tick: only the waiting ones
read). Figures only.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from hz.gitstate import objects
from hz.gitstate.events import ApprovalObserved, DraftPlaced, Event, path_of
from hz.review.approval_state import StateBook, undecided

AGENT = "hz-01KC3333333333333333333333"
HASH = "sha256:" + "ab" * 32


def state(repo_dir: Path, n: int, waiting: int = 3) -> str:
    repo = objects.open_repo(repo_dir)
    start = datetime(2026, 1, 1, tzinfo=UTC)
    files: dict[str, bytes] = {}
    for i in range(n):
        slot = start + timedelta(hours=i)
        asset = f"state:pulse/{slot:%Y%m%dT%H%M}.md"
        key = f"{AGENT}@v1@{slot:%Y-%m-%dT%H:%MZ}@{asset}"
        ts = f"{slot:%Y-%m-%dT%H:%M:%S}Z"
        data = DraftPlaced(turn="01KC0000000000000000000000", key=key, asset=asset, hash=HASH)
        placed = Event.make("draft.placed", id=AGENT, key=key, ts=ts, lease=AGENT, token=1, data=data)
        files[path_of(placed)] = placed.line()
        if i < n - waiting:
            fate = ApprovalObserved(key=key, asset=asset, approver="@rita", share_changed=0.1, output_fp=HASH)
            approved = Event.make("approval.observed", id=AGENT, key=key, ts=ts, lease=AGENT, token=1, data=fate)
            files[path_of(approved)] = approved.line()
    tree = objects.write_tree(repo, None, files)
    return objects.make_commit(repo, tree, [], f"hz-state: {len(files)} events\n", start)


def main(quick: bool) -> None:
    sizes = [100, 1000, 5000] if quick else [100, 1000, 5000, 10000]
    print(f"{'drafts':>8} {'first look ms':>14} {'with the cache ms':>18}")
    for n in sizes:
        with tempfile.TemporaryDirectory() as scratch:
            repo_dir = Path(scratch)
            subprocess.run(["git", "init", "-q", str(repo_dir)], check=True)
            tip = state(repo_dir, n)
            spans, again = [], []
            for _ in range(5):
                book = StateBook(objects.open_repo(repo_dir), tip)
                began = time.perf_counter()
                found, decided = undecided(book, lambda placed: "pulse")
                spans.append((time.perf_counter() - began) * 1000)
                book = StateBook(objects.open_repo(repo_dir), tip)
                began = time.perf_counter()
                found, _ = undecided(book, lambda placed: "pulse", frozenset(decided))
                again.append((time.perf_counter() - began) * 1000)
            assert len(found) == 3
            print(f"{n:>8} {statistics.median(spans):>14.1f} {statistics.median(again):>18.1f}")


if __name__ == "__main__":
    main("--quick" in sys.argv)
