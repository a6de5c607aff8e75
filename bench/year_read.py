"""The readers at a year of history: `hz state log --since 1d`, the hook on a tick's push, `hz state lint --since`.

Run: .venv/bin/python bench/year_read.py [--scale 0.25] [--contracts 50] [--baseline DIR] [--reuse DIR] [--keep]

Builds a day and a (`--scale`d) year of a 50-contract hourly team as bench/year.py does (its `git fast-import`
history, the hook installed), runs the team's `hz state compact` in a member's whole clone, and then on each:
- `hz state log --since 1d --no-fetch` in that clone (seconds, bytes of text);
- the hook judging the next hour's push of @priya's 10 contracts (their 40 events on hz/state and 10 lease
  commits, the finishing push of a drafting tick): `hooks/pre-receive` started as git starts it, the objects
  already in the remote, median of several runs, wall and CPU (the hook's own and its git processes');
- `hz state lint --since <tip>` of that push in the member's clone.
With `--baseline DIR` (a checkout of an older hz: `git archive <commit> hz | tar -x -C DIR`) every figure is
measured again with that hz (PYTHONPATH=DIR) on the same repositories, beside this one's. `--reuse DIR` takes
the repositories a `--keep` run left in DIR instead of building them. Figures only; nothing fails on time.
Lighter than bench/year.py (no ticks, no Actions run): a few minutes at `--scale 0.25` on a quiet machine.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import year  # the history, the remote and its contracts are bench/year.py's own
from hook import hook_run  # one run of the installed hook, wall and CPU: bench/hook.py's

from hz.gitstate.layout import LEASE_FILE, lease_ref

RUNS = 7


def build(base: Path, name: str, hours: int, contracts: int) -> str:
    """The remote `name` (hook installed) and a member's whole clone of it after `hz state compact`."""
    bare = base / f"{name}.git"
    _, took = year.make_remote(base, name, str(bare), contracts, hours)
    whole = base / f"{name}-whole"
    year.git("clone", "-q", str(bare), str(whole))
    keep = "35" if hours > 60 * 24 else "7"
    spent, done = year.hz(["state", "compact", "--keep", keep], whole, year.environ(base / f"{name}-hz"))
    events = hours * contracts * 4 - contracts
    return (f"{hours} h, {events:,} events, built in {took:.0f} s; compact {spent:.0f} s: "
            f"{done.stdout.strip()[-50:] or done.stderr.strip()[-90:]}")  # fmt: skip


def next_push(base: Path, name: str) -> tuple[str, str]:
    """The next hour of @priya's contracts written into the remote (no ref moved): the hook's stdin, and the
    hz/state tip before it."""
    bare = base / f"{name}.git"
    tip = year.git("--git-dir", str(bare), "rev-parse", "refs/heads/hz/state").strip()
    first = lease_ref(f"hz-{year.cid(0)}")
    record = year.git("--git-dir", str(bare), "show", f"{first}:{LEASE_FILE}")
    index = int(record.split('"token":')[1].split(",")[0])  # the history's hours: tokens run 1..index
    slot = record.split('"slot":"')[1].split('"')[0]
    hour = datetime.strptime(slot, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC) + timedelta(hours=1)
    stream: list[bytes] = []
    lines: list[str] = []
    for n in range(year.OWN):
        ref = lease_ref(f"hz-{year.cid(n)}")
        old = year.git("--git-dir", str(bare), "rev-parse", ref).strip()
        stream.append(year.commit(f"refs/bench/{n}", hour + timedelta(minutes=1), f"lease hz-{year.cid(n)} token "
                                  f"{index + 1} released", [(LEASE_FILE, year.lease_line(n, hour, index))],
                                  replace=True, parent=old))  # fmt: skip
        lines.append(f"{old} {{{n}}} {ref}")
    changed = [event for n in range(year.OWN) for event in year.turn_events(n, hour, index)]
    stream.append(year.commit("refs/bench/state", hour + timedelta(minutes=2), f"hz-state: {len(changed)} events",
                              changed, parent=tip))  # fmt: skip
    importer = subprocess.run(["git", "--git-dir", str(bare), "fast-import", "--quiet"], input=b"".join(stream),
                              capture_output=True, check=False)  # fmt: skip
    if importer.returncode != 0:
        raise SystemExit(f"fast-import: {importer.stderr.decode()}")
    new = {n: year.git("--git-dir", str(bare), "rev-parse", f"refs/bench/{n}").strip() for n in range(year.OWN)}
    state = year.git("--git-dir", str(bare), "rev-parse", "refs/bench/state").strip()
    stdin = "".join(line.format(*[new[n] for n in range(year.OWN)]) + "\n" for line in lines)
    return stdin + f"{tip} {state} refs/heads/hz/state\n", tip


def timed_hz(argv: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, float, str, str]:
    """(wall, CPU, stdout, stderr) of one `hz` process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "hz", *argv], cwd=cwd, env=env, capture_output=True, text=True,
                          check=False)  # fmt: skip
    took = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"hz {' '.join(argv)} failed ({done.returncode}):\n{done.stderr[-2000:]}")
    return took, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), done.stdout, done.stderr


def measure(base: Path, name: str, stdin: str, tip: str, hz: str) -> dict[str, str]:
    bare, whole = base / f"{name}.git", base / f"{name}-whole"
    env = {**year.environ(base / f"{name}-hz"), "PYTHONPATH": hz}
    out: dict[str, str] = {}
    logs = [timed_hz(["state", "log", "--since", "1d", "--no-fetch"], whole, env) for _ in range(3)]
    wall, cpu = statistics.median(r[0] for r in logs), statistics.median(r[1] for r in logs)
    out["hz state log --since 1d"] = f"{wall:5.2f} s, CPU {cpu:5.2f} s, {len(logs[0][2]) / 1e3:.0f} KB"
    hook_run(bare, stdin, hz)  # keeps what it read of main, as every push after the first under one main
    runs = [hook_run(bare, stdin, hz) for _ in range(RUNS)]
    wall, cpu = statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs)
    out["the hook, a tick's push (40 events, 10 leases)"] = f"{wall:5.2f} s, CPU {cpu:5.2f} s"
    pushed = sorted(push(base, name, stdin, env) for _ in range(3))
    out["that push, `git push` end to end"] = f"{pushed[1]:5.2f} s"
    lints = [timed_hz(["state", "lint", "--since", tip], whole, env) for _ in range(3)]
    wall, cpu = statistics.median(r[0] for r in lints), statistics.median(r[1] for r in lints)
    said = lints[0][3].strip().splitlines()[0].removeprefix("hz state lint: ")
    out["hz state lint --since <tip> of that push"] = f"{wall:5.2f} s, CPU {cpu:5.2f} s ({said})"
    return out


def push(base: Path, name: str, stdin: str, env: dict[str, str]) -> float:
    """Seconds of the member's `git push` of the prepared refs (the hook judging it); the remote's refs are
    put back after it, so every run pushes the same."""
    bare, whole = base / f"{name}.git", base / f"{name}-whole"
    updates = [line.split() for line in stdin.splitlines()]
    started = time.perf_counter()
    done = subprocess.run(["git", "push", "-q", "--atomic", str(bare), *[f"{ref}:{ref}" for _, _, ref in updates]],
                          cwd=whole, env=env, capture_output=True, text=True, check=False)  # fmt: skip
    took = time.perf_counter() - started
    for old, _, ref in updates:
        year.git("--git-dir", str(bare), "update-ref", ref, old)
    if done.returncode != 0:
        raise SystemExit(f"the push was refused:\n{done.stderr}")
    return took


def prepare(base: Path, name: str, stdin: str) -> None:
    """The member's clone holds the pushed commits as its own branch and leases (what the lint reads)."""
    whole = base / f"{name}-whole"
    year.git("fetch", "-q", str(base / f"{name}.git"), "+refs/heads/*:refs/remotes/origin/*",
             "+refs/hz/lease/*:refs/hz/lease/*", cwd=whole)  # fmt: skip
    year.git("fetch", "-q", str(base / f"{name}.git"), "+refs/bench/*:refs/bench/*", cwd=whole)
    for line in stdin.splitlines():
        _, new, ref = line.split()
        year.git("update-ref", ref, new, cwd=whole)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=0.25, help="the year's length: 1.0 is 365 days")
    parser.add_argument("--contracts", type=int, default=50)
    parser.add_argument("--baseline", help="a checkout of an older hz to measure beside this one")
    parser.add_argument("--reuse", help="the folder a --keep run left")
    parser.add_argument("--keep", action="store_true", help="leave the repositories in the temporary folder")
    args = parser.parse_args()
    os.environ.update(GIT_CONFIG_COUNT="1", GIT_CONFIG_KEY_0="gc.autoDetach", GIT_CONFIG_VALUE_0="false")
    ours = str(Path(__file__).resolve().parent.parent)
    base = Path(args.reuse) if args.reuse else Path(tempfile.mkdtemp(prefix="hz-year-read-"))
    hours = {"day": 24, "year": max(25, int(365 * 24 * args.scale))}
    try:
        for name, count in hours.items():
            if not args.reuse:
                print(f"{name}: {build(base, name, count, args.contracts)}", flush=True)
        pushes = {name: next_push(base, name) for name in hours}
        for name, (stdin, _) in pushes.items():
            prepare(base, name, stdin)
        hzs = {"this hz": ours} | ({"baseline": args.baseline} if args.baseline else {})
        figures = {(who, name): measure(base, name, *pushes[name], hz) for who, hz in hzs.items() for name in hours}
    finally:
        if not args.keep and not args.reuse:
            shutil.rmtree(base, ignore_errors=True)
    print(f"medians; a day is {hours['day']} h, the year {hours['year']} h (scale {args.scale})")
    for who in hzs:
        print(f"-- {who}")
        for what in figures[who, "day"]:
            print(f"  {what:48} day: {figures[who, 'day'][what]:48} year: {figures[who, 'year'][what]}")
    if args.keep:
        print(f"kept in {base}")


if __name__ == "__main__":
    main()
