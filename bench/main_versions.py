"""Counting team contract versions on main: what a tick pays when main moved.

Run: .venv/bin/python bench/main_versions.py [--commits 2000,10000] [--contracts 5] [--edits 50]

A repository whose main has `--commits` first-parent commits (made with `git fast-import`), `--contracts`
team contracts in `workflows/`, and `--edits` material edits of each spread over the history (plus as
many wording-only edits, which move no fingerprint). Printed per size:
- the tip only: `versions_on_main` when this home's agents already run every contract on main (the
  tick's case after an unrelated commit), the tip's contracts compiled and nothing walked;
- the whole count: the same with every contract wanted (a fresh Actions run), history walked and every
  distinct contract blob compiled once.
The first call of a process (imports, warm-up) is left out of both. Figures only; nothing here fails
on time.
"""

from __future__ import annotations

import argparse
import subprocess
import tempfile
import time
from pathlib import Path

from hz.heinzel.main_versions import versions_on_main

CONTRACT = """---
name: {name}
kind: responsibility
id: 01KD{index:022d}
description: A contract for the benchmark.
hz:
  schema: 1
  title: Pulse {index}
  owner: "@priya"
  scope: team
  schedule: "0 * * * *"
  outputs:
    pulse:
      target: "state:pulse/{name}/{{slot:%Y%m%dT%H%M}}.md"
      facets: [summary]
---

# Pulse {index}

### Goal

The pulse is drafted every hour, edit {edit}.

### Maintains

- `pulse`: the pulse.

#### summary

Material: what moved.{wording}

### Done when

- [ ] the hour is covered
"""


def build(root: Path, commits: int, contracts: int, edits: int) -> str:
    """A repository with that history; the tip's commit id."""
    subprocess.run(["git", "init", "-q", "-b", "main", str(root)], check=True)
    every = max(1, commits // max(1, 2 * edits))
    stream: list[bytes] = []
    for n in range(commits):
        changed = n == 0 or n % every == 0
        stream.append(b"commit refs/heads/main\n")
        stream.append(f"committer Bench <b@example.org> {1_700_000_000 + n * 60} +0000\n".encode())
        message = f"commit {n}\n".encode()
        stream.append(b"data %d\n%s" % (len(message), message))
        files = [(f"src/file{n % 50}.txt", f"{n}\n")]
        if changed:
            step = n // every
            for c in range(contracts):
                text = CONTRACT.format(name=f"pulse-{c}", index=c, edit=step // 2, wording=" " * (step % 2))
                files.append((f"workflows/pulse-{c}.prose.md", text))
        for path, text in files:
            data = text.encode()
            stream.append(f"M 100644 inline {path}\n".encode())
            stream.append(b"data %d\n%s\n" % (len(data), data))
    subprocess.run(["git", "-C", str(root), "fast-import", "--quiet"], input=b"".join(stream), check=True)
    return subprocess.run(["git", "-C", str(root), "rev-parse", "main"], capture_output=True, text=True,
                          check=True).stdout.strip()  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--commits", default="2000,10000")
    parser.add_argument("--contracts", type=int, default=5)
    parser.add_argument("--edits", type=int, default=50)
    args = parser.parse_args()
    for commits in (int(c) for c in args.commits.split(",")):
        with tempfile.TemporaryDirectory() as scratch:
            root = Path(scratch) / "repo"
            tip = build(root, commits, args.contracts, args.edits)
            versions_on_main(root, tip, lambda contract: False)  # imports and the YAML/pydantic warm-up
            started = time.perf_counter()
            assert versions_on_main(root, tip, lambda contract: False) == {}
            tip_only = time.perf_counter() - started
            started = time.perf_counter()
            found = versions_on_main(root, tip)
            whole = time.perf_counter() - started
            top = max(v.version for v in found.values())
            size = f"{commits} commits, {args.contracts} contracts, {args.edits} material edits each"
            print(f"{size}: tip only {tip_only * 1000:.0f} ms, whole count {whole * 1000:.0f} ms (v{top} at the tip)")


if __name__ == "__main__":
    main()
