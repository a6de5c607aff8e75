"""No remote string makes git run a command: hz.toml's `[state] remote` and `--remote` are attack surface.

Each payload would run `touch <marker>` if git took it as an option (`--upload-pack=…`), as a remote
helper (`ext::…`, `hzpwn::…` with a `git-remote-hzpwn` planted on PATH) or as ssh options. The control
test shows that the payloads do run the command when handed to git the way hz used to; every other test
shows that through hz they are refused with a message, or reach git harmlessly, and the marker never
appears. Three layers are tested on their own too: the shape check, `--`, and `GIT_ALLOW_PROTOCOL`.
Last, a bare repository planted by a commit: pushing to it by path would run its hooks.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from hz.gitenv import git_env
from hz.gitstate.remote_spec import RemoteRefused, check_remote
from hz.gitstate.transport import Git, TransportError
from tests.gitstate.factory import git, hz_id
from tests.turn.test_team import MONDAY, member

HINT = "name a remote of this repository (git remote -v), an https, ssh, git or file URL, user@host:path, or a path"
OPTION = "it starts with '-', which git would read as an option"
HELPER = "the '<transport>::<address>' form runs a git remote helper"
CONTROL = "it contains a control character (a newline, NUL or the like)"


@pytest.fixture
def marker(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A file only a hijacked git would create (a short path, so messages quote it whole), and a
    `git-remote-hzpwn` helper on PATH that creates it."""
    home = Path(tempfile.mkdtemp(prefix="hz"))
    (home / "bin").mkdir()
    helper = home / "bin" / "git-remote-hzpwn"
    helper.write_text(f"#!/bin/sh\ntouch {home / 'p'}\n")
    helper.chmod(0o755)
    monkeypatch.setenv("PATH", f"{home / 'bin'}{os.pathsep}{os.environ['PATH']}")
    yield home / "p"
    shutil.rmtree(home)


def attacks(m: Path) -> list[tuple[str, str]]:
    """(payload, why hz refuses it): the corpus of remote strings that ran, or could run, a command."""
    return [
        (f"--upload-pack=touch {m}", OPTION),
        (f"--receive-pack=touch {m}", OPTION),
        (f"--exec=touch {m}", OPTION),
        (f"-u touch {m}", OPTION),
        (f"-oProxyCommand=touch {m}:team.git", OPTION),
        (f"ssh://-oProxyCommand=touch%20{m}/team.git", "'-oProxyCommand=touch%20' is not a host name"),
        ("git@-oProxyCommand=id:team.git", _NOT_SCP),  # with a slash before the colon, git reads a path
        (f"ext::sh -c touch% {m}", HELPER),
        (f"ext::touch {m}", HELPER),
        ("fd::3", HELPER),
        ("hzpwn::team", HELPER),
        ("hzpwn://host/team.git", "the scheme 'hzpwn' is not one of https, ssh, git, file"),
        (f"origin\n--upload-pack=touch {m}", CONTROL),
        (f"origin\x00--upload-pack=touch {m}", CONTROL),
        ("http://example.com/team.git", "plain http is allowed to a loopback host only; use https"),
        ("", "it is empty"),
    ]


_NOT_SCP = "it is neither a URL, user@host:path nor a path (a colon before any slash means ssh to git)"
IDS = ["upload-pack", "receive-pack", "exec", "-u", "scp-proxy", "ssh-url-proxy", "user@-host", "ext-sh",
       "ext", "fd", "helper", "helper-scheme", "newline", "nul", "http", "empty"]  # fmt: skip


def refused(origin: str, payload: str, why: str) -> str:
    return f"error: {origin}: the remote {payload!r} is refused: {why}\n  hint: {HINT}\n"


def hostile_toml(repo: Path, payload: str) -> Path:
    path = repo / "hz.toml"
    path.write_text(f"[state]\nremote = {json.dumps(payload)}\n", encoding="utf-8")
    return path


# --- the control: handed to git as hz used to, the payloads do run ----------------------------------


def test_the_payloads_run_a_command_when_git_takes_them_as_given(marker: Path, bare: Path, repo: Path) -> None:
    plain = dict(os.environ)
    for argv in (
        ["ls-remote", f"--upload-pack=touch {marker}", str(bare)],  # the old `git ls-remote --refs <remote>`
        ["-c", "protocol.ext.allow=always", "ls-remote", f"ext::sh -c touch% {marker}"],
        ["ls-remote", "hzpwn::team"],
    ):
        marker.unlink(missing_ok=True)
        subprocess.run(["git", "-C", str(repo), *argv], capture_output=True, env=plain, check=False)
        assert marker.exists(), argv


# --- the shape check, where the remote enters -------------------------------------------------------


@pytest.mark.parametrize("row", range(16), ids=IDS)
@pytest.mark.parametrize("command", [("state", "log"), ("lease", "list")], ids=["state-log", "lease-list"])
def test_a_hostile_remote_in_hz_toml_is_refused(row: int, command: tuple[str, ...], marker: Path, repo: Path,
                                                hz: Any) -> None:  # fmt: skip
    payload, why = attacks(marker)[row]
    path = hostile_toml(repo, payload)
    result = hz(*command)
    assert (result.exit_code, result.out) == (1, "")
    assert result.err == refused(f"{path} [state] remote", payload, why)
    assert not marker.exists()


@pytest.mark.parametrize("row", range(16), ids=IDS)
@pytest.mark.parametrize(
    "command",
    [("state", "log"), ("lease", "list"), ("lease", "acquire", "hz-x", "--slot", "2026-10-30T15:00:00Z")],
    ids=["state-log", "lease-list", "lease-acquire"],
)
def test_a_hostile_remote_option_is_refused(row: int, command: tuple[str, ...], marker: Path, repo: Path,
                                            hz: Any) -> None:  # fmt: skip
    payload, why = attacks(marker)[row]
    result = hz(*command, "--remote", payload)
    assert (result.exit_code, result.out) == (1, "")
    assert result.err == refused("--remote", payload, why)
    assert not marker.exists()


@pytest.mark.parametrize("row", range(16), ids=IDS)
def test_a_hostile_remote_stops_the_team_part_of_a_tick(row: int, marker: Path, tmp_path: Path, bare: Path, hz: Any,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    payload, why = attacks(marker)[row]
    clone, environ = member(tmp_path, "priya", bare)
    path = hostile_toml(clone, payload)
    monkeypatch.chdir(clone)
    monkeypatch.setenv("HZ_HOME", environ["HZ_HOME"])
    monkeypatch.setenv("HZ_HANDLE", "@priya")
    result = hz("tick", "--now", MONDAY.isoformat())
    message = refused(f"{path} [state] remote", payload, why).removeprefix("error: ").split("\n  hint:")[0]
    assert (result.exit_code, result.out, result.err) == (1, f"hz/state: error: {message}\n", "")
    assert git("branch", "--list", "hz/draft/*", cwd=clone) == ""  # the team contract did not run unleased
    assert not marker.exists()


def test_the_real_cli_refuses_the_hz_toml_remote_of_a_tick(marker: Path, tmp_path: Path, bare: Path) -> None:
    """The console entry point, as a member's daemon runs it: `hz tick` takes the fast path past click."""
    payload = f"--upload-pack=touch {marker}"
    clone, environ = member(tmp_path, "priya", bare)
    path = hostile_toml(clone, payload)
    done = subprocess.run([sys.executable, "-m", "hz", "tick", "--now", MONDAY.isoformat()], cwd=clone, env=environ,
                          capture_output=True, text=True, check=False)  # fmt: skip
    message = f"{path} [state] remote: the remote {payload!r} is refused: {OPTION}"
    assert (done.returncode, done.stdout, done.stderr) == (1, f"hz/state: error: {message}\n", "")
    assert not marker.exists()


@pytest.mark.parametrize(
    "remote",
    ["origin", "team-remote.v2", "../served/team.git", "/srv/git/team.git", "~/team.git", "git@github.com:o/r.git",
     "github.com:o/r", "https://github.com/o/r.git", "https://x-access-token:t0k@github.com/o/r.git",
     "ssh://git@github.com:22/o/r.git", "git+ssh://host/r", "git://127.0.0.1:9418/team.git",
     "http://127.0.0.1:8080/team.git", "http://localhost/team.git", "http://[::1]:80/team.git",
     "file:///srv/git/team.git", "a/b::c"],
)  # fmt: skip
def test_real_remotes_are_accepted(remote: str) -> None:
    assert check_remote(remote, "hz.toml") == remote


# --- the layers below the shape check, each on its own -----------------------------------------------


def test_git_refuses_every_payload_itself_when_the_check_is_skipped(marker: Path, repo: Path) -> None:
    """A caller that skips the check still gets a RemoteRefused from the Git class, before git runs."""
    remote = Git(repo)
    for payload, _ in attacks(marker):
        with pytest.raises(RemoteRefused):
            remote.ls_remote(payload)
        with pytest.raises(RemoteRefused):
            remote.fetch(payload, ["+refs/heads/*:refs/x/*"])
        with pytest.raises(RemoteRefused):
            remote.push(payload, {"refs/heads/x": "0" * 40}, {})
    assert not marker.exists()


@pytest.mark.parametrize("verb", [["ls-remote", "--refs"], ["fetch", "--quiet"], ["push", "--porcelain"]])
def test_after_double_dash_an_option_is_a_path_git_refuses(verb: list[str], marker: Path, repo: Path,
                                                           bare: Path) -> None:  # fmt: skip
    """`--` alone (no shape check, no allow-list): git 2.39 takes the word as the repository and blocks it."""
    git("-C", str(repo), "commit", "-q", "--allow-empty", "-m", "x")
    for payload in (f"--upload-pack=touch {marker}", f"--receive-pack=touch {marker}", f"-u touch {marker}"):
        done = subprocess.run(["git", "-C", str(repo), *verb, "--", payload, "HEAD:refs/heads/x"],
                              capture_output=True, text=True, check=False)  # fmt: skip
        assert done.returncode != 0
        assert f"strange pathname '{payload}' blocked" in done.stderr
    # and the same `--` grammar works for a real remote on each verb
    ok = subprocess.run(["git", "-C", str(repo), *verb, "--", str(bare), "HEAD:refs/heads/x"],
                        capture_output=True, text=True, check=False)  # fmt: skip
    assert ok.returncode == 0 or "couldn't find remote ref HEAD" in ok.stderr, ok.stderr
    assert not marker.exists()


@pytest.mark.parametrize("payload", ["ext::sh -c touch% {m}", "fd::3", "hzpwn::team", "hzpwn://host/team.git"])
def test_the_allowed_protocols_stop_helpers_even_when_config_allows_them(payload: str, marker: Path,
                                                                          repo: Path) -> None:  # fmt: skip
    """`GIT_ALLOW_PROTOCOL` alone (no shape check): it wins over `protocol.<name>.allow=always`."""
    remote = payload.format(m=marker)
    scheme = remote.split(":")[0]
    with pytest.raises(TransportError) as caught:
        Git(repo).run("-c", f"protocol.{scheme}.allow=always", "ls-remote", "--", remote)
    assert caught.value.message == f"git ls-remote failed: fatal: transport '{scheme}' not allowed"
    assert not marker.exists()


def test_every_git_process_gets_the_allow_list_narrowed_to_the_users_own() -> None:
    assert git_env({})["GIT_ALLOW_PROTOCOL"] == "file:git:http:https:ssh"
    assert git_env({"GIT_ALLOW_PROTOCOL": "ssh:ext:https"})["GIT_ALLOW_PROTOCOL"] == "https:ssh"
    assert git_env({}, GIT_INDEX_FILE="/x")["GIT_INDEX_FILE"] == "/x"


# --- any string at all ------------------------------------------------------------------------------

_PIECES = ["", "-", "--", "-u", "-o", "--upload-pack=", "--receive-pack=", "--exec=", "ssh://", "git://", "file://",
           "https://", "http://", "git+ssh://", "ext::", "fd::", "hzpwn::", "hzpwn://", "u@", "@", ":", "::", "origin",
           "origin\n", "\x00", "[", "]", "%20", "-oProxyCommand=", "h.invalid:", "127.0.0.1", "/"]  # fmt: skip


def remotes(m: Path) -> st.SearchStrategy[str]:
    payloads = st.sampled_from([p for p, _ in attacks(m)])
    words = st.lists(st.sampled_from([*_PIECES, f"touch {m}", f"touch% {m}"]), max_size=5).map("".join)
    noise = st.text(max_size=6)
    return st.one_of(
        payloads,
        st.tuples(noise, payloads, noise).map("".join),
        st.tuples(words, noise, words).map("".join),
        st.text(max_size=30),
    )


def _fake_ssh(home: Path) -> tuple[Path, Path]:
    """An `ssh` that records the arguments git gives it and fails, so no ssh ever connects anywhere."""
    log = home / "ssh.log"
    ssh = home / "ssh"
    ssh.write_text(
        f"#!/bin/sh\nfor a in \"$@\"; do printf '%s\\0' \"$a\" >> {log}; done\nprintf '\\n' >> {log}\nexit 1\n"
    )
    ssh.chmod(0o755)
    return ssh, log


def _ssh_options(log: Path) -> list[str]:
    """Every argument git passed to ssh that ssh would read as an option, but for git's own `-o SendEnv`."""
    found: list[str] = []
    for call in log.read_text().splitlines() if log.exists() else []:
        args = call.split("\0")[:-1]
        for before, arg in zip(["", *args], args, strict=False):
            an_option = arg.startswith("-") and arg not in ("-o", "-p", "-4", "-6") and before not in ("-o", "-p")
            if an_option or (before == "-o" and arg != "SendEnv=GIT_PROTOCOL"):
                found.append(arg)
    return found


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_no_remote_string_makes_git_run_anything(data: st.DataObject, marker: Path, repo: Path) -> None:
    """Any remote is refused with an HzError, or git runs with it, runs no command and gets no ssh option."""
    ssh, log = _fake_ssh(marker.parent)
    environ = {**os.environ, "GIT_SSH_COMMAND": str(ssh), "ALL_PROXY": "http://127.0.0.1:9", "NO_PROXY": ""}
    remote = data.draw(remotes(marker))
    try:
        check_remote(remote, "test")
    except RemoteRefused:
        event("refused")
        return
    event("handed to git")
    git_ = Git(repo, environ)
    with contextlib.suppress(TransportError):
        git_.ls_remote(remote, "refs/heads/*")
    with contextlib.suppress(TransportError):
        git_.fetch(remote, ["+refs/heads/*:refs/hz/probe/*"])
    assert not marker.exists(), remote
    assert _ssh_options(log) == [], remote


# --- a repository planted by a commit: pushing to a local path runs that repository's hooks -----------


def plant(repo: Path, marker: Path) -> None:
    """Commit a bare repository whose pre-receive hook creates the marker (git keeps the executable bit)."""
    planted = repo / "planted.git"
    git("init", "-q", "--bare", str(planted))
    for sample in (planted / "hooks").glob("*.sample"):
        sample.unlink()
    hook = planted / "hooks" / "pre-receive"
    hook.write_text(f"#!/bin/sh\ntouch {marker}\n")
    hook.chmod(0o755)
    for keep in ("objects", "refs"):
        (planted / keep / ".keep").write_text("")
    git("-C", str(repo), "add", "-f", "planted.git")
    git("-C", str(repo), "commit", "-q", "-m", "a harmless-looking folder")


def test_a_push_to_a_planted_repository_runs_its_hook(marker: Path, repo: Path) -> None:
    """The control: git runs the hook of a repository a commit planted, when it is pushed to by path."""
    plant(repo, marker)
    git("-C", str(repo), "push", "-q", "--", "planted.git", "HEAD:refs/heads/x")
    assert marker.exists()


INSIDE = "it is a path inside this repository, where a commit could plant a repository whose hooks a push runs"


@pytest.mark.parametrize("remote", ["planted.git", "./planted.git", "sub/../planted.git", "{repo}/planted.git",
                                    "file://{repo}/planted.git", "file://planted.git", ".", ".git"])  # fmt: skip
def test_a_remote_inside_the_repository_is_refused_from_hz_toml(remote: str, marker: Path, repo: Path,
                                                                hz: Any) -> None:  # fmt: skip
    plant(repo, marker)
    payload = remote.format(repo=repo)
    path = hostile_toml(repo, payload)
    result = hz("lease", "acquire", hz_id(1), "--slot", "2026-10-30T15:00:00Z")
    assert (result.exit_code, result.out) == (1, "")
    assert result.err == refused(f"{path} [state] remote", payload, INSIDE)
    assert not marker.exists()


def test_a_configured_remote_of_the_same_name_is_the_remote(repo: Path, bare: Path, hz: Any,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    """As in git, a remote name configured here wins over a path of the same name."""
    plant(repo, repo / "never")
    git("-C", str(repo), "remote", "add", "planted.git", str(bare))
    hostile_toml(repo, "planted.git")
    monkeypatch.setenv("HZ_HANDLE", "@ann")
    assert hz("lease", "acquire", hz_id(1), "--slot", "2026-10-30T15:00:00Z").exit_code == 0
    assert git("--git-dir", str(bare), "for-each-ref", "--format=%(refname)").strip() == f"refs/hz/lease/{hz_id(1)}"
    assert not (repo / "never").exists()


def test_a_path_remote_the_member_types_is_theirs(repo: Path, bare: Path, hz: Any) -> None:
    """`--remote` is the member's own choice, so any shape-valid path is taken, inside the repository too."""
    result = hz("lease", "list", "--remote", ".")
    assert (result.exit_code, result.out) == (0, "no leases on .\n")
