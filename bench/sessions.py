"""Session store figures: spine bytes per drafted turn, append latency with fsync, `hz heinzel list`, full
reindex, catch-up.

Run: .venv/bin/python bench/sessions.py [--quick] [--reindex (only the rebuild figures)] [--bytes (only the
spine's bytes per turn)]
Prints medians and p95/p99; never asserts on time. Goals (issue 4): append < 0.5 ms median; list of
500 agents < 10 ms and of 10,000 < 50 ms in process; reindex of 500 spines < 250 ms and of 10,000
< 5 s; catching up after new lines reads only those lines.
"""

from __future__ import annotations

import io
import os
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from timing import ms, quantile, repeat

from hz.session.compact import Context, encode
from hz.session.envelope import Envelope, format_line, format_ts, line_hash
from hz.session.index import INDEX, Index
from hz.session.replay import processes_for, spine_rows
from hz.session.rows import Flat, flatten_into, write_flat
from hz.session.spine import SPINE, SpineWriter, read_spine
from hz.session.vocabulary import validate_payload

FP = "sha256:" + "ab" * 32
START = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)


def _events(agent: str, n: int, count: int) -> list[tuple[str, dict[str, Any], str | None, str | None]]:
    """A realistic spine: birth, approval, then weekly turns (start, steps, draft, finish, approval)."""
    name = f"agent-{n}"
    out: list[tuple[str, dict[str, Any], str | None, str | None]] = [
        ("heinzel.created", {"agent_id": agent, "name": name, "namespace": "me", "origin": "file"}, None, None),
        ("contract.proposed", {"name": name, "contract_fingerprint": FP, "source_fingerprint": FP,
                               "assets": [f"doc:{name}"], "inputs": {"merged": ["git:log"]}}, None, None),
        ("contract.approved", {"version": 1, "next_due": "2026-01-09T15:00:00Z"}, None, None),
    ]  # fmt: skip
    week = 0
    while len(out) < count:
        turn, key = f"t{week}", f"{agent}@2026-W{week:02d}"
        due = (START + timedelta(weeks=week + 1)).strftime("%Y-%m-%dT%H:%M:%SZ")
        started = {"cause": "schedule", "causes": ["schedule"], "keys": [key], "contract_version": 1}
        placed = {"key": f"{key}@doc", "asset": f"doc:{name}", "hash": FP, "contract_version": 1}
        out += [
            ("turn.started", started, turn, key),
            ("turn.step", {"step": "gather", "inputs": {"merged": FP}}, turn, None),
            ("turn.step", {"step": "think", "tokens": 1200, "usd": 0.02}, turn, None),
            ("effect.started", {"key": f"{key}@doc", "effect": "place_draft"}, turn, None),
            ("effect.done", {"key": f"{key}@doc", "hash": FP}, turn, None),
            ("draft.placed", placed, turn, None),
            ("turn.finished", {"disposition": "drafted", "cause": "schedule", "usd": 0.02, "next_due": due,
                               "inputs": {"merged": FP}, "report": "drafted the weekly section"}, turn, None),
            ("approval.observed", {"key": f"{key}@doc", "decision": "approved", "share_changed": 0.1}, None, None),
        ]  # fmt: skip
        week += 1
    return out[:count]


def make_spines(root: Path, agents: int, events: int, *, compact: bool = True) -> None:
    """Write spines directly (formatted and chained like the writer does, without an fsync per line), in the
    compact line the writer writes, or (`compact=False`) in the line of format 1 older spines hold."""
    validated: dict[str, dict[str, Any]] = {}
    for n in range(agents):
        agent = f"hz-01JB{n:022d}"
        directory = root / agent
        directory.mkdir(parents=True, mode=0o700)
        prev: str | None = None
        lines = []
        context = Context()
        for seq, (kind, data, turn, key) in enumerate(_events(agent, n, events), start=1):
            signature = f"{kind}:{sorted(data)}"
            if signature not in validated:
                validated[signature] = validate_payload(kind, data)  # validate each shape once
            envelope = Envelope(seq, format_ts(START), prev, kind, validated[signature] | data, turn, key)
            line = encode(envelope, START, context) if compact else format_line(envelope)
            prev = line_hash(line)
            lines.append(line)
        (directory / SPINE).write_bytes(b"\n".join(lines) + b"\n")


def bench_spine_bytes(folder: Path, turns: int) -> None:
    """Bytes a drafted turn adds to its spine: the compact line the writer writes, beside the same events
    in the line of format 1 (every envelope field on every line) that hz wrote before, in the same run."""
    from hz.config import HeinzelSettings
    from hz.runners.base import ThinkRequest, ThinkResult, Usage
    from hz.runners.offline import offline_outcome
    from hz.turn import engine
    from hz.turn.causes import Cause, coalesce, schedule_key
    from hz.turn.engine import Deps, Gathered
    from hz.turn.journal import Journal
    from hz.turn.plan import Plan

    class Paid:
        name = "paid"

        def worst_case_usd(self, max_tokens: int) -> float:
            return 0.0

        def think(self, request: ThinkRequest) -> ThinkResult:
            return ThinkResult(offline_outcome(request), Usage(input_tokens=9000, output_tokens=1300, usd=0.0421))

    agent = "hz-01JC0000000000000000000000"
    directory = folder / "bytes" / agent
    directory.mkdir(parents=True, mode=0o700)
    now = [START]

    def clock() -> datetime:
        now[0] += timedelta(seconds=1.7)  # the lines of a turn some seconds apart, as a model call makes them
        return now[0]

    plan = Plan(agent, "bench", 1, FP, "### Goal\n\nA note.\n", {"note": ("summary",)},
                {"note": "file:notes/{slot:%G-W%V}.md"}, root=folder / "bytes")  # fmt: skip
    gathered = Gathered({"tracker": {"issues": [{"title": "ship it", "url": "https://x.test/1"}]}}, {"tracker": FP})
    deps = Deps(Paid(), HeinzelSettings(), {}, clock, lambda p, s, g=gathered: g)
    with Journal.open(directory, clock=clock, timeout=1.0) as journal:
        for hour in range(turns):
            slot = START + timedelta(hours=hour)
            now[0] = slot
            engine.start(journal, plan, coalesce(agent, [Cause("schedule", schedule_key(agent, slot), slot)]), deps)
    compact_lines = (directory / SPINE).read_bytes().split(b"\n")[:-1]
    events = read_spine(directory / SPINE).events
    by_turn_old: dict[str, int] = {}
    by_turn_new: dict[str, int] = {}
    prev: str | None = None
    for envelope, line in zip(events, compact_lines, strict=True):
        old = format_line(envelope._replace(prev=prev))
        prev = line_hash(old)
        if envelope.turn is not None:
            by_turn_old[envelope.turn] = by_turn_old.get(envelope.turn, 0) + len(old) + 1
            by_turn_new[envelope.turn] = by_turn_new.get(envelope.turn, 0) + len(line) + 1
    old_sizes, new_sizes = list(by_turn_old.values())[5:], list(by_turn_new.values())[5:]
    print(f"spine bytes per drafted turn over {len(new_sizes)} turns in steady state (the goal: 1,536):")
    print(f"  format 1 (before): mean {statistics.mean(old_sizes):.0f}, median {statistics.median(old_sizes):.0f}, "
          f"max {max(old_sizes)}")  # fmt: skip
    print(f"  compact line (now): mean {statistics.mean(new_sizes):.0f}, median {statistics.median(new_sizes):.0f}, "
          f"max {max(new_sizes)} (a turn that also writes the summary of the turns before it)")  # fmt: skip
    from hz.session.compaction import compact

    size = (directory / SPINE).stat().st_size
    with SpineWriter.open(directory) as writer:
        began = time.perf_counter()
        done = compact(writer, now=START + timedelta(hours=turns), retention_days=1)
        took = time.perf_counter() - began
    after = (directory / SPINE).stat().st_size
    folded = "nothing folded" if done is None else f"{done.folded_lines} lines folded, {done.kept} events kept"
    print(f"compaction with a retention of one day after {turns} hourly turns: {size} -> {after} bytes "
          f"({folded}) in {ms(took)}")  # fmt: skip


def bench_append(folder: Path, count: int) -> None:
    """On the spine's own disk, then on tmpfs (where fdatasync returns at once): hz's share apart."""
    data = {"kind": "summary", "tokens": 300, "usd": 0.001}
    places = [("this disk", folder)]
    if Path("/dev/shm").is_dir():
        places.append(("tmpfs", Path(tempfile.mkdtemp(dir="/dev/shm"))))
    for label, base in places:
        directory = base / "append"
        directory.mkdir()
        with SpineWriter.open(directory) as writer:
            writer.append("usage", data)  # warm: imports the vocabulary
            runs = repeat(lambda: writer.append("usage", data), count)
        median, p99 = statistics.median(runs), quantile(runs, 0.99)
        print(f"append with fdatasync on {label} ({count}x): median {ms(median)}, p99 {ms(p99)}")
        if base != folder:
            import shutil

            shutil.rmtree(base)
    began = time.perf_counter()
    for _ in range(count):
        validate_payload("usage", data)
    print(f"  payload validation alone: {ms((time.perf_counter() - began) / count)} per event")


def bench_reindex(folder: Path, agents: int, events: int) -> Path:
    """Write the spines, then time full rebuilds of their index (with workers when it pays, and without)."""
    root = folder / f"heinzel-{agents}"
    load = "load average before writing the spines {:.2f} {:.2f} {:.2f}".format(*os.getloadavg())
    began = time.perf_counter()
    make_spines(root, agents, events)
    print(f"\n{agents} spines of {events} events written in {time.perf_counter() - began:.1f} s")
    with Index.open(root) as index:  # a new index: the first open rebuilds
        rebuilds = repeat(index.rebuild, 3)
        runs = ", ".join(ms(r) for r in rebuilds)
        print(f"full reindex of {agents} spines: median {ms(statistics.median(rebuilds))}, runs {runs} "
              f"({processes_for(agents)} worker processes; {load})")  # fmt: skip
        alone = repeat(lambda: index.rebuild(processes=1), 3 if agents <= 1000 else 1)
        after = "load average after: {:.2f} {:.2f} {:.2f}".format(*os.getloadavg())
        print(f"  the same in one process: median {ms(statistics.median(alone))} ({after})")
    bench_phases(root)
    return root


def bench_index(folder: Path, agents: int, events: int, *, command: bool) -> None:
    root = bench_reindex(folder, agents, events)
    with Index.open(root) as index:
        listing = repeat(lambda: index.agents(today="2026-01-05"), 20)
        print(f"list {agents} agents, index query of whole rows (--json): median {ms(statistics.median(listing))}")
        listing = repeat(index.agent_lines, 20)
        print(f"list {agents} agents, index query of the table's columns: median {ms(statistics.median(listing))}")
    from hz.commands.heinzel_list import list_command

    environ = {**os.environ, "HZ_HOME": str(folder / "home")}
    link = folder / "home" / "heinzel"
    link.parent.mkdir(exist_ok=True)
    if link.is_symlink():
        link.unlink()
    link.symlink_to(root)

    def in_process() -> None:
        list_command(io.StringIO(), state=None, artifact=None, contract=None, json_output=False, environ=environ)

    runs = repeat(in_process, 20)
    print(f"list {agents} agents in process (open index + query + table): median {ms(statistics.median(runs))}, "
          f"p95 {ms(quantile(runs, 0.95))}")  # fmt: skip
    due = repeat(lambda: _due(root), 50)
    print(f"what is due for {agents} agents (open index + one query): median {ms(statistics.median(due))}")
    if command:
        hz = str(Path(sys.executable).parent / "hz")
        runs = repeat(lambda: subprocess.run([hz, "heinzel", "list"], env=environ, check=True, capture_output=True), 5)
        print(f"hz heinzel list over {agents} agents as a command: median {ms(statistics.median(runs))}")
    bench_catch_up(root)


def bench_phases(root: Path) -> None:
    """Where one rebuild's time goes, in one process: reading spines, folding events, inserting rows.

    Like the rebuild: each spine folded as soon as it is read, the rows inserted 1,000 agents at a time."""
    base = str(root)
    agents = sorted(n for n in os.listdir(base) if n.startswith("hz-"))
    read = fold = insert = 0.0
    rows = 0
    with tempfile.TemporaryDirectory() as scratch, Index.open(Path(scratch)) as empty:
        db = empty.db
        db.execute("BEGIN IMMEDIATE")
        for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL").fetchall():
            db.execute(f"DROP INDEX {name}")  # a rebuild creates them after the rows
        for at in range(0, len(agents), 1000):
            batch: Flat = {}
            for agent in agents[at : at + 1000]:  # each spine read then folded, as a rebuild does
                began = time.perf_counter()
                spine = read_spine(os.path.join(base, agent, SPINE))
                read_end = time.perf_counter()
                flatten_into(batch, spine_rows(agent, spine))
                read, fold = read + read_end - began, fold + time.perf_counter() - read_end
            began = time.perf_counter()
            write_flat(db, batch)
            insert += time.perf_counter() - began
            rows += sum(len(values) // width for width, values in batch.values())
        db.execute("ROLLBACK")
    print(f"  phases in one process: read {ms(read)}, fold {ms(fold)}, insert {ms(insert)} ({rows} rows)")


def _due(root: Path) -> None:
    with Index.open(root) as index:
        index.due(datetime(2026, 1, 9, 15, 0, tzinfo=UTC))


def bench_catch_up(root: Path) -> None:
    agent = sorted(p.name for p in root.iterdir() if p.name.startswith("hz-"))[0]
    with SpineWriter.open(root / agent) as writer:
        for _ in range(5):
            writer.append("usage", {"kind": "summary", "usd": 0.01})
    with Index.open(root, refresh=False) as index:
        began = time.perf_counter()
        read = index.refresh()
        took = time.perf_counter() - began
    print(f"catch-up after 5 new lines in one spine: read {read} events in {ms(took)}")


def main() -> None:
    quick = "--quick" in sys.argv
    with tempfile.TemporaryDirectory() as folder:
        bench_spine_bytes(Path(folder), 50)
    if "--bytes" in sys.argv:
        return
    if "--reindex" in sys.argv:  # only the rebuild figures
        with tempfile.TemporaryDirectory() as folder:
            for agents in (500,) if quick else (500, 10_000):
                bench_reindex(Path(folder), agents, 50)
        return
    with tempfile.TemporaryDirectory() as folder:
        bench_append(Path(folder), 300 if quick else 2000)
        bench_index(Path(folder), 500, 50, command=True)
        if not quick:
            bench_index(Path(folder), 10_000, 50, command=True)
        assert not (Path(folder) / INDEX).exists()


if __name__ == "__main__":
    main()
