"""A team tick on a machine without the git command says so, instead of a crash log."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def test_a_team_tick_without_git_on_path_is_a_clear_error(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
    subprocess.run(["git", "init", "-q", "--bare", str(tmp_path / "team.git")], check=True)
    (repo / "hz.toml").write_text(f'[state]\nremote = "{tmp_path / "team.git"}"\n', encoding="utf-8")
    subprocess.run(["git", "-C", str(repo), "add", "hz.toml"], check=True)
    subprocess.run(["git", "-C", str(repo), "commit", "-qm", "team"], check=True)
    empty = tmp_path / "bin"
    empty.mkdir()
    env = {**os.environ, "PATH": str(empty)}
    done = subprocess.run([sys.executable, "-m", "hz", "tick"], cwd=repo, env=env, capture_output=True, text=True,
                          check=False, timeout=120)  # fmt: skip
    assert done.returncode != 3, done.stderr
    assert "git is not installed, or not on PATH" in done.stdout + done.stderr
    assert "Traceback" not in done.stderr and "crash log" not in done.stderr
