"""A Monday 09:00 burst: many members' daemons and many team contracts due at one slot, one remote.

Run: .venv/bin/python bench/burst.py [--members 2,5] [--contracts 20,50] [--workers 3] [--no-hook] [--absent 0]

For each size (members × contracts) a fresh team: a bare remote served by `git daemon` on 127.0.0.1
with the pre-receive hook, a `main` holding the team contracts (weekly, Monday 09:00, owners spread
over the members, the next member as maintainer, the offline runner) and `[state]` with a 5-minute
tick. Every member has a clone and an `$HZ_HOME` of their own and ticks as a real `hz tick --now`
process at its own phase within each 5-minute interval, from 09:00 to 09:30 in simulated time; the
ticks start in order of their simulated time, `--workers` processes at once, so neighbours overlap and
their pushes race, as separate machines' would.

Printed per size, from the remote's `hz/state` and lease refs and the ticks' own reports:
- double runs: slots with more than one `turn.started` or more than one lease token (goal 0);
- the latest start after 09:00, in simulated minutes (goal ≤ 10), and slots not started by 09:30;
- pushes per simulated minute over 09:00-09:10 (goal ≤ 6, GitHub's budget per repository), and the
  busiest single minute;
- the wakes the ticks deferred (`max_wakes_per_tick`), the commits that landed on `hz/state` and the
  slot's draft branches on the remote (one per contract when every draft landed);
- the wall time of the burst (the set-up and the created turns before it are not counted).
With `--absent K`, K owners stay offline from 09:00 and their maintainers take their slots after the
grace period (two tick intervals).
Figures only; nothing here fails on time. The first size is the base line.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from loopback import serve

from hz.heinzel.lifecycle import Origin, create
from hz.session.store import Store

SLOT = datetime(2026, 10, 26, 9, 0, tzinfo=UTC)  # a Monday
ADOPTED = SLOT - timedelta(days=1)  # the contracts reached main on Sunday; no earlier slot is owed
WARM_UP = ADOPTED + timedelta(minutes=5)  # every agent's first (created) turn runs here, before the burst
INTERVAL = timedelta(minutes=5)
UNTIL = SLOT + timedelta(minutes=30)
WINDOW_MIN = 10
SLOT_STAMP = "2026-10-26T09:00"


def contract(n: int, owner: str, maintainer: str) -> str:
    return f"""---
name: burst-{n:03d}
kind: responsibility
id: {contract_id(n)}
description: A weekly team report, drafted on a branch for review.
hz:
  schema: 1
  title: Burst {n}
  owner: "{owner}"
  maintainers: ["{maintainer}"]
  scope: team
  schedule: "0 9 * * MON"
  outputs:
    report:
      target: "state:reports/burst-{n:03d}/{{slot:%G-W%V}}.md"
      facets: [summary]
---

# Burst {n}

### Goal

The week's report is drafted every Monday morning.

### Maintains

- `report`: the report.

#### summary

Material: what moved last week.

### Done when

- [ ] the week is covered
"""


def git(*args: str, cwd: Path | None = None) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout.strip()


def hz(*argv: str, cwd: Path, environ: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "hz", *argv], cwd=cwd, env=environ, capture_output=True,
                          text=True, timeout=600, check=False)  # fmt: skip


# --- the team ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Member:
    handle: str
    clone: Path
    environ: dict[str, str]
    phase: timedelta  # where in each tick interval this member's daemon ticks


def handles(members: int) -> list[str]:
    return [f"@m{i:02d}" for i in range(members)]


def seed(root: Path, url: str, members: int, contracts: int, hook: bool, environ: dict[str, str]) -> list[str]:
    """The bare remote's `main`: hz.toml with `[state]` and the team contracts. Returns their texts."""
    bare = root / "team.git"
    git("init", "-q", "--bare", "--initial-branch=main", str(bare))
    work = root / "seed"
    git("init", "-q", str(work))
    (work / "hz.toml").write_text(f'[state]\nremote = "{url}"\ntick_interval_s = 300\n')
    (work / "workflows").mkdir()
    who = handles(members)
    texts = [contract(n, who[n % members], who[(n + 1) % members]) for n in range(contracts)]
    for n, text in enumerate(texts):
        (work / "workflows" / f"burst-{n:03d}.prose.md").write_text(text)
    git("add", "hz.toml", "workflows", cwd=work)
    git("-c", "user.name=seed", "-c", "user.email=seed@example.invalid", "commit", "-q", "-m", "team", cwd=work)
    git("push", "-q", str(bare), "HEAD:main", cwd=work)
    if hook:
        installed = hz("state", "install-hook", str(bare), cwd=root, environ=environ)
        if installed.returncode != 0:
            raise SystemExit(installed.stdout + installed.stderr)
    return texts


def join(root: Path, url: str, index: int, members: int, texts: list[str]) -> Member:
    """A member's clone and `$HZ_HOME`, every team contract adopted as an agent of their own."""
    handle = handles(members)[index]
    clone = root / handle[1:] / "repo"
    git("clone", "-q", "--branch", "main", url, str(clone))
    environ = {**os.environ, "HZ_HOME": str(root / handle[1:] / "hz"), "HZ_HANDLE": handle}
    with Store.from_environ(environ) as store:
        for n, text in enumerate(texts):
            create(store, text, label=f"workflows/burst-{n:03d}.prose.md", namespace="team", handle=handle,
                   origin=Origin("adopted"), now=ADOPTED, approve=True)  # fmt: skip
    return Member(handle, clone, environ, INTERVAL * index / members)


# --- ticking -------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Tick:
    member: Member
    now: datetime
    pushed: bool
    woken: list[dict[str, Any]]
    deferred: list[str]
    errors: str


def tick(member: Member, now: datetime) -> Tick:
    done = hz("tick", "--now", now.isoformat(), "--json", cwd=member.clone, environ=member.environ)
    try:  # a tick that reports errors exits 1 and still prints its report
        report = json.loads(done.stdout)
    except json.JSONDecodeError:
        said = f"{member.handle} {now:%H:%M:%S} exit {done.returncode}: {done.stderr[-400:]}"
        return Tick(member, now, False, [], [], said)
    errors = [str(e["error"]) for e in report["woken"] if e.get("action") == "error"]
    said = f"{member.handle} {now:%H:%M:%S} exit {done.returncode}: " + "; ".join(errors) if errors else ""
    return Tick(member, now, bool(report["pushed"]), report["woken"], report.get("deferred", []), said)


def ticks_in_order(team: list[Member], workers: int, start: datetime, until: datetime) -> list[Tick]:
    """Every member's ticks from `start` to `until`, started in simulated order, `workers` at once."""
    planned = sorted(
        ((m, start + k * INTERVAL + m.phase) for m in team for k in range(int((until - start) / INTERVAL) + 1)),
        key=lambda pair: pair[1],
    )
    with ThreadPoolExecutor(workers) as pool:
        return list(pool.map(lambda pair: tick(*pair), planned))


# --- what the remote says ------------------------------------------------------------------------------


def started(bare: Path) -> list[dict[str, Any]]:
    """Every `turn.started` on the remote's `hz/state`."""
    files = git("--git-dir", str(bare), "ls-tree", "-r", "--name-only", "hz/state").splitlines()
    found = [f for f in files if f.rsplit("/", 1)[-1].startswith("turn.started-")]
    return [json.loads(git("--git-dir", str(bare), "show", f"hz/state:{f}")) for f in found]


def slot_tokens(bare: Path) -> Counter[str]:
    """How many distinct lease tokens each lease holds for the 09:00 slot."""
    counts: Counter[str] = Counter()
    refs = git("--git-dir", str(bare), "for-each-ref", "--format=%(refname)", "refs/hz/lease/").splitlines()
    for ref in refs:
        tokens = set()
        for commit in git("--git-dir", str(bare), "rev-list", ref).splitlines():
            record = json.loads(git("--git-dir", str(bare), "show", f"{commit}:lease.json"))
            if str(record["slot"]).startswith(SLOT_STAMP):
                tokens.add(record["token"])
        counts[ref] = len(tokens)
    return counts


def commits(bare: Path) -> int:
    """Commits on the remote's `hz/state`: one per push that carried receipts."""
    return int(git("--git-dir", str(bare), "rev-list", "--count", "hz/state"))


def contract_id(n: int) -> str:
    return f"01KD{n:022d}"


def draft_branches(bare: Path, contracts: int) -> list[str]:
    """The contracts' draft branches on the remote, named as hz names them now (hz.review.branches, so the
    count follows the naming: the `report` output's branch, one per idempotency key): one per contract when
    every draft of the burst's week landed."""
    from hz.review.branches import branch_name

    refs = git("--git-dir", str(bare), "for-each-ref", "--format=%(refname)", "refs/heads/hz/draft/").splitlines()
    wanted = [f"refs/heads/{branch_name(contract_id(n), 'report')}" for n in range(contracts)]
    return [ref for base in wanted for ref in sorted(refs) if ref == base or ref.startswith(base + "@")]


def parse_ts(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


@dataclass(frozen=True)
class Figures:
    members: int
    contracts: int
    doubles: int
    late_min: float
    missing: int
    per_min: float
    busiest: int
    pushes: int
    deferred: int
    landed: int
    branches: int
    wall_s: float
    errors: list[str]


def burst(root: Path, members: int, contracts: int, workers: int, hook: bool, absent: int) -> Figures:
    """One size's run; `absent` members (m00, m02, …) are offline from 09:00, so their contracts fall to
    their maintainers (the next member, online) once the grace period is over."""
    base = root / "remotes"
    base.mkdir(parents=True)
    proc, port = serve(base)
    try:
        url = f"git://127.0.0.1:{port}/team.git"
        bare = base / "team.git"
        environ = {**os.environ, "HZ_HOME": str(root / "installer"), "HZ_HANDLE": "@m00"}
        texts = seed(base, url, members, contracts, hook, environ)
        team = [join(root, url, i, members, texts) for i in range(members)]
        warm = ticks_in_order(team, workers, WARM_UP, WARM_UP + INTERVAL)
        before = commits(bare)
        began = time.perf_counter()
        online = [m for i, m in enumerate(team) if i % 2 or i // 2 >= absent]
        ticks = ticks_in_order(online, workers, SLOT, UNTIL)
        wall = time.perf_counter() - began
        landed = commits(bare) - before
    finally:
        proc.terminate()
        proc.wait()
    return measure(bare, members, contracts, ticks, wall, landed, [t.errors for t in warm + ticks if t.errors])


def measure(
    bare: Path, members: int, contracts: int, ticks: list[Tick], wall: float, landed: int, errors: list[str]
) -> Figures:
    runs = [e for e in started(bare) if str(e["key"]).endswith(f"@{SLOT_STAMP}Z")]
    per_slot = Counter(str(e["key"]) for e in runs)
    tokens = slot_tokens(bare)
    doubles = sum(1 for n in per_slot.values() if n > 1) + sum(1 for n in tokens.values() if n > 1)
    late = max((parse_ts(str(e["ts"])) - SLOT for e in runs), default=timedelta(0))
    minutes = Counter(int((t.now - SLOT) / timedelta(minutes=1)) for t in ticks if t.pushed)
    window = sum(n for minute, n in minutes.items() if minute < WINDOW_MIN)
    deferred = sum(len(t.deferred) for t in ticks)
    return Figures(members, contracts, doubles, late / timedelta(minutes=1), contracts - len(per_slot),
                   window / WINDOW_MIN, max(minutes.values(), default=0), sum(minutes.values()), deferred,
                   landed, len(draft_branches(bare, contracts)), wall, errors)  # fmt: skip


# --- printing ------------------------------------------------------------------------------------------


def sizes(text: str) -> list[int]:
    return [int(part) for part in text.split(",") if part]


COLUMNS = [("members", 7), ("contracts", 9), ("double", 6), ("latest start", 12), ("unstarted", 9),
           ("push/min (10)", 13), ("busiest min", 11), ("pushes", 6), ("deferred", 8),
           ("state commits", 13), ("branches", 8), ("wall", 8)]  # fmt: skip


def row(f: Figures) -> str:
    cells = [f.members, f.contracts, f.doubles, f"{f.late_min:.1f} min", f.missing, f"{f.per_min:.1f}", f.busiest,
             f.pushes, f.deferred, f.landed, f.branches, f"{f.wall_s:.1f} s"]  # fmt: skip
    return " ".join(f"{cell:>{width}}" for cell, (_, width) in zip(cells, COLUMNS, strict=True))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--members", type=sizes, default=[2, 5], help="daemons per run, e.g. 2,5,20")
    parser.add_argument("--contracts", type=sizes, default=[20, 50], help="team contracts, paired with --members")
    parser.add_argument("--workers", type=int, default=3, help="tick processes at once")
    parser.add_argument("--no-hook", action="store_true", help="no pre-receive hook on the remote")
    parser.add_argument("--absent", type=int, default=0, help="owners offline from 09:00 (m00, m02, …)")
    args = parser.parse_args()
    if len(args.members) != len(args.contracts):
        parser.error("--members and --contracts name the same number of sizes")
    if any(args.absent > members // 2 for members in args.members):
        parser.error("--absent is at most half the members: each absent owner's maintainer is online")
    hook = "off" if args.no_hook else "on"
    print(f"burst at {SLOT:%a %Y-%m-%d %H:%M} UTC, ticks every 5 min until 09:30, hook {hook}, "
          f"{args.workers} tick processes at once, {args.absent} owners offline")  # fmt: skip
    print(" ".join(f"{title:>{width}}" for title, width in COLUMNS))
    for members, contracts in zip(args.members, args.contracts, strict=True):
        with tempfile.TemporaryDirectory() as scratch:
            f = burst(Path(scratch), members, contracts, args.workers, not args.no_hook, args.absent)
        print(row(f), flush=True)
        for error in f.errors[:5]:
            print(f"  error: {error}")
        if len(f.errors) > 5:
            print(f"  … and {len(f.errors) - 5} more ticks with errors")


if __name__ == "__main__":
    main()
