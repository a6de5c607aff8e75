"""Contract texts for the lifecycle tests, written for these tests."""

from __future__ import annotations

from pathlib import Path

import pytest

CONTRACT = """---
name: weekly-report
kind: responsibility
description: A short weekly report of merged work for the team's Friday update.
hz:
  schema: 1
  title: Weekly report
  owner: "@priya"
  scope: personal
  schedule: "0 15 * * FRI"
  inputs:
    merged:
      source: "git:log"
      window: 7d
  outputs:
    report:
      target: "state:me/weekly/{slot:%G-W%V}.md"
      facets: [summary]
---

# Weekly report

### Goal

Every Friday afternoon the week's merged work is summarised for the team update.

### Requires

- `merged`: what was merged this week.

### Maintains

- `report`: a short Markdown note.

#### summary

Material: one line per merged change that matters to the team.

### Done when

- [ ] every merge of the week is listed once
"""


@pytest.fixture
def contract_file(tmp_path: Path) -> Path:
    path = tmp_path / "weekly-report.prose.md"
    path.write_text(CONTRACT, encoding="utf-8")
    return path
