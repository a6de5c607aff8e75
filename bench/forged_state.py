"""An idle `hz tick` on a grown `hz/state` full of forged receipts, against one on a small one.

Run: .venv/bin/python bench/forged_state.py [--quick]

A bare remote with a team contract on `main` (yearly schedule, so a tick after the first has nothing to
do) and an `hz/state` written straight into it with `git fast-import` (no hook, as on GitHub): 50 drafts
placed and approved by a member, then forged receipts up to N events: approvals of drafts never placed,
by someone the roster does not list, half under the team contract's id and half under ids no contract
has. A member's clone ticks twice to settle in: the first tick drafts the created turn and looks at every
receipt under a declared id once (the approval sweep's one-time cost, printed as "first look"), the
second settles. Then its idle ticks are timed: wall time of the `hz tick` process, median of 5, for
N = 100 (the baseline) and 100,000 (10,000 with --quick), with the time to build the branch and to
clone it. Figures only; the count-based check is tests/review/test_forged_cost.py.
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

from hz.gitstate.events import ApprovalObserved, DraftPlaced, Event, path_of
from hz.gitstate.layout import event_path

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


FORGED_LINE = (
    '{"data":{"approver":"@ceo-leaves-in-march","asset":"%s","key":"%s","output_fp":"' + HASH + '",'
    '"share_changed":0.1},"id":"%s","key":"%s","kind":"approval.observed","lease":"%s","token":1,"ts":"%s","v":1}\n'
)
"""A forged approval as hz's canonical JSON spells it (keys sorted, no blanks): checked once against `Event.make`."""


def state_files(n: int) -> dict[str, bytes]:
    """The 50 real drafts and approvals (made by hz's models), then forged approvals up to `n` events.

    The forged lines are formatted from FORGED_LINE (a model per event would take longer than the ticks
    measured); the first is checked against `Event.make`'s bytes."""
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
        line = (FORGED_LINE % (asset, key, ident, key, ident, ts)).encode()
        if i == 0:
            made = _event("approval.observed", ident, key, asset, ts, approver="@ceo-leaves-in-march")
            assert made.line() == line, (made.line(), line)
        files[event_path(ident, "approval.observed", key)] = line
    return files


def plumb(bare: Path, files: dict[str, bytes], when: datetime) -> None:
    """One commit of `files` on `refs/heads/hz/state`, with git's plumbing in four processes: the blobs
    through `git fast-import` (one pack), then each level of folders through one `git mktree --batch`,
    deepest first, then `git commit-tree`. (fast-import's own tree building is quadratic in a folder's
    entries, and `events/` has one per forged id.)"""
    with tempfile.TemporaryDirectory() as scratch:
        marks = Path(scratch) / "marks"
        stream = b"".join(b"blob\nmark :%d\ndata %d\n%s\n" % (i + 1, len(data), data)
                          for i, data in enumerate(files.values()))  # fmt: skip
        subprocess.run(["git", "--git-dir", str(bare), "fast-import", "--quiet", f"--export-marks={marks}"],
                       input=stream + b"done\n", check=True, capture_output=True)  # fmt: skip
        blobs = dict(line.split(" ") for line in marks.read_text().splitlines())
    entries: dict[str, list[str]] = {}  # folder -> its mktree lines
    for i, path in enumerate(files):
        folder, _, name = path.rpartition("/")
        entries.setdefault(folder, []).append(f"100644 blob {blobs[f':{i + 1}']}\t{name}")
    root = ""
    for depth in range(max(map(_depth, entries)), -1, -1):  # a folder's parent is one level up: built later
        level = sorted(f for f in entries if _depth(f) == depth)
        batch = "".join("\n".join(entries[f]) + "\n\n" for f in level)
        made = subprocess.run(["git", "--git-dir", str(bare), "mktree", "--batch"], input=batch.encode(),
                              check=True, capture_output=True).stdout.decode().split()  # fmt: skip
        for folder, tree in zip(level, made, strict=True):
            parent, _, name = folder.rpartition("/")
            if folder:
                entries.setdefault(parent, []).append(f"040000 tree {tree}\t{name}")
            else:
                root = tree
    stamp = {"GIT_AUTHOR_NAME": "hz", "GIT_AUTHOR_EMAIL": "hz", "GIT_COMMITTER_NAME": "hz",
             "GIT_COMMITTER_EMAIL": "hz", "GIT_AUTHOR_DATE": f"{int(when.timestamp())} +0000",
             "GIT_COMMITTER_DATE": f"{int(when.timestamp())} +0000"}  # fmt: skip
    message = f"hz-state: {len(files)} events"
    done = subprocess.run(["git", "--git-dir", str(bare), "commit-tree", root, "-m", message],
                          env={**os.environ, **stamp}, check=True, capture_output=True, text=True)  # fmt: skip
    commit = done.stdout.strip()
    git("--git-dir", str(bare), "update-ref", "refs/heads/hz/state", commit)


def _depth(folder: str) -> int:
    return folder.count("/") + 1 if folder else 0


def git(*args: str, cwd: Path | None = None) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


def team(folder: Path, n: int) -> tuple[Path, dict[str, str], tuple[float, float]]:
    """The remote with `n` events on hz/state, a member's clone of it, and (build, clone) seconds."""
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
    began = time.perf_counter()
    plumb(bare, state_files(n), NOW)
    built = time.perf_counter() - began
    git("clone", "-q", str(bare), str(clone))
    environ = {**os.environ, "HZ_HOME": str(folder / "home"), "HZ_HANDLE": "@priya"}
    return clone, environ, (built, time.perf_counter() - began - built)


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
    print(f"{'events':>8} {'build s':>8} {'clone s':>8} {'first look ms':>14} {'idle tick ms (median of 5)':>27}")
    for n in sizes:
        with tempfile.TemporaryDirectory() as scratch:
            clone, environ, (built, cloned) = team(Path(scratch), n)
            # settle in: the created turn and the first look at every receipt, then one more tick
            first = tick(clone, environ, NOW)
            tick(clone, environ, NOW + timedelta(minutes=1))
            spans = [tick(clone, environ, NOW + timedelta(minutes=5 + i)) for i in range(5)]
            medians.append(statistics.median(spans))
            print(f"{n:>8} {built:>8.1f} {cloned:>8.1f} {first * 1000:>14.0f} {medians[-1] * 1000:>27.0f}")
    print(f"idle tick ratio {medians[-1] / medians[0]:.2f} against the {sizes[0]}-event baseline (the aim: at most 2)")


if __name__ == "__main__":
    main("--quick" in sys.argv)
