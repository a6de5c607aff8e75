"""An idle `hz tick` on a grown `hz/state` full of forged receipts, against one on a small one.

Run: .venv/bin/python bench/forged_state.py [--quick]

A bare remote with a team contract on `main` (yearly schedule, so a tick after the first has nothing to
do) and an `hz/state` written straight into it (no hook, as on GitHub): 50 drafts placed and approved
by a member, then forged receipts up to N events: approvals of drafts never placed, by someone the
roster does not list, half under the team contract's id and half under ids no contract has. A member's
clone ticks twice to settle in (its created turn drafts, the first look reads each forged receipt once),
then its idle ticks are timed: wall time of the `hz tick` process, median of 5, for N = 100 and
100,000 (10,000 with --quick). Figures only; the count-based check is tests/review/test_forged_cost.py.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from hz.gitstate import objects
from hz.gitstate.events import ApprovalObserved, DraftPlaced, Event, path_of

AGENT = "hz-01KC3333333333333333333333"
HASH = "sha256:" + "ab" * 32
CONTRACT = f"""---
name: yearly
kind: responsibility
description: A yearly digest.
id: {AGENT.removeprefix("hz-")}
hz:
  schema: 1
  title: Yearly digest
  owner: "@priya"
  scope: team
  schedule: "0 7 1 1 *"
  outputs:
    digest:
      target: "state:digest/{{slot:%Y}}.md"
      facets: [summary]
---

## Goal

The yearly digest lists the year's work.

## Maintains

- `digest`: the year's digest.

## Done when

- [ ] the digest names every month
"""
START = datetime(2026, 1, 1, 7, tzinfo=UTC)
NOW = datetime(2026, 11, 2, 9, tzinfo=UTC)


def _event(kind: str, ident: str, key: str, asset: str, ts: str, approver: str = "@rita") -> Event:
    data: DraftPlaced | ApprovalObserved
    if kind == "draft.placed":
        data = DraftPlaced(turn="01KC0000000000000000000000", key=key, asset=asset, hash=HASH)
    else:
        data = ApprovalObserved(key=key, asset=asset, approver=approver, share_changed=0.1, output_fp=HASH)
    return Event.make(kind, id=ident, key=key, ts=ts, lease=ident, token=1, data=data)  # type: ignore[arg-type]


def state_files(n: int) -> dict[str, bytes]:
    files: dict[str, bytes] = {}
    for i in range(50):
        slot = START - timedelta(days=i + 1)
        asset = f"state:digest/{slot:%Y}.md"
        key, ts = f"{AGENT}@v1@{slot:%Y-%m-%dT%H:%MZ}@{asset}", f"{slot:%Y-%m-%dT%H:%M:%S}Z"
        for kind in ("draft.placed", "approval.observed"):
            event = _event(kind, AGENT, key, asset, ts)
            files[path_of(event)] = event.line()
    for i in range(n - len(files)):
        ident = AGENT if i % 2 == 0 else f"hz-01KC{i:022d}"
        slot = NOW - timedelta(minutes=i)
        asset = f"state:forged/{i}.md"
        key, ts = f"{ident}@v1@{slot:%Y-%m-%dT%H:%MZ}@{asset}", f"{slot:%Y-%m-%dT%H:%M:%S}Z"
        event = _event("approval.observed", ident, key, asset, ts, approver="@ceo-leaves-in-march")
        files[path_of(event)] = event.line()
    return files


def git(*args: str, cwd: Path | None = None) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


def team(folder: Path, n: int) -> tuple[Path, dict[str, str]]:
    bare, seed, clone = folder / "team.git", folder / "seed", folder / "priya"
    git("init", "-q", "--bare", "-b", "main", str(bare))
    git("init", "-q", "-b", "main", str(seed))
    (seed / "workflows").mkdir()
    (seed / "workflows" / "yearly.prose.md").write_text(CONTRACT)
    roster = '[team.members]\n"@priya" = ["priya@example.com"]\n"@rita" = ["rita@example.com"]\n'
    (seed / "hz.toml").write_text(f'[state]\nremote = "{bare}"\n{roster}')
    git("add", ".", cwd=seed)
    git("commit", "-q", "-m", "team", cwd=seed)
    git("push", "-q", str(bare), "main", cwd=seed)
    repo = objects.open_repo(bare)
    tip = objects.make_commit(repo, objects.write_tree(repo, None, state_files(n)), [], f"hz-state: {n} events\n", NOW)
    objects.set_ref(repo, "refs/heads/hz/state", tip)
    git("clone", "-q", str(bare), str(clone))
    environ = {**os.environ, "HZ_HOME": str(folder / "home"), "HZ_HANDLE": "@priya"}
    return clone, environ


def tick(clone: Path, environ: dict[str, str], now: datetime) -> float:
    began = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "hz", "tick", "--now", now.isoformat()], cwd=clone, env=environ,
                          capture_output=True, text=True, check=False)  # fmt: skip
    spent = time.perf_counter() - began
    if done.returncode != 0:
        raise SystemExit(f"tick failed: {done.stdout}{done.stderr}")
    return spent


def main(quick: bool) -> None:
    sizes = [100, 10_000] if quick else [100, 100_000]
    medians = []
    print(f"{'events':>8} {'idle tick ms (median of 5)':>28}")
    for n in sizes:
        with tempfile.TemporaryDirectory() as scratch:
            clone, environ = team(Path(scratch), n)
            for minute in range(2):  # settle in: the created turn, the first look at every receipt
                tick(clone, environ, NOW + timedelta(minutes=minute))
            spans = [tick(clone, environ, NOW + timedelta(minutes=5 + i)) for i in range(5)]
            medians.append(statistics.median(spans))
            print(f"{n:>8} {medians[-1] * 1000:>28.0f}")
    print(f"ratio {medians[-1] / medians[0]:.2f} (the aim: at most 2)")


if __name__ == "__main__":
    main("--quick" in sys.argv)
