"""Wakes run in graph-height order: an upstream contract before the one that reads it."""

from __future__ import annotations

import os
import subprocess
from datetime import UTC, datetime
from pathlib import Path

from hz.heinzel.adopt import adopt
from hz.session.store import Store
from hz.tick.daemon import tick

NOW = datetime(2026, 10, 26, 9, 0, tzinfo=UTC)
BODY = """
# {title}

### Goal

The {title} is current.
{requires}
### Maintains

- `out`: the text.

#### summary

Material: what matters.

### Done when

- [ ] it is current
"""


def contract(name: str, inputs: str = "", requires: str = "") -> str:
    head = f"""---
name: {name}
kind: responsibility
description: A contract for the ordering test.
hz:
  schema: 1
  title: {name}
  owner: "@priya"
  scope: team
{inputs}  outputs:
    out:
      target: "state:out/{name}.md"
      facets: [summary]
---
"""
    return head + BODY.format(title=name, requires=requires)


def test_an_upstream_contract_wakes_before_its_reader(repo: Path) -> None:
    (repo / "workflows").mkdir()
    (repo / "workflows/z-source.prose.md").write_text(contract("z-source"))
    inputs = '  inputs:\n    up:\n      source: "contract:team/z-source#summary"\n      required: false\n'
    reader = contract("a-reader", inputs, "\n### Requires\n\n- `up`: the source's summary.\n")
    (repo / "workflows/a-reader.prose.md").write_text(reader)
    subprocess.run(["git", "add", "."], cwd=repo, check=True)
    subprocess.run(["git", "commit", "-qm", "contracts"], cwd=repo, check=True)
    config = Path(os.environ["HZ_CONFIG_HOME"])
    config.mkdir(parents=True, exist_ok=True)
    # priya owns both: without [state] in hz.toml a team contract runs on its owner's machine alone
    (config / "config.toml").write_text('[user]\nhandle = "@priya"\n[heinzel]\nmax_wakes_per_tick = 1\n')
    with Store.from_environ(os.environ) as store:
        adopted = adopt(store, repo, now=NOW, handle="@priya", environ=os.environ)
    assert sorted(a.action for a in adopted) == ["created", "created"]
    first = tick(root=repo, now=NOW)
    assert ([e["agent"] for e in first.woken], first.deferred) == (["z-source"], ["a-reader"])
    second = tick(root=repo, now=NOW)
    assert [e["agent"] for e in second.woken] == ["a-reader"]


def test_an_adopted_agent_runs_only_in_its_own_repository(repo: Path, tmp_path: Path) -> None:
    (repo / "workflows").mkdir()
    (repo / "workflows/z-source.prose.md").write_text(contract("z-source"))
    with Store.from_environ(os.environ) as store:
        adopt(store, repo, now=NOW, handle="@priya", environ=os.environ)
    elsewhere = tmp_path / "elsewhere"
    subprocess.run(["git", "init", "-q", str(elsewhere)], check=True)
    assert tick(root=elsewhere, now=NOW).woken == []
    assert tick(root=None, now=NOW).woken == []
    assert [e["agent"] for e in tick(root=repo, now=NOW).woken] == ["z-source"]
