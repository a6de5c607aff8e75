"""What binding agents to their repository costs a tick (issue 15, finding 7).

Run: .venv/bin/python bench/repo_identity.py [--runs N]
Two `hz init` repositories in one home, the first one's example contract adopted. Prints the median of
N fresh `hz tick` processes (default 20) for: an idle tick in the agent's repository (nothing due), a
tick in the other repository while the agent is due there (it must be placed: the identity is read),
and in process, reading a repository's identity once (the one git call a tick may make). Set
PYTHONPATH to another checkout to measure that one (the in-process figure then needs this one's hz).
Never asserts on time.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def run(argv: list[str], cwd: Path, env: dict[str, str]) -> float:
    start = time.perf_counter()
    done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    took = time.perf_counter() - start
    if done.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(argv)} failed: {done.stdout}{done.stderr}")
    return took


def git(*args: str, cwd: Path) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


def repository(path: Path, env: dict[str, str], hz: list[str]) -> Path:
    path.mkdir()
    git("init", "-q", "-b", "main", cwd=path)
    subprocess.run([*hz, "init"], cwd=path, env=env, check=True, capture_output=True)
    git("add", "-A", cwd=path)
    git("-c", "user.name=B", "-c", "user.email=b@example.invalid", "commit", "-q", "-m", "first", cwd=path)
    return path


def median_ms(argv: list[str], cwd: Path, env: dict[str, str], runs: int) -> float:
    run(argv, cwd, env)  # warm the index and the page cache
    return statistics.median(run(argv, cwd, env) for _ in range(runs)) * 1000


def next_monday() -> str:
    """08:05 UTC of the Monday after next, when the example contract's weekly slot is due."""
    from datetime import UTC, datetime, timedelta

    today = datetime.now(UTC)
    monday = today + timedelta(days=7 - today.weekday() + 7)
    return monday.strftime("%Y-%m-%dT08:05Z")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=20)
    runs = parser.parse_args().runs
    hz = [sys.executable, "-m", "hz"]
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        env = {**os.environ, "HZ_HOME": str(base / "home"), "HZ_HANDLE": "@bench"}
        a = repository(base / "a", env, hz)
        b = repository(base / "b", env, hz)
        subprocess.run([*hz, "workflow", "migrate"], cwd=a, env=env, check=True, capture_output=True)
        # its created turn runs first and its draft is rejected: nothing is due until next Monday's slot
        run([*hz, "tick"], a, env)
        drafts = subprocess.run([*hz, "drafts", "--json"], cwd=a, env=env, check=True, capture_output=True, text=True)
        for draft in json.loads(drafts.stdout):
            subprocess.run([*hz, "reject", draft["key"]], cwd=a, env=env, check=False, capture_output=True)
        for name, where in (("the agent's repository", a), ("another repository", b)):
            idle = median_ms([*hz, "tick"], where, env, runs)
            print(f"idle hz tick in {name}: median {idle:.1f} ms over {runs}")
        monday = next_monday()
        due = median_ms([*hz, "tick", "--now", monday], b, env, runs)
        print(f"hz tick in another repository with the agent due: median {due:.1f} ms over {runs}")
        try:
            from hz.heinzel.repository import Here
        except ImportError:
            return
        reads = []
        for _ in range(runs):
            start = time.perf_counter()
            Here(a).commit  # noqa: B018 - the read is what is timed
            reads.append(time.perf_counter() - start)
        print(f"reading a repository's identity (one git call): median {statistics.median(reads) * 1000:.2f} ms")


if __name__ == "__main__":
    main()
