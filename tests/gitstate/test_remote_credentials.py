"""A credential in a remote URL is never printed, stored or part of a name hz derives from the remote."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from hz.gitstate.remote import TeamRemote
from hz.gitstate.remote_spec import redact_text, redact_url
from tests.gitstate.factory import hz_id

SECRET = "s3cret-t0ken"
HINT = "check the remote ([state] remote in hz.toml, or --remote) and your access to it"


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        (f"https://user:{SECRET}@github.com/o/r.git", "https://github.com/o/r.git"),
        (f"https://{SECRET}@github.com/o/r.git", "https://github.com/o/r.git"),
        (f"https://x-access-token:{SECRET}@github.com:443/o/r", "https://github.com:443/o/r"),
        (f"ssh://git:{SECRET}@host/r.git", "ssh://host/r.git"),
        (f"https://u:p@ss:{SECRET}@host/r", "https://host/r"),  # an unencoded @ in the password
        ("https://github.com/o/r.git", "https://github.com/o/r.git"),
        ("git@github.com:o/r.git", "git@github.com:o/r.git"),  # scp-like ssh has a user, never a password
        ("/srv/team@2.git", "/srv/team@2.git"),
        ("origin", "origin"),
    ],
)
def test_redact_url_leaves_out_the_user_information(url: str, shown: str) -> None:
    assert redact_url(url) == shown


def test_git_s_echo_of_a_remote_is_cut_even_without_its_scheme() -> None:
    said = f"fatal: unable to look up u:{SECRET}@127.0.0.1:9 (port 9418); see 'https://u:{SECRET}@h/x/'"
    remote = f"git://u:{SECRET}@127.0.0.1:9/team.git"
    assert redact_text(said, remote) == "fatal: unable to look up 127.0.0.1:9 (port 9418); see 'https://h/x/'"
    encoded = f"https://u:{SECRET}%40x@h/r"  # git prints the password percent-decoded in some messages
    assert redact_text(f"for u:{SECRET}@x", encoded) == "for "


def test_names_derived_from_a_remote_do_not_change_with_its_token(repo: Path) -> None:
    first = TeamRemote(repo, f"https://u:{SECRET}@example.com/team.git")
    second = TeamRemote(repo, "https://u:rotated@example.com/team.git")
    assert first.label == "https://example.com/team.git"
    assert (first.sync_prefix, first.local_dir) == (second.sync_prefix, second.local_dir)
    assert SECRET not in first.sync_prefix + str(first.local_dir)


@pytest.mark.parametrize("scheme", ["https", "git"])
def test_a_failing_remote_is_named_without_its_credential(scheme: str, repo: Path, hz: Any) -> None:
    result = hz("lease", "list", "--remote", f"{scheme}://u:{SECRET}@127.0.0.1:9/team.git")
    assert (result.exit_code, result.out) == (1, "")
    first = result.err.splitlines()[0]
    if scheme == "https":
        assert first.startswith(
            "error: git ls-remote failed: fatal: unable to access 'https://127.0.0.1:9/team.git/': "
        )
    else:
        assert first.startswith("error: git ls-remote failed: fatal: unable to look up 127.0.0.1:9 (port 9418) (")
    assert result.err.endswith(f"\n  hint: {HINT}\n")
    assert SECRET not in result.err and "u:" not in result.err


def test_a_refused_remote_is_quoted_without_its_credential(repo: Path, hz: Any) -> None:
    result = hz("state", "log", "--remote", f"ftp://u:{SECRET}@example.com/team.git")
    assert (result.exit_code, result.out) == (1, "")
    assert result.err.splitlines()[0] == (
        "error: --remote: the remote 'ftp://example.com/team.git' is refused: "
        "the scheme 'ftp' is not one of https, ssh, git, file"
    )


def test_nothing_hz_or_git_keeps_holds_the_credential(repo: Path, http: str, hz: Any,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    """Over the loopback smart-http remote: a lease taken, the state read; then every file is searched."""
    remote = http.replace("http://", f"http://u:{SECRET}@")
    (repo / "hz.toml").write_text(f'[state]\nremote = "{remote}"\n')
    monkeypatch.setenv("HZ_HANDLE", "@ann")
    assert hz("lease", "acquire", hz_id(1), "--slot", "2026-10-30T15:00:00Z").exit_code == 0
    assert hz("state", "log").out == "hz/state: no events yet\n"
    listed = hz("lease", "list")
    assert listed.exit_code == 0 and SECRET not in listed.out
    places = [repo / ".git", Path(os.environ["HZ_HOME"])]  # HZ_HOME is this test's own (tests/conftest.py)
    found = subprocess.run(["grep", "-rl", SECRET, *map(str, places)], capture_output=True, text=True, check=False)
    assert (found.returncode, found.stdout) == (1, "")
