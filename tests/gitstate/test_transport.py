"""Which protocol version hz reads with, per transport (measured choice, see hz/gitstate/transport.py)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from hz.gitstate.remote import TeamRemote
from hz.gitstate.transport import read_protocol
from tests.gitstate.factory import git, new_clone


@pytest.mark.parametrize(
    ("remote", "options"),
    [
        ("git://127.0.0.1:9418/team.git", ("-c", "protocol.version=0")),
        ("http://127.0.0.1:8080/team.git", ()),
        ("https://github.com/o/r.git", ()),
        ("/srv/git/team.git", ()),
        ("origin", ()),
    ],
)
def test_reads_over_git_daemon_use_protocol_v0_and_nothing_else_does(remote: str, options: tuple[str, ...]) -> None:
    assert read_protocol(remote) == options


def test_one_fetch_brings_a_ref_and_its_objects_or_says_it_is_missing_over_every_transport(
    tmp_path: Path, bare: Path, loopback: str, http: str
) -> None:
    scratch = new_clone(tmp_path / "scratch")
    git("-C", str(scratch), "commit", "-q", "--allow-empty", "-m", "a lease")
    git("-C", str(scratch), "push", "-q", str(bare), "HEAD:refs/hz/lease/x")
    commit = git("-C", str(scratch), "rev-parse", "HEAD").strip()
    for n, url in enumerate((str(bare), loopback, http)):
        team = TeamRemote(new_clone(tmp_path / f"c{n}"), url, {**os.environ, "HZ_HOME": str(tmp_path / f"h{n}")})
        assert team.current("refs/hz/lease/none") is None
        assert team.current("refs/hz/lease/x") == commit
        assert team.repo.get(commit) is not None
