"""The year benchmark's history is one hz accepts: bench/year.py writes hz/state as a team's daily compaction
leaves it (each day's hourly commits, then at 04:07 UTC the archive steps hz itself plans and builds), and
the figures it prints are only worth something if that synthesized branch is exactly what a real team's
would be. Ten days of three contracts pass the archive's horizon (eight days), so day files of marks are
added and dropped on the way."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
import year_history  # bench/ is a folder of scripts, not a package

DAYS, CONTRACTS = 10, 3
PER_HOUR = CONTRACTS * 4  # turn.started, turn.finished, draft.placed, the hour before's draft.superseded


def tip_files(bare: Path) -> list[str]:
    listed = subprocess.run(["git", "--git-dir", str(bare), "ls-tree", "-r", "--name-only", "refs/heads/hz/state"],
                            capture_output=True, text=True, check=True)  # fmt: skip
    return listed.stdout.split()


def test_the_daily_compacted_year_lints_clean_and_its_tip_holds_about_a_day(tmp_path: Path) -> None:
    bare, _, steps = year_history.make_remote(tmp_path, "year", str(tmp_path / "year.git"), CONTRACTS, DAYS * 24)
    assert steps >= DAYS - 2  # an archive step a day at 04:07, once a day has passed since the first hour
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(bare), str(clone)], check=True)
    _, linted = year_history.hz(["state", "lint"], clone, year_history.environ(tmp_path / "linter"))
    assert linted.returncode == 0, linted.stdout[-2000:] + linted.stderr[-2000:]
    assert "clean" in linted.stdout

    files = tip_files(bare)
    events = [f for f in files if f.startswith("events/")]
    # the tip holds the day kept at the last 04:07 and the hours since (two days at most), not ten
    assert 24 * PER_HOUR <= len(events) <= 2 * 24 * PER_HOUR + 2 * PER_HOUR, len(events)
    days = [f for f in files if f.startswith("archive/") and len(f) == len("archive/2026-01-01")]
    assert 1 <= len(days) <= 9, days  # marks of the week moved; the day files behind the horizon dropped
