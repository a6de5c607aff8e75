"""A tick looks at the first line of each pending file draft; whatever is planted there never hangs it."""

from __future__ import annotations

import os
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest

from hz.tick.daemon import tick
from tests.deadline import within
from tests.turn.agents import adopt, contract_text

MONDAY = datetime(2026, 10, 26, 9, 0, tzinfo=UTC)
DRAFT = "notes/2026-W44.md"


@pytest.mark.parametrize("plant", ["fifo", "folder", "link-to-zero", "not-utf8"])
def test_a_draft_path_that_is_no_draft_file_counts_as_moved_without_waiting(repo: Path, plant: str) -> None:
    adopt(contract_text(), now=MONDAY)
    assert [e["disposition"] for e in tick(root=repo, now=MONDAY).woken] == ["drafted"]
    draft = repo / DRAFT
    draft.unlink()
    if plant == "fifo":
        os.mkfifo(draft)
    elif plant == "folder":
        draft.mkdir()
    elif plant == "link-to-zero":
        draft.symlink_to("/dev/zero")
    else:
        draft.write_bytes(b"\xff\xfe\n")
    started = time.monotonic()
    with within(10):  # a FIFO opened for reading waited for a writer forever
        report = tick(root=repo, now=MONDAY)
    # timed as well: the deadline's TimeoutError is an OSError, which a read that expects one swallows
    assert time.monotonic() - started < 5
    if plant == "not-utf8":  # read as text by the closer look, and named there (it crashed the tick)
        said = f"{draft} is not UTF-8 text (byte 0)"
        assert report.woken == [{"agent": "weekly-note", "action": "error", "error": said}]
    else:
        assert report.woken == []
