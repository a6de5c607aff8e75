"""Attacks on the remote check that got past it: a committed remote that git opens in the repository
through a spelling hz did not look at, and ssh shapes the check let through for git alone to stop.

Git ignores the host of a `file://host/path` URL, and for a local path it also tries `<path>.git`; a
committed dangling link makes the spelling hz resolved point out of the repository while git opens the
planted repository next to it and runs its hook on push.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from hz.gitenv import git_env
from hz.gitstate.remote_spec import RemoteRefused, check_remote, refusal
from hz.gitstate.settings import load_state_settings
from tests.gitstate import test_remote_injection as injection
from tests.gitstate.factory import hz_id
from tests.gitstate.test_remote_injection import INSIDE, hostile_toml, plant, refused

marker = injection.marker  # the fixture: a file only a hijacked git creates

# (a link committed next to the planted repository, where it leads, the remote of hz.toml); `{repo}` is
# the repository's path
PLANTED = {
    "file-url-host": ("h", "/nonexistent", "file://h{repo}/planted.git"),  # git drops the host `h`
    "dot-git-suffix": ("p", "/nonexistent", "p"),  # `p` leads out, git falls back to `p.git`, planted
    "link-inside": ("l", "planted.git", "l"),  # held before too: the link is resolved
}


def _plant(repo: Path, marker: Path, case: str) -> str:
    """Plant the repository of `case` and the link next to it; the remote to name."""
    link, leads, remote = PLANTED[case]
    plant(repo, marker)
    if case == "dot-git-suffix":
        (repo / "planted.git").rename(repo / "p.git")
    os.symlink(leads, repo / link)
    return remote.format(repo=repo)


@pytest.mark.parametrize("case", list(PLANTED))
def test_git_runs_the_planted_hook_through_either_spelling(case: str, marker: Path, repo: Path) -> None:
    """The control: pushed to as written, git opens the planted repository and runs its hook."""
    remote = _plant(repo, marker, case)
    subprocess.run(["git", "-C", str(repo), "push", "-q", "--", remote, "HEAD:refs/heads/x"],
                   capture_output=True, env=git_env(), check=False)  # fmt: skip
    assert marker.exists()


@pytest.mark.parametrize("case", list(PLANTED))
def test_a_committed_remote_git_would_open_inside_is_refused(case: str, marker: Path, repo: Path, hz: Any) -> None:
    remote = _plant(repo, marker, case)
    path = hostile_toml(repo, remote)
    result = hz("lease", "acquire", hz_id(1), "--slot", "2026-10-30T15:00:00Z")
    assert (result.exit_code, result.out) == (1, "")
    assert result.err == refused(f"{path} [state] remote", remote, INSIDE)
    assert not marker.exists()


USER = "its user starts with '-', which ssh would read as an option"
NOT_SCP = "it is neither a URL, user@host:path nor a path (a colon before any slash means ssh to git)"


@pytest.mark.parametrize(
    ("remote", "why"),
    [
        ("ssh://-oProxyCommand=x@host/r", USER),  # git's own "strange hostname" check was the only stop
        ("ssh://%2DoProxyCommand=x@host/r", USER),  # git decodes the URL before that check
        ("ssh://host:-p/r", "it is not a well-formed URL (Port could not be cast to integer value as '-p')"),
        ("[-oProxyCommand=x]:r", NOT_SCP),
        ("[git@-oProxyCommand=x]:r", NOT_SCP),
        ("git@host:-oProxyCommand=x", NOT_SCP),  # a path that starts with '-'
    ],
)
def test_ssh_shapes_that_only_git_refused_are_refused_by_hz(remote: str, why: str) -> None:
    assert refusal(remote) == why


@pytest.mark.parametrize("remote", ["git@[::1]:r.git", "[git@host]:r.git", "[host:22]:r.git", "ssh://exa.mple:22/r"])
def test_bracketed_and_ported_ssh_remotes_stay_accepted(remote: str) -> None:
    assert check_remote(remote, "hz.toml") == remote


PROC = "it is a path through /proc or /dev, which names another place to git than to hz"


@pytest.mark.parametrize(
    "remote", ["/proc/self/cwd/planted.git", "file:///proc/self/cwd/planted.git", "/proc/thread-self/cwd/planted.git"]
)
def test_a_remote_through_proc_is_refused_from_any_working_directory(
    remote: str, marker: Path, repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A daemon ticks a repository from another working directory: there hz resolved `/proc/self/cwd` to
    that directory, while git, run in the repository, opened the planted repository and ran its hook."""
    plant(repo, marker)
    hostile_toml(repo, remote)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    subprocess.run(["git", "-C", str(repo), "push", "-q", "--", remote, "HEAD:refs/heads/x"],
                   capture_output=True, env=git_env(), check=False)  # fmt: skip
    assert marker.exists()  # the control: git takes it for the planted repository
    marker.unlink()
    with pytest.raises(RemoteRefused) as caught:
        load_state_settings(repo)
    assert caught.value.message == f"{repo / 'hz.toml'} [state] remote: the remote {remote!r} is refused: {PROC}"
    assert not marker.exists()
