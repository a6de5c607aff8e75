"""Bookkeeping cost follows live work: forged or orphaned receipts on `hz/state` cost nothing per tick.

Issue 20, finding 7: 100,000 forged approvals on a remote without the hook made every tick take 17–28 s.
The team of bench/forged_state.py (a yearly contract, 50 real drafts approved by a member) gets 4,000
forged approvals written straight into its remote: half under the contract's id, for drafts never
placed and by someone the roster does not list, half under ids no contract on `main` has. After one
real tick, the approval bookkeeping of an idle tick reads no event file at all; the receipts under
unknown ids are never even listed. Counts, not times (bench/forged_state.py prints the times).
"""

from __future__ import annotations

import subprocess
import sys
from datetime import timedelta
from pathlib import Path
from typing import Any

from bench.forged_state import AGENT, NOW, team
from hz.gitstate import objects
from hz.gitstate.events import Event
from hz.gitstate.layout import STATE_REF
from hz.gitstate.remote import TeamRemote
from hz.review.approval_publish import due_publishes
from hz.review.approval_state import StateBook, undecided
from hz.review.approval_watch import Main


class Counting(StateBook):
    """A StateBook that counts the event files it reads."""

    reads = 0

    def read(self, path: str) -> Event | None:
        Counting.reads += 1
        return super().read(path)


def test_an_idle_ticks_bookkeeping_reads_no_forged_receipt(tmp_path: Path) -> None:
    clone, environ, _ = team(tmp_path, 4100)
    done = subprocess.run([sys.executable, "-m", "hz", "tick", "--now", NOW.isoformat()], cwd=clone, env=environ,
                          capture_output=True, text=True, check=False)  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    remote = TeamRemote(clone, str(tmp_path / "team.git"), environ)
    main = Main(remote, str(objects.resolve(remote.repo, remote.tracking("refs/heads/main"))))
    tip = objects.resolve(remote.repo, remote.tracking(STATE_REF))
    Counting.reads = 0
    book = Counting(remote.repo, tip, main.contracts.declared)
    due, still_open = due_publishes(main, book, NOW + timedelta(minutes=5), {})
    undecided(book, main.output_of, _decided(remote))
    listed = {path.split("/")[1] for path in book.files}
    assert (due, still_open, Counting.reads, listed) == ([], False, 0, {AGENT})
    everything = StateBook(remote.repo, tip)
    assert len(everything.files) == 4100 and len({p.split("/")[1] for p in everything.files}) == 2001


def _decided(remote: TeamRemote) -> Any:
    from hz.review.approval_state import remembered

    return remembered(remote.local_dir)
