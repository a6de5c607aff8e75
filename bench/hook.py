"""The pre-receive hook's cost: fixed per push, and per event pushed.

Run: .venv/bin/python bench/hook.py [--quick] [--baseline DIR]

A bare remote with the hook installed (`hz state install-hook`) and a `main` holding one team contract
(so the hook reads the contracts and roles as it does for a real team). Printed:
- fixed cost per push: the hook process itself (started as git starts it, `hooks/pre-receive` with the
  update line on stdin and GIT_DIR set) judging a push of one event, median and p90 of several runs,
  with what it kept of `main` from the push before (hz.gitstate.main_cache) and without (the first push
  after `main` moved); and the same push through `git push` end to end;
- per-event cost: the hook judging one commit of 1,000 events (turn starts, turn ends, drafts), minus the
  fixed cost, per event;
- with `--baseline DIR` (a checkout of an older hz, e.g. `git archive <commit> hz | tar -x -C DIR`), the
  same hook processes run that hz (PYTHONPATH=DIR) on the same remote, beside this one's figures;
  without it, the figures measured before the hook read objects through git are printed for reference;
- the event shape check alone, per event, with hz's plain checks (hz.gitstate.event_shapes) and with the
  pydantic models they agree with (the check the hook ran before), in this one process: the ratio.
Figures only; nothing here fails on time.
"""

from __future__ import annotations

import hashlib
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pygit2

from hz.canonical import canonical_json
from hz.gitstate import objects
from hz.gitstate.hook import install_hook
from hz.gitstate.types import format_utc

ZERO = "0" * 40
AGENT = "hz-01JB0000000000000000000007"
NOW = datetime.now(UTC).replace(microsecond=0)
SLOT = NOW.replace(minute=0, second=0)
CONTRACT = f"""---
name: weekly
kind: responsibility
description: The weekly report.
id: {AGENT.removeprefix("hz-")}
hz:
  schema: 1
  title: Weekly report
  owner: "@ann"
  maintainers: ["@bob"]
  scope: team
  inputs:
    prs:
      source: git:log
  outputs:
    report:
      target: state:reports/{{slot:%Y-%m-%d-%H%M}}.md
---

## Goal

Keep the weekly report true.
"""


def sha(text: str) -> str:
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()


def ulid(n: int) -> str:
    alphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
    digits = ""
    while True:
        n, r = divmod(n, 32)
        digits = alphabet[r] + digits
        if n == 0:
            return "01JB" + digits.rjust(22, "0")


def placed(n: int) -> dict[str, object]:
    """The n-th draft.placed of the agent, as hz writes it: one slot a minute before the hour."""
    slot = format_utc(SLOT - timedelta(minutes=n + 1)).replace(":00Z", "Z")
    stamp = (SLOT - timedelta(minutes=n + 1)).strftime("%Y-%m-%d-%H%M")
    key = f"{AGENT}@v1@{slot}@state:reports/{stamp}.md"
    data: dict[str, object] = {
        "asset": f"state:reports/{stamp}.md",
        "hash": sha(str(n)),
        "key": key,
        "turn": "t-" + ulid(n),
    }
    return _envelope("draft.placed", key, data)


def _envelope(kind: str, key: str, data: dict[str, object]) -> dict[str, object]:
    return {"data": data, "id": AGENT, "key": key, "kind": kind, "lease": AGENT, "token": 1, "ts": format_utc(NOW),
            "v": 1}  # fmt: skip


def event(n: int) -> dict[str, object]:
    """The n-th of a mix as a team writes it: a turn's start, its end (with costs), a draft."""
    key = f"{AGENT}@prs:{sha(f'input {n // 3}')}"
    turn = {"cause": "source-changed", "keys": [key], "turn": "t-" + ulid(n // 3)}
    if n % 3 == 0:
        return _envelope("turn.started", key, {**turn, "contract_fp": sha("c"), "contract_version": 1,
                                               "role": "owner", "token": 1})  # fmt: skip
    if n % 3 == 1:
        return _envelope("turn.finished", key, {**turn, "cost_usd": 0.0123, "disposition": "drafted",
                                                "duration_s": 3.5, "input_fps": {"prs": sha(str(n))},
                                                "tokens": 1200})  # fmt: skip
    return placed(n)


def event_path(event: dict[str, object]) -> str:
    from hz.gitstate.layout import event_path as path

    return path(str(event["id"]), str(event["kind"]), str(event["key"]))


def line(fields: dict[str, object]) -> bytes:
    return canonical_json(fields) + b"\n"


def lease_record() -> bytes:
    return line({"acquired": format_utc(NOW - timedelta(minutes=1)), "expires": format_utc(NOW + timedelta(hours=1)),
                 "holder": "@ann/m-0000000a", "lease": AGENT, "role": "owner", "slot": format_utc(SLOT),
                 "state": "held", "token": 1, "v": 1})  # fmt: skip


def remote(root: Path) -> tuple[pygit2.Repository, str]:
    """The guarded bare remote with main and the lease; returns it and the lease commit."""
    bare = root / "team.git"
    subprocess.run(["git", "init", "-q", "--bare", str(bare)], check=True)
    repo = pygit2.Repository(str(bare))
    tree = objects.write_tree(repo, None, {"workflows/weekly.prose.md": CONTRACT.encode()})
    main = objects.make_commit(repo, tree, [], "the weekly contract\n", NOW)
    repo.references.create("refs/heads/main", main)
    held = objects.make_commit(repo, objects.write_tree(repo, None, {"lease.json": lease_record()}), [],
                               f"lease {AGENT} token 1 held\n", NOW)  # fmt: skip
    repo.references.create(f"refs/hz/lease/{AGENT}", held)
    install_hook(bare)
    return repo, held


def state_commit(repo: pygit2.Repository, events: int) -> str:
    files = {event_path(e): line(e) for e in map(event, range(events))}
    message = f"hz-state: {events} event{'s' if events != 1 else ''}\n"
    return objects.make_commit(repo, objects.write_tree(repo, None, files), [], message, NOW)


BEFORE = {"fixed": 168.9, "event": 0.149}
"""ms per 1-event push (median) and per event of the hook before it read objects through git and kept main's
contracts (pygit2 and ruamel on its path), measured by this bench on the project's 2-core machine while it
was quiet; the round before had measured 211 ms and 0.219 ms there."""


def run_hook(bare: Path, stdin: str, hz: str | None = None) -> float:
    """One run of the installed hook as git starts it (`hz`: a checkout to run instead of this one); its wall
    time in seconds (it must accept)."""
    return hook_run(bare, stdin, hz)[0]


def hook_run(bare: Path, stdin: str, hz: str | None = None) -> tuple[float, float]:
    """(wall, CPU) seconds of one hook run; CPU is the hook's and its git processes' user and system time,
    which other work on a busy machine does not inflate as it does the wall time."""
    env = {**os.environ, "GIT_DIR": str(bare)} | ({"PYTHONPATH": hz} if hz else {})
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run([str(bare / "hooks" / "pre-receive")], input=stdin, capture_output=True, text=True,
                          env=env, cwd=bare, check=False)  # fmt: skip
    took = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"the hook refused the bench's push:\n{done.stderr}")
    return took, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def _in_process(bare: Path, one: str, many: str, runs: int) -> float:
    """Per event, the hook's own work in this process once its imports are done: less noise than processes."""
    from hz.gitstate.hook import run_hook

    environ = {**os.environ, "GIT_DIR": str(bare)}

    def judge(line: str) -> float:
        started = time.perf_counter()
        if run_hook([line], environ):
            raise SystemExit("the hook refused the bench's push")
        return time.perf_counter() - started

    judge(one)
    small = statistics.median(timed(runs, lambda: judge(one)))
    large = statistics.median(timed(max(3, runs // 3), lambda: judge(many)))
    return (large - small) / 999


def _process(code: str) -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True)
    return time.perf_counter() - started


def timed(runs: int, work: object) -> list[float]:
    assert callable(work)
    return sorted(work() for _ in range(runs))


def shape_cost(events: list[dict[str, object]], check: object) -> float:
    assert callable(check)
    started = time.perf_counter()
    for raw in events:
        if check(raw):
            raise SystemExit(f"the bench's event was refused: {check(raw)}")
    return (time.perf_counter() - started) / len(events)


def main() -> None:
    quick = "--quick" in sys.argv
    baseline = sys.argv[sys.argv.index("--baseline") + 1] if "--baseline" in sys.argv else None
    runs = 5 if quick else 15
    with tempfile.TemporaryDirectory() as tmp:
        repo, _ = remote(Path(tmp))
        bare = Path(repo.path)
        one = f"{ZERO} {state_commit(repo, 1)} refs/heads/hz/state\n"
        many = f"{ZERO} {state_commit(repo, 1000)} refs/heads/hz/state\n"
        ours = _figures(bare, one, many, runs, None)
        theirs = _figures(bare, one, many, runs, baseline) if baseline else None
        push_s = timed(max(3, runs // 3), _pusher(Path(tmp), bare))
        inside = _in_process(bare, one, many, runs)
    print(f"{'median / p90':48} {'this hz':>18}  {'baseline' if theirs else 'before (stored)':>18}")
    for prefix in ("", "cpu "):
        for label, name in ((f"{prefix}fixed cost per push, 1 event, main kept", "fixed"),
                            (f"{prefix}first push after main moved (nothing kept)", "cold")):  # fmt: skip
            stored = f"{BEFORE['fixed']:7.1f} ms" if name == "fixed" and not prefix else ""
            other = _cell(*theirs[prefix + name]) if theirs else stored
            print(f"{label + ':':48} {_cell(*ours[prefix + name]):>18}  {other:>18}")
        stored = f"{BEFORE['event']:7.3f} ms" if not prefix else ""
        other = f"{theirs[prefix + 'event'][0] * 1000:7.3f} ms" if theirs else stored
        label = f"{prefix}per event (one commit of 1,000 events):"
        print(f"{label:48} {ours[prefix + 'event'][0] * 1000:7.3f} ms{'':7}  {other:>18}")
    print(f"{'  the same in this process (imports done):':48} {inside * 1000:7.3f} ms")
    print(f"a whole `git push` of 1 event, with the hook: median {statistics.median(push_s) * 1000:7.1f} ms")
    for what, code in (("python alone", "pass"), ("python and pygit2", "import pygit2")):
        floor = statistics.median(timed(runs, lambda code=code: _process(code)))
        print(f"  floor: a process running {what + ':':19}  median {floor * 1000:7.1f} ms")
    _shapes()


def _figures(bare: Path, one: str, many: str, runs: int, hz: str | None) -> dict[str, tuple[float, float]]:
    """(median, p90) in seconds of the fixed cost with main kept and without, per event (its median twice),
    each in wall time and (`cpu …`) in CPU time."""

    def batch(n: int, stdin: str, forget: bool = False) -> tuple[list[float], list[float]]:
        pairs = [hook_run(bare, stdin, hz) for _ in range(n) if not forget or _forget(bare)]
        return sorted(wall for wall, _ in pairs), sorted(cpu for _, cpu in pairs)

    run_hook(bare, one, hz)  # the first push under this main keeps what it read of it
    figures: dict[str, tuple[float, float]] = {}
    fixed, cold, thousand = batch(runs, one), batch(max(3, runs // 3), one, True), batch(max(3, runs // 3), many)
    for index, prefix in ((0, ""), (1, "cpu ")):
        per_event = (statistics.median(thousand[index]) - statistics.median(fixed[index])) / 999
        figures |= {prefix + "fixed": _spread(fixed[index]), prefix + "cold": _spread(cold[index]),
                    prefix + "event": (per_event, per_event)}  # fmt: skip
    return figures


def _forget(bare: Path) -> bool:
    """Make the next push the first after main moved: what hz.gitstate.main_cache kept is removed."""
    (bare / "hz" / "hook-main.json").unlink(missing_ok=True)
    return True


def _spread(sorted_runs: list[float]) -> tuple[float, float]:
    return statistics.median(sorted_runs), sorted_runs[int(0.9 * (len(sorted_runs) - 1))]


def _cell(median: float, p90: float) -> str:
    return f"{median * 1000:6.1f} / {p90 * 1000:6.1f} ms"


def _pusher(root: Path, bare: Path) -> object:
    """A member's push of one new event on top of hz/state, end to end (`git push` and the hook)."""
    clone = root / "clone"
    subprocess.run(["git", "init", "-q", str(clone)], check=True)
    local = pygit2.Repository(str(clone))
    tips: list[str] = []

    def push() -> float:
        event = placed(2000 + len(tips))
        tree = objects.write_tree(local, local[tips[-1]].peel(pygit2.Tree).id if tips else None,
                                  {event_path(event): line(event)})  # fmt: skip
        commit = objects.make_commit(local, tree, tips[-1:], "hz-state: 1 event\n", NOW)
        started = time.perf_counter()
        done = subprocess.run(["git", "-C", str(clone), "push", "-q", str(bare), f"{commit}:refs/heads/hz/state"],
                              capture_output=True, text=True, check=False)  # fmt: skip
        took = time.perf_counter() - started
        if done.returncode != 0:
            raise SystemExit(done.stderr)
        tips.append(commit)
        return took

    return push


def _shapes() -> None:
    events = [json.loads(line(event(n))) for n in range(1000)]
    try:
        from hz.gitstate.event_shapes import event_errors, model_errors
    except ImportError:
        print("event shapes: hz.gitstate.event_shapes is not there (an older hz)")
        return
    plain = min(shape_cost(events, event_errors) for _ in range(3))
    models = min(shape_cost(events, model_errors) for _ in range(3))
    print(f"event shape check alone, plain checks:         {plain * 1000:7.3f} ms per event")
    print(f"event shape check alone, pydantic models:      {models * 1000:7.3f} ms per event  ({models / plain:.1f}x)")


if __name__ == "__main__":
    main()
