"""This repository's `.pre-commit-hooks.yaml`, run by the real `pre-commit try-repo` in a repository made by `hz init`.

try-repo clones this repository (with its uncommitted changes), builds hz into a fresh virtual
environment from PyPI and runs every hook the manifest lists, as a team's pre-commit would. That takes
about a minute, hence `slow`; one run covers both hooks, one passing and one failing.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from .contracts import contract

Hz = Any  # the conftest fixture: hz(*argv) -> CliResult

ROOT = Path(__file__).resolve().parents[2]
PRE_COMMIT = Path(sys.executable).parent / "pre-commit"


@pytest.mark.slow
def test_try_repo_runs_both_hooks_in_a_repository_made_by_hz_init(hz: Hz, repo: Path, tmp_path: Path) -> None:
    assert PRE_COMMIT.exists(), "pre-commit is in the [test] extra: pip install -e '.[test]'"
    assert hz("init", "--owner", "@alice").exit_code == 0
    # a second contract that validates, but CODEOWNERS was not regenerated: only hz-codeowners fails
    (repo / "workflows/notes.prose.md").write_text(contract("notes"), encoding="utf-8")
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True)
    environ = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home")}
    done = subprocess.run([str(PRE_COMMIT), "try-repo", str(ROOT), "--all-files"], cwd=repo, env=environ,
                          capture_output=True, text=True, timeout=900, check=False)  # fmt: skip
    assert re.search(r"^hz workflow validate\.+Passed$", done.stdout, re.MULTILINE), done.stdout + done.stderr
    assert re.search(r"^hz codeowners --check\.+Failed$", done.stdout, re.MULTILINE), done.stdout + done.stderr
    assert "+/workflows/notes.prose.md @alice" in done.stdout
    assert done.returncode == 1
