"""How long compiling a repository and building its graph take.

Prints: compile_repository over 1,000 generated team contracts wired in chains (stages 1-3 and the
graph, one process), the share of that spent after loading (stage 3, names, graph), and build_graph
alone on a 20,000-node random graph.

Run: .venv/bin/python bench/graph.py
"""

from __future__ import annotations

import os
import random
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from hz.contract.layers import discover_layers
from hz.contract.project import compile_repository
from hz.graph import Edge, build_graph

TEMPLATE = """\
---
name: {name}
kind: responsibility
description: Keeps page {name} current.
hz:
  schema: 1
  title: Page {name}
  owner: "@bench"
  scope: team
  schedule: "0 9 * * MON"
  inputs:
    up:
      source: "{source}"
  outputs:
    page:
      target: "state:pages/{name}.md"
      facets: [summary]
---

### Goal

Page {name} is current.

### Requires

- `up`: what the page is made from.

### Maintains

- `page`: the page.

#### summary

Material: the facts.

### Done when

- [ ] it is current
"""


def write_repository(root: Path, count: int) -> None:
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    flows = root / "workflows"
    flows.mkdir()
    for i in range(count):
        source = "git:." if i % 10 == 0 else f"contract:team/c{i - 1:04d}#summary"
        (flows / f"c{i:04d}.prose.md").write_text(TEMPLATE.format(name=f"c{i:04d}", source=source))


def timed(work: object, rounds: int) -> list[float]:
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        work()  # type: ignore[operator]
        times.append(time.perf_counter() - start)
    return sorted(times)


def report(label: str, times: list[float]) -> None:
    p95 = times[min(len(times) - 1, round(0.95 * (len(times) - 1)))]
    print(f"{label:<60} median {statistics.median(times) * 1000:8.1f} ms   p95 {p95 * 1000:8.1f} ms")


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "repo"
        write_repository(root, 1000)
        env = {**os.environ, "HZ_CONFIG_HOME": str(Path(tmp) / "config")}
        team = [layer for layer in discover_layers(root, env, cwd=root) if layer.kind == "team"]
        compiled = compile_repository(root, env, cwd=root, layers=team)
        assert compiled.ok and max(c.height for c in compiled.contracts) == 9, compiled.diagnostics[:3]
        report("compile_repository, 1,000 contracts in chains of 10", timed(lambda: compile_repository(
            root, env, cwd=root, layers=team), 3))  # fmt: skip

    rng = random.Random(7)
    names = [f"t:n{i}" for i in range(20_000)]
    edges = [Edge(names[a], names[b], "f") for a, b in ((rng.randrange(20_000), rng.randrange(20_000))
                                                         for _ in range(40_000)) if a < b]  # fmt: skip
    report("build_graph, 20,000 nodes and ~20,000 acyclic edges", timed(lambda: build_graph(names, edges), 3))


if __name__ == "__main__":
    main()
