"""Adopting every team contract on main into an empty `$HZ_HOME`: what each Actions run pays first.

Run: .venv/bin/python bench/adoption.py [--contracts 200] [--rounds 3] [--baseline REF]

A repository whose main holds `--contracts` hourly team contracts; each round adopts all of them into a
new empty home, as the tick does (`hz.tick.team_adoption.adopt_new_team_contracts`), after a warm-up
adoption in another home (imports and first compiles left out). Printed per code: wall and CPU time per
contract (median of the rounds), and the kernel's part of the CPU time: on a file system without a journal
(this machine's) creating a file costs more the more files were deleted in the last minutes nearby.
With `--baseline REF` (a commit or branch of this repository) that commit's code (exported with `git
archive`) runs the same rounds in the same run, each round of it just before the same round of this code:
fsync costs on a shared disk move by 10x within minutes. The line `cached` is this code with the compiled
contracts kept in a folder (`HZ_COMPILE_CACHE`), as the generated tick workflow keeps them between Actions
runs: the warm-up fills it, the measured adoption reads it. Figures only.
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
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent.parent
CONTRACT = """---
name: pulse-{n}
kind: responsibility
id: 01KD{n:022d}
description: A contract for the benchmark.
hz:
  schema: 1
  title: Pulse {n}
  owner: "@priya"
  scope: team
  schedule: "{minute} * * * *"
  outputs:
    pulse:
      target: "state:pulse/pulse-{n}/{{slot:%Y%m%dT%H%M}}.md"
      facets: [summary]
---

# Pulse {n}

### Goal

The pulse of area {n} is drafted every hour.

### Maintains

- `pulse`: the pulse.

#### summary

Material: what moved in area {n}.

### Done when

- [ ] the hour is covered
"""


def build(root: Path, contracts: int) -> str:
    """The repository (main holds the contracts); main's commit."""
    subprocess.run(["git", "init", "-q", "-b", "main", str(root)], check=True)
    (root / "workflows").mkdir()
    (root / "hz.toml").write_text(f'[state]\nremote = "{root.parent / "team.git"}"\n')
    for n in range(contracts):
        (root / "workflows" / f"pulse-{n}.prose.md").write_text(CONTRACT.format(n=n, minute=n % 60))
    git = ["git", "-c", "user.name=Bench", "-c", "user.email=b@example.org"]
    subprocess.run(["git", "add", "-A"], cwd=root, check=True)
    subprocess.run([*git, "commit", "-q", "-m", "contracts"], cwd=root, check=True)
    subprocess.run(["git", "gc", "-q"], cwd=root, check=True)  # packed, as a clone's objects are
    return subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True, check=True
    ).stdout.strip()


def measure(root: Path, main: str, homes: Path, rounds: int, cache: str = "") -> dict[str, list[float]]:
    """Run in the process whose `hz` is measured: a warm-up, then `rounds` adoptions into empty homes.
    With `cache` (a folder) the compiled contracts are kept there as an Actions run's tick keeps them
    (`HZ_COMPILE_CACHE`): the warm-up fills it, each round reads it in a process that never compiled them."""
    from contextlib import nullcontext

    from hz.session.store import Store
    from hz.tick.team_adoption import adopt_new_team_contracts

    def adopt(home: Path) -> tuple[float, float, float]:
        environ = {**os.environ, "HZ_HOME": str(home), "HZ_HANDLE": "@bench"}
        if cache:
            environ["HZ_COMPILE_CACHE"] = cache
        wall, times = time.perf_counter(), os.times()
        with Store.from_environ(environ) as store, _kept(environ) if cache else nullcontext():
            errors = adopt_new_team_contracts(store, root, environ, datetime(2026, 10, 26, 11, tzinfo=UTC), main)
        if errors:
            raise SystemExit(f"adoption failed: {errors}")
        after = os.times()
        return time.perf_counter() - wall, after.user - times.user, after.system - times.system

    adopt(homes / "warm-up")
    figures: dict[str, list[float]] = {"wall": [], "cpu": [], "system": []}
    for n in range(rounds):
        wall, user, system = adopt(homes / f"round-{n}")
        figures["wall"].append(wall)
        figures["cpu"].append(user + system)
        figures["system"].append(system)
    return figures


def _kept(environ: dict[str, str]) -> Any:
    from hz.contract.compile_cache import kept_in

    return kept_in(environ)


def run(code: Path, root: Path, main: str, homes: Path, rounds: int, cache: str = "") -> dict[str, list[float]]:
    """`measure` in a process of its own, with `code`'s hz first on the path."""
    homes.mkdir()
    script = (
        "import json, sys; from pathlib import Path; sys.path.insert(0, sys.argv[1]); "
        "from adoption import measure; import hz; assert hz.__file__.startswith(sys.argv[6]), hz.__file__; "
        "print(json.dumps(measure(Path(sys.argv[2]), sys.argv[3], Path(sys.argv[4]), int(sys.argv[5]), sys.argv[7])))"
    )
    env = {**os.environ, "PYTHONPATH": str(code)}
    args = [sys.executable, "-c", script, str(HERE / "bench"), str(root), main, str(homes), str(rounds), str(code),
            cache]  # fmt: skip
    # run in `homes`, not here: `python -c` puts its working folder first on the path, before PYTHONPATH
    done = subprocess.run(args, env=env, cwd=homes, capture_output=True, text=True, check=True)
    figures: dict[str, list[float]] = json.loads(done.stdout.splitlines()[-1])
    return figures


def exported(ref: str, into: Path) -> Path:
    """`ref`'s tree of this repository, as files (its `hz` package is the code measured)."""
    into.mkdir()
    archive = subprocess.run(["git", "-C", str(HERE), "archive", ref, "--", "hz"], capture_output=True, check=True)
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive.stdout, check=True)
    return into


def show(label: str, figures: dict[str, list[float]], contracts: int) -> float:
    wall, cpu, system = (statistics.median(figures[key]) * 1000 / contracts for key in ("wall", "cpu", "system"))
    print(
        f"{label:>12}: {wall:6.2f} ms wall, {cpu:6.2f} ms CPU ({system:.2f} of it the kernel's) per contract"
        f" (median of {len(figures['wall'])})"
    )
    return wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--contracts", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--baseline", help="a commit whose code is measured first, in the same run")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="hz-bench-adopt-") as tmp:
        base = Path(tmp)
        main_commit = build(base / "repo", args.contracts)
        print(f"{args.contracts} team contracts on main, adopted into an empty home; load {os.getloadavg()[0]:.1f}")
        codes = {"this code": (HERE, ""), "cached": (HERE, str(base / "compiled"))}
        if args.baseline:
            codes = {"baseline": (exported(args.baseline, base / "baseline"), ""), **codes}
        figures = {label: {"wall": [], "cpu": [], "system": []} for label in codes}
        for n in range(args.rounds):  # the codes in turn, round by round: the disk's load moves meanwhile
            for label, (code, cache) in codes.items():
                homes = base / f"homes-{n}-{label.replace(' ', '-')}"
                for key, values in run(code, base / "repo", main_commit, homes, 1, cache).items():
                    figures[label][key].extend(values)
        walls = {label: show(label, figures[label], args.contracts) for label in codes}
        print(f"{'':>12}  (cached: the compiled contracts read from HZ_COMPILE_CACHE, as an Actions run's tick does)")
        if args.baseline:
            print(
                f"{'':>12}  {walls['baseline'] / walls['this code']:.1f}x less wall time per contract than the baseline"
            )
        print(f"{'':>12}  {walls['this code'] / walls['cached']:.1f}x less with the compiled contracts kept")


if __name__ == "__main__":
    main()
