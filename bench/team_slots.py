"""A drafting tick of team slots, per slot, beside a cron job's script (issue 22): `bench/tick.py --team`.

A bare remote (with hz's pre-receive hook for the guarded figure) whose `main` holds N hourly team contracts
owned by one member; the member's clone and `$HZ_HOME` have them adopted and their created turns run. Then
one tick at the next hour drafts every slot (the offline runner: no model), timed in process, with every git
process it starts noted by a `git` first on PATH, and the commits the lease chains then hold per slot that
ran (the created turns' and this hour's). The baseline, in the same run: a script that writes the slot's
file in a clone, commits it and pushes it, once per slot. Printed beside each wall time: the CPU time of
the tick and of the git processes it ran; the last figure is the same tick as a fresh `hz tick` process
(its imports included, its bytecode read from the cache as an installed hz's is). `bench/tick.py --team
--slots 10` ticks 10 slots; `--baseline REF [--rounds N]` times the unguarded tick, in process and as a
fresh process, under REF's code and this code alternately, round by round (`compare`).
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import subprocess
import sys
import time
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path

HOUR = datetime(2026, 10, 26, 10, 0, tzinfo=UTC)
CONTRACT = """---
name: team-pulse-{n}
kind: responsibility
id: 01KC3333333333333333333{n:03d}
description: The team's hourly pulse, drafted on a branch for review.
hz:
  schema: 1
  title: Team pulse
  owner: "@bench"
  scope: team
  schedule: "0 * * * *"
  outputs:
    pulse:
      target: "state:pulse{n}/{{slot:%Y%m%dT%H%M}}.md"
      facets: [summary]
---

# Team pulse

### Goal

The team's pulse is drafted every hour.

### Maintains

- `pulse`: the pulse.

#### summary

Material: what moved.

### Done when

- [ ] the hour is covered
"""
IDENTITY = {
    "GIT_AUTHOR_NAME": "bench",
    "GIT_AUTHOR_EMAIL": "bench@example.invalid",
    "GIT_COMMITTER_NAME": "bench",
    "GIT_COMMITTER_EMAIL": "bench@example.invalid",
}


def git(*args: str, cwd: Path | None = None) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout


def team(folder: Path, slots: int, *, guarded: bool) -> tuple[Path, dict[str, str]]:
    """The remote and the member's clone, the contracts adopted and their created turns run."""
    from hz.heinzel.lifecycle import Origin, create
    from hz.session.store import Store
    from hz.tick.daemon import tick

    bare = folder / "team.git"
    git("init", "-q", "--bare", str(bare))
    git("--git-dir", str(bare), "symbolic-ref", "HEAD", "refs/heads/main")
    seed = folder / "seed"
    git("init", "-q", "-b", "main", str(seed))
    roster = '[team.members]\n"@bench" = ["bench@example.invalid"]\n'
    (seed / "hz.toml").write_text(f'[state]\nremote = "{bare}"\ntick_interval_s = 300\n{roster}')
    (seed / "workflows").mkdir()
    texts = [CONTRACT.format(n=n) for n in range(slots)]
    for n, text in enumerate(texts):
        (seed / "workflows" / f"team-pulse-{n}.prose.md").write_text(text)
    git("add", ".", cwd=seed)
    git("commit", "-q", "-m", "team repo", cwd=seed)
    git("push", "-q", str(bare), "HEAD:main", cwd=seed)
    environ = {**os.environ, "HZ_HOME": str(folder / "home"), "HZ_HANDLE": "@bench"}
    if guarded:
        done = subprocess.run([sys.executable, "-m", "hz", "state", "install-hook", str(bare)], env=environ,
                              capture_output=True, text=True, check=False)  # fmt: skip
        assert done.returncode == 0, done.stderr
    clone = folder / "clone"
    git("clone", "-q", str(bare), str(clone))
    adopted = HOUR - timedelta(hours=1, minutes=10)
    with Store.from_environ(environ) as store:
        for n, text in enumerate(texts):
            create(store, text, label=f"workflows/team-pulse-{n}.prose.md", namespace="team", handle="@bench",
                   origin=Origin("adopted"), now=adopted, approve=True)  # fmt: skip
    tick(root=clone, environ=environ, now=HOUR - timedelta(hours=1))
    return clone, environ


def cpu_seconds() -> float:
    """CPU time of this process and of the children it waited for (git), user and system."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def drafting_tick(
    folder: Path, slots: int, *, guarded: bool, process: bool = False
) -> tuple[float, float, Counter[str], int, float]:
    """(seconds, CPU seconds, git processes by verb, slots drafted, lease commits per run slot) of one tick
    at the next hour; in this process (its imports warm from the ticks before), or as a fresh `hz tick`
    process (`process`)."""
    from hz.tick.daemon import tick

    folder.mkdir(parents=True)
    clone, environ = team(folder, slots, guarded=guarded)
    log = folder / "git.log"
    wrapper = folder / "bin"
    wrapper.mkdir()
    (wrapper / "git").write_text(f'#!/bin/sh\necho "$*" >> "{log}"\nexec {shutil.which("git")} "$@"\n')
    (wrapper / "git").chmod(0o755)
    path = os.environ["PATH"]
    os.environ["PATH"] = f"{wrapper}:{path}"
    try:
        started, cpu = time.perf_counter(), cpu_seconds()
        if process:
            argv = [sys.executable, "-m", "hz", "tick", "--now", HOUR.isoformat(), "--json"]
            done = subprocess.run(argv, cwd=clone, env={**cached(environ), "PATH": os.environ["PATH"]},
                                  capture_output=True, text=True, check=True)  # fmt: skip
            woken = json.loads(done.stdout)["woken"]
        else:
            woken = tick(root=clone, environ={**environ, "PATH": os.environ["PATH"]}, now=HOUR).woken
        took, cpu = time.perf_counter() - started, cpu_seconds() - cpu
    finally:
        os.environ["PATH"] = path
    drafted = sum(1 for e in woken if e.get("disposition") == "drafted")
    verbs: Counter[str] = Counter()
    for line in log.read_text().splitlines():
        if not line.startswith("-"):  # the rest of a multi-line argument (a commit message)
            continue
        words = line.split()[2:] if line.startswith("-C ") else line.split()
        verbs[next((w for w in words if not w.startswith("-") and "=" not in w), "?")] += 1
    return took, cpu, verbs, drafted, lease_commits_per_slot(folder / "team.git")


def cached(environ: dict[str, str]) -> dict[str, str]:
    """`environ` for a fresh hz process that reads its bytecode from `__pycache__`, as an installed hz does;
    written by `warm_bytecode` first. Without it every module of hz was compiled again in the timed tick
    (about half a second) wherever PYTHONDONTWRITEBYTECODE is set and no cache was written yet."""
    return {k: v for k, v in environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def warm_bytecode() -> None:
    """Write the bytecode of the hz on the path (and its dependencies') before anything is timed."""
    import hz

    code = Path(hz.__file__).parent
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(code)], env=cached(dict(os.environ)),
                   check=True, capture_output=True)  # fmt: skip
    subprocess.run([sys.executable, "-c", "import hz.cli, hz.tick.ticking, hz.review.approval_sweep"],
                   env=cached(dict(os.environ)), check=True, capture_output=True)  # fmt: skip


def lease_commits_per_slot(bare: Path) -> float:
    """Commits on every lease chain of the remote, per slot that ran (a `turn.finished` on its hz/state)."""
    refs = git("--git-dir", str(bare), "for-each-ref", "--format=%(refname)", "refs/hz/lease/").split()
    commits = sum(int(git("--git-dir", str(bare), "rev-list", "--count", ref)) for ref in refs)
    files = git("--git-dir", str(bare), "ls-tree", "-r", "--name-only", "hz/state", "events/").split()
    ran = sum(1 for name in files if name.rsplit("/", 1)[-1].startswith("turn.finished-"))
    return commits / max(1, ran)


def script_per_slot(folder: Path, slots: int) -> float:
    """Seconds per slot of a cron job's script: write the slot's file, commit it, push it."""
    bare = folder / "script.git"
    git("init", "-q", "--bare", str(bare))
    clone = folder / "script"
    git("init", "-q", "-b", "main", str(clone))
    environ = {**os.environ, **IDENTITY}
    started = time.perf_counter()
    for n in range(slots):
        (clone / f"pulse{n}.md").write_text(f"# pulse {n}\n")
        for args in (["add", f"pulse{n}.md"], ["commit", "-q", "-m", f"pulse {n}"], ["push", "-q", str(bare), "main"]):
            subprocess.run(["git", *args], cwd=clone, env=environ, check=True, capture_output=True)
    return (time.perf_counter() - started) / slots


def bench_team(folder: Path, slots: int) -> None:
    os.environ.update(IDENTITY, HZ_CONFIG_HOME=str(folder / "config"))  # the seed's commit; no user config
    warm_bytecode()
    print(f"a drafting tick of {slots} team slots (goal: <= 0.15 s a slot unguarded, <= 10 git processes a turn)")
    print(f"  load average {os.getloadavg()[0]:.1f}; CPU is this process's and its git processes' (user + system)")
    baseline = script_per_slot(folder, slots)
    print(f"  cron and script (write, commit, push): {baseline:.3f} s a slot")
    for label, guarded, process in (("unguarded", False, False), ("guarded", True, False), ("hz process", False, True)):
        took, cpu, verbs, drafted, chained = drafting_tick(folder / label.replace(" ", "-"), slots, guarded=guarded,
                                                           process=process)  # fmt: skip
        total = sum(verbs.values())
        per = took / slots
        print(f"  {label:>10}: {took:.2f} s, {per:.3f} s a slot ({per / baseline:.1f}x the script), CPU {cpu:.2f} s"
              f" ({cpu / slots:.3f} s a slot), {drafted} drafted, {total} git processes, {total / slots:.1f} a turn,"
              f" {verbs['push']} pushes")  # fmt: skip
        print(f"    by verb: {', '.join(f'{verb} {count}' for verb, count in verbs.most_common())}")
        print(f"    lease commits per run slot: {chained:.1f}")


def one_round(folder: str, slots: int) -> dict[str, list[float]]:
    """One unguarded drafting tick in process and one as a fresh process, with the hz on this process's
    path (`compare` runs it under each code): seconds, CPU seconds, git processes, pushes of each."""
    os.environ.update(IDENTITY, HZ_CONFIG_HOME=str(Path(folder) / "config"))
    out: dict[str, list[float]] = {}
    for label, process in (("in process", False), ("hz process", True)):
        took, cpu, verbs, drafted, _ = drafting_tick(Path(folder) / label.replace(" ", "-"), slots, guarded=False,
                                                     process=process)  # fmt: skip
        assert drafted == slots, drafted
        out[label] = [took, cpu, sum(verbs.values()), verbs["push"]]
    return out


def compare(folder: Path, slots: int, baseline: str, rounds: int) -> None:
    """`baseline`'s code (a commit of this repository, its `hz` exported) and this code, each round the old
    one just before the new one, each in a process of its own: a shared disk's speed moves within minutes."""
    import statistics

    from adoption import HERE, exported

    codes = {"baseline": exported(baseline, folder / "baseline"), "this code": HERE}
    here = Path(__file__).resolve().parent
    script = "import json, sys; sys.path.insert(0, sys.argv[1]); from team_slots import one_round; " \
             "print(json.dumps(one_round(sys.argv[2], int(sys.argv[3]))))"  # fmt: skip
    for code in codes.values():
        environ = {**cached(dict(os.environ)), "PYTHONPATH": str(code)}
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(code / "hz")], env=environ, check=True,
                       capture_output=True)  # fmt: skip
    figures: dict[str, dict[str, list[list[float]]]] = {label: {} for label in codes}
    for n in range(rounds):
        for label, code in codes.items():
            environ = {**os.environ, "PYTHONPATH": str(code)}
            into = folder / f"{label.replace(' ', '-')}-{n}"  # no space: the git log's words are split on them
            done = subprocess.run([sys.executable, "-c", script, str(here), str(into), str(slots)],
                                  env=environ, cwd=folder, capture_output=True, text=True, check=True)  # fmt: skip
            for kind, values in json.loads(done.stdout.splitlines()[-1]).items():
                figures[label].setdefault(kind, []).append(values)
    print(f"a drafting tick of {slots} team slots, unguarded, {rounds} rounds of the baseline ({baseline}) then"
          f" this code; load average {os.getloadavg()[0]:.1f} at the end")  # fmt: skip
    for kind in ("in process", "hz process"):
        for label in codes:
            runs = figures[label][kind]
            took = statistics.median(r[0] for r in runs)
            cpu = statistics.median(r[1] for r in runs)
            print(f"  {kind:>10}, {label:>9}: {took:.2f} s ({took / slots:.3f} s a slot), CPU {cpu:.2f} s"
                  f" ({cpu / slots:.3f} s a slot), {runs[0][2]:.0f} git processes ({runs[0][2] / slots:.1f} a turn),"
                  f" {runs[0][3]:.0f} pushes; each round {', '.join(f'{r[0]:.2f}' for r in runs)} s")  # fmt: skip
