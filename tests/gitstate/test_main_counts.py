"""Main's count of a contract's versions (hz.gitstate.main_counts) is never below hz's own numbering.

hz numbers a team contract's versions by the first-parent commits of `main` that moved its fingerprint
(hz.heinzel.main_versions, which compiles each version); the hook bounds versions by the commits that
changed the contract's files, which it can read without compiling. Built with pygit2 on a bare repository:
wording edits, unrelated commits, defaults, a removal and a return.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pygit2

from hz.gitstate import objects
from hz.gitstate.main_counts import VersionCounts
from hz.heinzel.main_versions import versions_on_main
from tests.turn.test_late_runner import HOURLY, LEASE

NOW = datetime(2026, 10, 30, 15, tzinfo=UTC)
AGENT = LEASE
CONTRACT = HOURLY.replace('  maintainers: ["@omar"]\n', "").encode()  # maintainers from the defaults, later
WORDING = CONTRACT.replace(b"drafted every hour.", b"drafted every hour, briefly.")
SCHEDULE = CONTRACT.replace(b'schedule: "0 * * * *"', b'schedule: "30 * * * *"')
DEFAULTS = b'hz:\n  maintainers: ["@rita"]\n'


def history(repo: pygit2.Repository, steps: list[dict[str, bytes]]) -> str:
    """One first-parent commit per step, each tree exactly the step's files; the tip's id."""
    parents: list[str] = []
    for files in steps:
        tip = objects.make_commit(repo, objects.write_tree(repo, None, files), parents, "main\n", NOW)
        parents = [tip]
    objects.set_ref(repo, "refs/heads/main", parents[0])
    return parents[0]


def test_the_count_is_at_least_hz_s_version_and_reads_only_as_far_as_asked(tmp_path: Path) -> None:
    repo = pygit2.init_repository(str(tmp_path / "main.git"), bare=True)
    contract = "workflows/weekly.prose.md"
    steps = [
        {"README.md": b"hi\n"},  # before the contract: no version
        {contract: CONTRACT},  # 1 (hz: 1)
        {contract: CONTRACT, "README.md": b"docs\n"},  # other files: none
        {contract: WORDING},  # 2 (hz: wording moves no fingerprint)
        {contract: SCHEDULE},  # 3 (hz: 2)
        {contract: SCHEDULE, "workflows/_defaults.yaml": DEFAULTS},  # 4 (hz: 3, maintainers are in the fingerprint)
        {"README.md": b"gone\n"},  # removed: none
        {contract: SCHEDULE, "workflows/_defaults.yaml": DEFAULTS},  # 5, back (hz: 4)
    ]
    tip = history(repo, steps)
    hz_version = versions_on_main(Path(repo.path), tip)[AGENT.removeprefix("hz-")].version
    counts = VersionCounts(repo, (repo[tip],))
    assert counts.allows(AGENT, 1) == (True, 0)  # v1: nothing read
    assert counts.allows(AGENT, 2) == (True, 1)  # v2: the tip holds the contract, so main has one version
    assert counts.allows(AGENT, 3) == (True, 2)  # v3: back to the last change
    assert counts.allows(AGENT, 7) == (False, 5)  # the whole line read: five changes
    assert 5 >= hz_version >= 3
    assert counts.allows(AGENT, 6) == (True, 5)
    assert counts.allows("hz-01JB0000000000000000000099", 9) == (True, 0)  # no such contract: HZS019's case
