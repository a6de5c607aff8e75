"""Tick figures: an idle tick over many asleep agents, a busy tick, one turn's bookkeeping, spine growth.

Run: .venv/bin/python bench/tick.py [--quick] [--team [--slots N] [--baseline REF [--rounds N]]]
Prints medians and p95; never asserts on time. Goals (issue 6): a tick over 10,000 asleep agents with
nothing due under 5 ms in process and under 100 ms median as a fresh `hz tick` process; the bookkeeping
of one turn without its runner under 5 ms; a turn adds at most 1.5 KB to its spine.
Issue 22 (bench/team_slots.py): a drafting tick of 5 team slots, in seconds per slot and git processes per
turn, beside a cron job's script that commits and pushes a file, in the same run; `--team` runs it alone.
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
from typing import Any

from timing import ms, repeat, stats

from hz.session.envelope import Envelope, format_line, format_ts, line_hash
from hz.session.index import Index
from hz.session.spine import SPINE

FP = "sha256:" + "cd" * 32
MONDAY = datetime(2026, 10, 26, 9, 0, tzinfo=UTC)
FRIDAY = datetime(2026, 10, 30, 15, 0, tzinfo=UTC)
CONTRACT = """---
name: {name}
kind: responsibility
description: A weekly note for the benchmark.
hz:
  schema: 1
  title: Weekly note
  owner: "@bench"
  scope: personal
  schedule: "0 15 * * FRI"
  outputs:
    note:
      target: "file:notes/{name}-{{slot:%G-W%V}}.md"
      facets: [summary]
---

# Weekly note

### Goal

A weekly note is drafted every Friday.

### Maintains

- `note`: the note.

#### summary

Material: what happened.

### Done when

- [ ] the week is covered
"""


def asleep_spines(root: Path, count: int, *, first: int = 0) -> None:
    """Agents that had one turn and are due only in a year: what an idle machine holds."""
    due = "2027-10-29T15:00:00Z"
    for n in range(first, first + count):
        agent = f"hz-01JB{n:022d}"
        directory = root / agent
        directory.mkdir(parents=True, mode=0o700)
        events: list[tuple[str, dict[str, Any], str | None, str | None]] = [
            ("heinzel.created", {"agent_id": agent, "name": f"a-{n}", "namespace": "me", "origin": "file"}, None, None),
            ("contract.proposed", {"name": f"a-{n}", "contract_fingerprint": FP, "source_fingerprint": FP}, None, None),
            ("contract.approved", {"version": 1, "next_due": due}, None, None),
            ("turn.started", {"cause": "created", "causes": ["created"], "keys": [f"{agent}@created"],
                              "contract_version": 1}, "t0", f"{agent}@created"),
            ("turn.finished", {"disposition": "skipped", "reason": "nothing-to-do", "cause": "created",
                               "next_due": due}, "t0", None),
        ]  # fmt: skip
        prev: str | None = None
        lines = []
        for seq, (kind, data, turn, key) in enumerate(events, start=1):
            line = format_line(Envelope(seq, format_ts(MONDAY), prev, kind, data, turn, key))
            prev = line_hash(line)
            lines.append(line)
        (directory / SPINE).write_bytes(b"\n".join(lines) + b"\n")


def bench_idle(folder: Path, count: int, processes: int) -> None:
    from hz.tick.daemon import tick

    home = folder / f"idle-{count}"
    asleep_spines(home / "heinzel", count)
    with Index.open(home / "heinzel"):
        pass  # the first open builds the index
    environ = {**os.environ, "HZ_HOME": str(home), "HZ_CONFIG_HOME": str(folder / "config")}
    # An installed hz has its bytecode cached; without the cache every start would compile hz again.
    environ.pop("PYTHONDONTWRITEBYTECODE", None)
    now = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)
    assert tick(root=None, environ=environ, now=now).woken == []
    runs = repeat(lambda: tick(root=None, environ=environ, now=now), 50)
    print(f"idle tick over {count} asleep agents, in process: {stats(runs, 2)}")
    fresh_processes(folder, home, environ, count, processes)


def fresh_processes(folder: Path, home: Path, environ: dict[str, str], count: int, processes: int) -> None:
    """`hz tick` as a user runs it (the console script), as `python -m hz`, and with the default home."""
    now = ["tick", "--now", "2026-11-02T09:00Z"]
    script = Path(sys.executable).with_name("hz")
    # The default home ($HOME/.local/share/heinzel on Linux) is the same index reached through a link.
    user = folder / "user"
    (user / ".local" / "share").mkdir(parents=True)
    (user / ".local" / "share" / "heinzel").symlink_to(home)
    by_default = {k: v for k, v in environ.items() if not k.startswith(("HZ_HOME", "XDG_"))} | {"HOME": str(user)}
    runs = {
        "the `hz` console script": ([str(script), *now], environ),
        "`python -m hz`": ([sys.executable, "-m", "hz", *now], environ),
        "the console script, default home (no HZ_HOME)": ([str(script), *now], by_default),
        "a bare `python -c pass` here": ([sys.executable, "-c", "pass"], environ),
    }
    if not script.exists():
        del runs["the `hz` console script"], runs["the console script, default home (no HZ_HOME)"]
    for command, env in runs.values():  # warm the bytecode cache
        subprocess.run(command, env=env, cwd=folder, check=True, capture_output=True)
    times: dict[str, list[float]] = {label: [] for label in runs}
    for _ in range(processes):  # interleaved, so a change of load touches every line alike
        for label, (command, env) in runs.items():
            began = time.perf_counter()
            subprocess.run(command, env=env, cwd=folder, check=True, capture_output=True)  # cwd: not a repository
            times[label].append(time.perf_counter() - began)
    print(f"idle `hz tick` as a fresh process over {count} agents (load {os.getloadavg()[0]:.2f}):")
    for label, fresh in times.items():
        print(f"  {label}: {stats(fresh, 2)}")


def bench_busy(folder: Path, asleep: int, due: int) -> None:
    from hz.heinzel.lifecycle import Origin, create
    from hz.session.store import Store
    from hz.tick.daemon import tick

    home = folder / "busy"
    asleep_spines(home / "heinzel", asleep)
    repo = folder / "repo"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    environ = {**os.environ, "HZ_HOME": str(home), "HZ_CONFIG_HOME": str(folder / "config")}
    with Store.from_environ(environ) as store:
        for n in range(due):
            text = CONTRACT.format(name=f"note-{n}")
            create(
                store, text, label="bench", namespace="me", handle=None, origin=Origin("file"), now=MONDAY, approve=True
            )
    tick(root=repo, environ=environ, now=MONDAY)  # the created turns
    began = time.perf_counter()
    report = tick(root=repo, environ=environ, now=FRIDAY)
    took = time.perf_counter() - began
    print(f"tick over {asleep + due} agents with {len(report.woken)} due (offline runner): {ms(took, 2)}")


def bench_turn(folder: Path, turns: int) -> None:
    """One turn through the engine with a runner that answers at once: hz's own share of a turn."""
    from hz.config import HeinzelSettings
    from hz.runners.base import ThinkRequest, ThinkResult, Usage
    from hz.runners.offline import offline_outcome
    from hz.turn import engine
    from hz.turn.causes import Cause, coalesce, schedule_key
    from hz.turn.engine import Deps, Gathered
    from hz.turn.journal import Journal
    from hz.turn.plan import Plan

    class Instant:
        name = "instant"

        def __init__(self) -> None:
            self.outcome: Any = None

        def worst_case_usd(self, max_tokens: int) -> float:
            return 0.0

        def think(self, request: ThinkRequest) -> ThinkResult:
            if self.outcome is None:
                self.outcome = offline_outcome(request)
            return ThinkResult(self.outcome, Usage(input_tokens=900, output_tokens=300, usd=0.0123))

    places = [("this disk", folder)]
    if Path("/dev/shm").is_dir():
        places.append(("tmpfs", Path(tempfile.mkdtemp(dir="/dev/shm"))))
    for label, base in places:
        agent = "hz-01JC0000000000000000000000"
        directory = base / "turns" / agent
        directory.mkdir(parents=True, mode=0o700)
        plan = Plan(agent, "bench", 1, FP, "### Goal\n\nA note.\n", {"note": ("summary",)},
                    {"note": "file:notes/{slot:%G-W%V}.md"}, root=base)  # fmt: skip
        gathered = Gathered({"tracker": {"issues": [{"title": "ship it", "url": "https://x.test/1"}]}}, {"tracker": FP})
        deps = Deps(Instant(), HeinzelSettings(), {}, lambda: FRIDAY, lambda p, s, g=gathered: g)
        sizes: list[int] = []
        runs: list[float] = []
        with Journal.open(directory, clock=lambda: FRIDAY, timeout=1.0) as journal:
            for week in range(turns):
                slot = FRIDAY + timedelta(weeks=week)
                wake = coalesce(agent, [Cause("schedule", schedule_key(agent, slot), slot)])
                before = (directory / SPINE).stat().st_size if (directory / SPINE).exists() else 0
                began = time.perf_counter()
                engine.start(journal, plan, wake, deps)
                runs.append(time.perf_counter() - began)
                sizes.append((directory / SPINE).stat().st_size - before)
        print(f"one turn's bookkeeping without its runner ({label}): {stats(runs[1:], 2)}")
        print(f"  spine growth per drafted turn: median {statistics.median(sizes):.0f} bytes, max {max(sizes)} bytes")
        if base == folder:
            spine_breakdown((directory / SPINE).read_bytes(), sizes[-1])
        if base != folder:
            import shutil

            shutil.rmtree(base)


def spine_breakdown(spine: bytes, last_turn: int) -> None:
    """Where a drafted turn's bytes go: each compact line against what its payload and key take.

    The envelope is the line without its `d` and `y` (seq, prev, time, turn, kind)."""
    import orjson

    from hz.session.spine import parse_spine

    lines = spine[len(spine) - last_turn :].splitlines()
    kinds = [e.kind for e in parse_spine(spine).events[-len(lines) :]]
    floor = 0
    print(f"  the last turn, line by line ({len(lines)} lines):")
    for kind, line in zip(kinds, lines, strict=True):
        raw = orjson.loads(line)
        bare = len(orjson.dumps({k: v for k, v in raw.items() if k not in ("d", "y")})) + 1
        floor += bare
        size = len(line) + 1
        print(f"    {kind:<16} {size:>4} bytes: envelope {bare:>3}, payload and key {size - bare:>3}")
    print(f"  envelopes of these {len(lines)} lines alone: {floor} bytes (the goal: 1,536 a turn, all of it)")


def main() -> None:
    quick = "--quick" in sys.argv
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        if "--team" in sys.argv:
            from team_slots import bench_team

            slots = int(sys.argv[sys.argv.index("--slots") + 1]) if "--slots" in sys.argv else 5
            if "--baseline" in sys.argv:  # old and new code alternately, unguarded: see team_slots.compare
                from team_slots import compare

                rounds = int(sys.argv[sys.argv.index("--rounds") + 1]) if "--rounds" in sys.argv else 3
                compare(folder, slots, sys.argv[sys.argv.index("--baseline") + 1], rounds)
                return
            bench_team(folder / "team", slots)
            return
        bench_idle(folder, 1_000 if quick else 10_000, 5 if quick else 21)
        bench_busy(folder, 990, 10)
        bench_turn(folder, 10 if quick else 40)
        from team_slots import bench_team

        bench_team(folder / "team", 5)


if __name__ == "__main__":
    main()
