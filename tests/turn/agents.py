"""Test agents: a contract adopted into a real store the way `hz.heinzel` records it (created, proposed,
approved), with its version file where the tick reads it."""

from __future__ import annotations

import os
from datetime import datetime
from pathlib import Path

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


def adopt(text: str, *, now: datetime, namespace: str = "me") -> str:
    """An approved v1 agent for `text`, made the way `hz heinzel new` + `hz approve` make one; its id."""
    from hz.heinzel.lifecycle import Origin, create

    with Store.from_environ(os.environ) as store:
        return create(
            store,
            text,
            label="<test>",
            namespace=namespace,
            handle="@priya",
            origin=Origin("file"),
            now=now,
            approve=True,
        )


def home() -> Path:
    return Path(os.environ["HZ_HOME"])
