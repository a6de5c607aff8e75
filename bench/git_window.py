"""`git:` on a big history: hz's window against `git log --name-only` for the same window.

Builds a synthetic history of 100,000 commits (one every 30 minutes, about 5.7 years, with a merge of a
side branch every 50 commits and 2,000 files in 40 folders) with `git fast-import`, then times hz's
`git:` source (commits, merged, authors) and `git log --name-only --since` over a 30-day, a 365-day and
a whole-history window, printing both (wall and CPU time, the best of three), their ratios, and the
peak memory of hz's process. Nothing here fails on time. `HZ_BENCH_COMMITS` sets another size.
"""

from __future__ import annotations

import os
import resource
import subprocess
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from hz.sources.base import SourceSpec
from hz.sources.cache import SourceCache
from hz.sources.resolve import resolve

NOW = datetime(2026, 11, 28, 12, 0, tzinfo=UTC)
COMMITS = int(os.environ.get("HZ_BENCH_COMMITS", "100000"))
EVERY = timedelta(minutes=30)
FOLDERS, FILES = 40, 50
RUNS = 3  # the best of three: the machine may be shared


def build(repo: Path) -> None:
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
    start = NOW - EVERY * COMMITS
    lines: list[bytes] = []
    for n in range(COMMITS):
        when = int((start + EVERY * n).timestamp())
        side = n % 50 == 49  # the commit before each merge is made on a side branch
        merge = n % 50 == 0 and n > 0
        mark = n + 1
        who = f"Dev {n % 37} <dev{n % 37}@example.org>"
        message = f"change {n}\n\nbody of change {n}\n".encode()
        lines.append(f"commit refs/heads/{'side' if side else 'main'}\nmark :{mark}\n".encode())
        lines.append(f"author {who} {when} +0000\ncommitter {who} {when} +0000\n".encode())
        lines.append(b"data %d\n" % len(message) + message)
        if side:
            lines.append(f"from :{mark - 1}\n".encode())
        elif merge:
            lines.append(f"from :{mark - 2}\nmerge :{mark - 1}\n".encode())
        elif n > 0:
            lines.append(f"from :{mark - 1}\n".encode())
        for k in range(1 + n % 3):
            path = f"dir{(n + k) % FOLDERS}/sub{k}/file{(n * 7 + k) % FILES}.txt"
            body = f"{n} {k}\n".encode()
            lines.append(f"M 100644 inline {path}\n".encode() + b"data %d\n" % len(body) + body)
        lines.append(b"\n")
    started = time.perf_counter()
    subprocess.run(["git", "-C", str(repo), "fast-import", "--quiet"], input=b"".join(lines), check=True)
    subprocess.run(["git", "-C", str(repo), "checkout", "-q", "main"], check=True)
    print(f"built {COMMITS} commits with fast-import in {time.perf_counter() - started:.1f} s")


def _cpu(who: int) -> float:
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


def hz_window(repo: Path, cache: Path, window: timedelta | None) -> tuple[float, float, int]:
    """Wall seconds, CPU seconds (hz's and its git process's) and the commits listed."""
    spec = SourceSpec("git:.", window=window, facets=("commits", "merged", "authors"))
    cpu = _cpu(resource.RUSAGE_SELF) + _cpu(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    result = resolve(spec, SourceCache(cache), slot=NOW, now=NOW, environ=dict(os.environ), root=repo, force=True)
    wall = time.perf_counter() - started
    cpu = _cpu(resource.RUSAGE_SELF) + _cpu(resource.RUSAGE_CHILDREN) - cpu
    return wall, cpu, len(result.facets["commits"])


def git_window(repo: Path, window: timedelta | None) -> tuple[float, float]:
    """Wall and CPU seconds of `git log --name-only` over the window."""
    since = [f"--since={(NOW - window).isoformat()}"] if window else []
    cpu = _cpu(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(
        ["git", "-C", str(repo), "log", "--name-only", *since, "HEAD", "--"], stdout=subprocess.DEVNULL, check=True
    )
    return time.perf_counter() - started, _cpu(resource.RUSAGE_CHILDREN) - cpu


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        repo = Path(tmp) / "big"
        build(repo)
        for label, window in (("30 days", timedelta(days=30)), ("365 days", timedelta(days=365)), ("whole", None)):
            git_wall, git_cpu = (min(t) for t in zip(*(git_window(repo, window) for _ in range(RUNS)), strict=True))
            runs = [hz_window(repo, Path(tmp) / f"c{n}", window) for n in range(RUNS)]
            hz_wall, hz_cpu = min(r[0] for r in runs), min(r[1] for r in runs)
            print(
                f"{label:>8} ({runs[0][2]} commits): wall hz {hz_wall:6.2f} s, git log --name-only {git_wall:6.2f} s, "
                f"ratio {hz_wall / git_wall:4.2f}; cpu hz {hz_cpu:6.2f} s, git {git_cpu:6.2f} s, "
                f"ratio {hz_cpu / git_cpu:4.2f}"
            )
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(f"peak memory of this process (hz's side): {peak:.0f} MB")


if __name__ == "__main__":
    main()
