"""Discovery figures: what the idle tick pays to ask "is today's pass due?", and one daily pass.

Run: .venv/bin/python bench/discover.py [--quick]
Prints medians and p95; never asserts on time. The idle check must stay a stat and a small read (it runs
on every tick); the pass runs once a day per repository and loads the contract of every agent a hint is
for, so it is timed over agents that each get a hint.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from timing import repeat, stats

MONDAY = datetime(2026, 10, 26, 9, 0, tzinfo=UTC)
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
  inputs:
    plan:
      source: "file:docs/plan.md"
  outputs:
    note:
      target: "file:notes/{name}.md"
      facets: [summary]
---

# Weekly note

### Goal

A weekly note is drafted every Friday.

### Requires

- `plan`: the plan.

### Maintains

- `note`: the note.

#### summary

Material: what happened.

### Done when

- [ ] the week is covered
"""
PLAYBOOK = "hints:\n  - name: incidents\n    match: file:docs/incidents/**/*.md\n    why: incident write-ups\n"


def bench_idle_check(folder: Path) -> None:
    from hz.tick.discover_day import discovery_due, mark_done

    repo, store_root = folder / "idle-repo", folder / "idle-home" / "heinzel"
    (repo / "workflows").mkdir(parents=True)
    store_root.mkdir(parents=True)
    runs = repeat(lambda: discovery_due(repo, store_root, MONDAY), 2000)
    print(f"is a pass due? no playbook: {stats(runs)}")
    (repo / "workflows" / "_playbook.yaml").write_text(PLAYBOOK)
    mark_done(repo, store_root, MONDAY)
    assert not discovery_due(repo, store_root, MONDAY)
    runs = repeat(lambda: discovery_due(repo, store_root, MONDAY), 2000)
    print(f"is a pass due? playbook, today's pass done: {stats(runs)}")


def bench_pass(folder: Path, agents: int, files: int) -> None:
    from hz.heinzel.lifecycle import Origin, create
    from hz.session.store import Store
    from hz.tick.discover import discovery_pass

    repo = folder / "repo"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / "workflows").mkdir()
    (repo / "workflows" / "_playbook.yaml").write_text(PLAYBOOK)
    (repo / "docs").mkdir()
    (repo / "docs" / "plan.md").write_text("# plan\n")
    for n in range(files):
        path = repo / "docs" / "incidents" / f"{n % 10}" / f"incident-{n:04d}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"# incident {n}\n")
    environ = {**os.environ, "HZ_HOME": str(folder / "home"), "HZ_CONFIG_HOME": str(folder / "config")}
    with Store.from_environ(environ) as store:
        for n in range(agents):
            create(store, CONTRACT.format(name=f"note-{n}"), label="bench", namespace="me", handle=None,
                   origin=Origin("file"), now=MONDAY, approve=True)  # fmt: skip
        runs: list[float] = []
        for day in range(3):  # the sources stay new: nothing is woken here, so each day finds them again
            began = time.perf_counter()
            found = discovery_pass(store, repo, MONDAY + timedelta(days=day))
            runs.append(time.perf_counter() - began)
        proposed = sum(len(c) for c in found.causes.values())
    print(f"one daily pass: {agents} agents, a hint over {files} files, {proposed} sources proposed: {stats(runs)}")


def main() -> None:
    quick = "--quick" in sys.argv
    load = os.getloadavg()
    print(f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        bench_idle_check(folder)
        bench_pass(folder, 20 if quick else 100, 200 if quick else 2000)


if __name__ == "__main__":
    main()
