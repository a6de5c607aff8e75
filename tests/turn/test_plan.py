"""The plan a turn pins: the contract body the model reads holds no author comments."""

from __future__ import annotations

from hz.contract.load import load_text
from hz.turn.plan import plan_from_contract

CONTRACT = """---
name: notes
kind: responsibility
description: Keeps the team notes current.
hz:
  schema: 1
  title: Team notes
  owner: "@ana"
  scope: personal
  schedule: "0 9 * * MON"
  outputs:
    notes:
      target: "state:notes.md"
      facets: [summary]
---
### Goal

The team notes are current every Monday.

<!-- author note: ask Bo before changing the tone -->

### Maintains

- `notes`: the notes document.

#### summary

One paragraph.

### Done when

- [ ] The summary names this week's changes.
"""


def test_the_pinned_body_drops_author_comments() -> None:
    result = load_text(CONTRACT, path="notes.prose.md", namespace="me")
    assert result.contract is not None, result.diagnostics
    plan = plan_from_contract(
        result.contract, agent_id="hz-01J0000000000000000000000X", name="notes", version=1, root=None
    )
    assert "ask Bo" not in plan.body
    assert "<!--" not in plan.body
    assert plan.body.startswith("### Goal\n\nThe team notes are current every Monday.\n")
    assert "ask Bo" in result.contract.body  # the author's text itself keeps the note
