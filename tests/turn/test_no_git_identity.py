"""hz's own commits never need the machine's git identity, and a failed turn never stays `running`.

A GitHub Actions runner has no `user.name`/`user.email`; git then prints its identity prompt, which
quotes an example address, and the spine refuses any event holding an address. Here the runner has no
identity at all: no GIT_AUTHOR_*/GIT_COMMITTER_*, an empty HOME, no system or global configuration,
and `user.useConfigOnly` so git does not guess one from the host name either.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hz.addresses import looks_like_address
from hz.runners.base import RunnerError, ThinkRequest, ThinkResult
from hz.session.store import Store
from hz.tick.daemon import tick
from hz.turn.reasons import ADDRESS, ERROR_CHARS, recordable
from tests.turn.test_team import MONDAY, git, member
from tests.turn.test_team_drafts import _drafts, _team_repo

IDENTITY = ("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL", "EMAIL")
PROMPT = 'git config --global user.email "you@example.com"'


def no_identity(environ: Mapping[str, str], home: Path) -> dict[str, str]:
    home.mkdir(exist_ok=True)
    bare = {k: v for k, v in environ.items() if k not in IDENTITY}
    return {**bare, "HOME": str(home), "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull}


def test_hz_tick_drafts_a_team_branch_on_a_runner_without_a_git_identity(tmp_path: Path) -> None:
    bare = _team_repo(tmp_path)
    clone, environ = member(tmp_path, "priya", bare)
    git("config", "user.useConfigOnly", "true", cwd=clone)
    env = no_identity(environ, tmp_path / "empty-home")
    # the precondition: git itself cannot commit here
    refused = subprocess.run(["git", "commit", "--allow-empty", "-q", "-m", "x"], cwd=clone, env=env,
                             capture_output=True, text=True, check=False)  # fmt: skip
    assert refused.returncode == 128 and "you@example.com" in refused.stderr

    done = subprocess.run([sys.executable, "-m", "hz", "tick", "--now", "2026-10-26T09:00Z"], cwd=clone, env=env,
                          capture_output=True, text=True, timeout=120, check=False)  # fmt: skip
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout.splitlines() == ["team-note: started -> drafted"]
    (ref, commit), *_ = _drafts(bare).items()
    assert _drafts(clone / ".git") == {ref: commit}
    signed = git("log", "-1", "--format=%an <%ae>|%cn <%ce>", commit, cwd=clone)
    assert signed == "hz <hz>|hz <hz>"  # no member's name or address travels to the forge


class AddressedFailure:
    """A model endpoint whose error quotes an address (as git's identity prompt does)."""

    name = "addressed"

    def worst_case_usd(self, max_tokens: int) -> float:
        return 0.0

    def think(self, request: ThinkRequest) -> ThinkResult:
        raise RunnerError(f"the endpoint said: Run\n\n  {PROMPT}\n\nto set your account's default identity.")


def test_a_failure_whose_words_hold_an_address_settles_the_turn_as_failed(tmp_path: Path) -> None:
    bare = _team_repo(tmp_path)
    clone, environ = member(tmp_path, "priya", bare)

    report = tick(root=clone, environ=environ, now=MONDAY, runner=AddressedFailure())
    said = f"the endpoint said: Run\n\n  git config --global user.email {ADDRESS}\n\n"
    said += "to set your account's default identity."
    assert report.woken == [
        {**report.woken[0], "action": "started", "disposition": "failed", "reason": "runner", "error": said}
    ]
    with Store.from_environ(environ) as store:
        assert store.index.running_turns() == []
        (agent,) = store.index.agents()
        (turn,) = store.index.turns(agent["id"])
        assert (turn["status"], turn["disposition"]) == ("finished", "failed")
    # the failure is a receipt like any other: the slot is settled on hz/state too, and nothing there
    # holds the address
    files = git("--git-dir", str(bare), "ls-tree", "-r", "--name-only", "hz/state").splitlines()
    assert len(files) == 2  # started, finished
    shown = git("--git-dir", str(bare), "log", "-p", "hz/state")
    assert "you@example.com" not in shown


@given(st.text(alphabet=st.sampled_from("ab.@ \n-_+xyz.com\u00e9"), max_size=3000))
def test_a_recorded_reason_never_holds_an_address_and_keeps_to_its_bound(text: str) -> None:
    kept = recordable(text, ERROR_CHARS)
    assert not looks_like_address(kept)
    assert len(kept) <= ERROR_CHARS
    if not looks_like_address(text) and len(text) <= ERROR_CHARS:
        assert kept == text  # words without an address are kept as they were


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        ('"you@example.com"', ADDRESS),
        ("mail priya@corp.example.org, or omar", f"mail {ADDRESS} or omar"),
        ("an @handle and a@b are no addresses", "an @handle and a@b are no addresses"),
    ],
)
def test_address_words_are_replaced_whole(text: str, kept: str) -> None:
    assert recordable(text, ERROR_CHARS) == kept
