"""Test agents: a contract adopted into a real store the way `hz.heinzel` records it (created, proposed,
approved), with its version file where the tick reads it."""

from __future__ import annotations

import os
from datetime import datetime
from pathlib import Path

from hz.contract.load import load_text
from hz.fsio import atomic_write
from hz.schedule import crons_from, next_slot
from hz.session.store import Store

CONTRACT = """---
name: {name}
kind: responsibility
description: A weekly note of what happened, for tests.
hz:
  schema: 1
  title: Weekly note
  owner: "@priya"
  scope: {scope}
  schedule: "{cron}"
  render_on_schedule: {render}
  outputs:
    note:
      target: "{target}"
      facets: [summary, risks]
---

# Weekly note

### Goal

The weekly note for the current ISO week is drafted every Friday.

### Maintains

- `note`: the week's note.

#### summary

Material: what shipped.

#### risks

Material: what may slip.

### Done when

- [ ] every shipped change of the week is listed
"""


def contract_text(
    name: str = "weekly-note",
    *,
    scope: str = "personal",
    cron: str = "0 15 * * FRI",
    render: str = "always",
    target: str = "file:notes/{{slot:%G-W%V}}.md",
) -> str:
    return CONTRACT.format(
        name=name, scope=scope, cron=cron, render=render, target=target.replace("{{", "{").replace("}}", "}")
    )


def adopt(text: str, *, agent_id: str, now: datetime, namespace: str = "me") -> str:
    """Record an approved v1 agent for `text`; returns its id."""
    result = load_text(text, namespace=namespace)
    assert result.contract is not None, result.diagnostics
    contract = result.contract
    hz = contract.frontmatter.hz
    due = next_slot(crons_from(hz.schedule, "UTC"), now)
    with Store.from_environ(os.environ) as store:
        directory = store.create(agent_id)
        atomic_write(directory / "contract" / "v1.prose.md", contract.text)
        with store.writer(agent_id, now=now) as w:
            w.append(
                "heinzel.created",
                {"agent_id": agent_id, "name": contract.name, "namespace": namespace, "origin": "file"},
                now=now,
            )
            w.append(
                "contract.proposed",
                {
                    "name": contract.name,
                    "contract_fingerprint": contract.contract_fingerprint,
                    "source_fingerprint": contract.source_fingerprint,
                },
                now=now,
            )
            w.append("contract.approved", {"version": 1, "next_due": due.isoformat() if due else None}, now=now)
    return agent_id


def home() -> Path:
    return Path(os.environ["HZ_HOME"])
