"""How fast `hz workflow validate` starts: a fresh process per run, as a pre-commit hook runs it.

Two cases: `hz workflow validate FILE` on one contract in a bare git repository, and plain
`hz workflow validate` in a repository `hz init` set up (hz.toml with [state], policies, defaults),
which is what the hook in its `.pre-commit-config.yaml` runs on each commit. Goal: median under
250 ms on this machine. Printed beside two baselines that bound what hz can do: a bare `python -c pass`
(the interpreter alone) and `python -c "import hz"` (the package's root). With `--imports` it also
prints the slowest top-level imports of one run (`python -X importtime`), cumulative.

Run: .venv/bin/python bench/validate_start.py [--runs 20] [--imports]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

HZ = Path(sys.executable).parent / "hz"

CONTRACT = """\
---
name: weekly-report
kind: responsibility
id: 01KB7M3Q8RZ4W2N6YDXG5T0HCB
description: Keeps the weekly report current for the people who read it.
hz:
  schema: 1
  title: Weekly report
  owner: "@owner"
  scope: team
  schedule: "0 7 * * MON"
  inputs:
    history:
      source: "git:."
      window: 7d
  outputs:
    report:
      target: "state:reports/weekly.md"
      facets: [summary]
---

# Weekly report

### Goal

The report is current and agrees with the week's history.

### Requires

- `history`: the commits of the past seven days.

### Maintains

- `report`: one Markdown page.

#### summary

Material: what changed. Immaterial: wording.

### Done when

- [ ] every change is listed once
"""


def timed(command: Sequence[str], cwd: Path, env: dict[str, str], runs: int) -> tuple[list[float], list[float]]:
    """Wall and CPU seconds of `runs` fresh processes, after one run that writes the bytecode caches.

    CPU time (user + system of the child) is printed too: on a shared, loaded machine wall time mostly
    measures the neighbours, CPU time what the process itself costs."""
    subprocess.run(command, cwd=cwd, capture_output=True, env=env, check=False)
    walls: list[float] = []
    cpus: list[float] = []
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        done = subprocess.run(command, cwd=cwd, capture_output=True, env=env, check=False)
        walls.append(time.perf_counter() - start)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
        if done.returncode != 0:
            raise SystemExit(f"{' '.join(command)} failed:\n{done.stdout.decode()}{done.stderr.decode()}")
    return walls, cpus


def slowest_imports(command: Sequence[str], cwd: Path, env: dict[str, str], count: int) -> list[str]:
    """The top-level imports of one run with the most cumulative time, from `-X importtime`."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", *command], cwd=cwd, env=env, capture_output=True, text=True
    )
    rows: list[tuple[int, str]] = []
    for line in done.stderr.splitlines():
        if not line.startswith("import time:") or "cumulative" in line:
            continue
        _, cumulative, name = line.removeprefix("import time:").split("|")
        if not name.startswith("  "):  # a top-level import: its cumulative time includes its children
            rows.append((int(cumulative), name.strip()))
    rows.sort(reverse=True)
    return [f"{us / 1000:7.1f} ms  {name}" for us, name in rows[:count]]


def initialized(team: Path, env: dict[str, str]) -> dict[str, str] | None:
    """A repository as `hz init` leaves it, and the environment of its private home; None when init fails."""
    subprocess.run(["git", "init", "-q", str(team)], check=True)
    home = {**env, "HZ_HOME": str(team.parent / "home"), "HZ_CONFIG_HOME": str(team.parent / "config")}
    done = subprocess.run([str(HZ), "init"], cwd=team, env=home, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        print(f"hz init failed, the second case is left out:\n{done.stdout}{done.stderr}")
        return None
    return home


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--imports", action="store_true", help="also print the slowest imports of one run")
    args = parser.parse_args()
    # As on a user's machine: bytecode caches allowed (this workplace sets PYTHONDONTWRITEBYTECODE).
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    with tempfile.TemporaryDirectory() as folder:
        repo = Path(folder)
        subprocess.run(["git", "init", "-q", str(repo)], check=True)
        (repo / "workflows").mkdir()
        path = repo / "workflows" / "weekly-report.prose.md"
        path.write_text(CONTRACT, encoding="utf-8")
        python = sys.executable
        rows = {
            "python -c pass": timed([python, "-c", "pass"], repo, env, args.runs),
            "python -c 'import hz'": timed([python, "-c", "import hz"], repo, env, args.runs),
            "hz workflow validate FILE": timed([str(HZ), "workflow", "validate", str(path)], repo, env, args.runs),
        }
        team = Path(folder) / "team"
        if (home := initialized(team, env)) is not None:
            rows["hz workflow validate (hz init)"] = timed([str(HZ), "workflow", "validate"], team, home, args.runs)
        print(f"load average while measuring: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
        for label, (walls, cpus) in rows.items():
            print(
                f"{label:31} wall median {statistics.median(walls) * 1000:5.0f} ms, min {min(walls) * 1000:5.0f} ms;"
                f" CPU median {statistics.median(cpus) * 1000:5.0f} ms  ({args.runs} fresh processes)"
            )
        print("goal: hz workflow validate FILE under 250 ms (median)")
        if args.imports:
            print("slowest imports of one run (cumulative):")
            for line in slowest_imports([str(HZ), "workflow", "validate", str(path)], repo, env, 15):
                print(" ", line)


if __name__ == "__main__":
    main()
