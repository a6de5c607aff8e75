"""Actions runs keep the compiled contracts between them (`HZ_COMPILE_CACHE`, issue 22).

Each run is the tick workflow's fresh checkout and an empty `$HZ_HOME` (tests.turn.team_harness), with the
folder the generated workflow keeps through the Actions cache. The first run compiles main's contracts
and writes the file; the next run finds every compile there (the file is written back only when a compile
was missing or an entry was not used, so an untouched file means every lookup hit). A damaged file costs
a run its compiles, never its result.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from hz.contract.compile_cache import ENV, FILE
from tests.turn.test_late_runner import KEY
from tests.turn.test_stateless_run import PAST_GRACE, actions, finished, remote, tick


def test_the_second_run_compiles_nothing_and_a_damaged_file_costs_only_time(tmp_path: Path) -> None:
    bare = remote(tmp_path)
    kept = tmp_path / "runner-temp" / "hz-compiled"
    clone, environ = actions(tmp_path, bare, 301)
    assert tick(clone, {**environ, ENV: str(kept)}, PAST_GRACE) == [("started", "drafted")]
    stored = kept / FILE
    written, first = os.stat(stored), stored.read_bytes()
    assert stat.S_IMODE(written.st_mode) == 0o600 and len(first.splitlines()) >= 2  # the header, then entries

    again, again_env = actions(tmp_path, bare, 302)
    assert tick(again, {**again_env, ENV: str(kept)}, PAST_GRACE) == [("skipped", "ran-elsewhere")]
    assert os.stat(stored).st_mtime_ns == written.st_mtime_ns and stored.read_bytes() == first

    stored.write_bytes(first[: len(first) // 2])  # cut short, as a cache saved from a killed run could be
    third, third_env = actions(tmp_path, bare, 303)
    assert tick(third, {**third_env, ENV: str(kept)}, PAST_GRACE) == [("skipped", "ran-elsewhere")]
    assert stored.read_bytes() == first  # compiled again and written whole
    assert [e["key"] for e in finished(bare)] == [KEY]
