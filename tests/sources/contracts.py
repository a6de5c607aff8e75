"""Contract texts with inputs, for watcher tests."""

from __future__ import annotations

from typing import Any

TEMPLATE = """---
name: {name}
kind: responsibility
description: Reads sources, for tests.
hz:
  schema: 1
  title: Reader {name}
  owner: "@priya"
  scope: personal
{on}  inputs:
{inputs}
  outputs:
    note:
      target: "state:notes/{name}.md"
      facets: [summary]
---

# Reader

### Goal

The note is current.

### Requires

{requires}

### Maintains

- `note`: the note.

#### summary

Material: what moved.

### Done when

- [ ] the note says what moved
"""


def contract_text(name: str, inputs: dict[str, dict[str, Any]], on: list[str] | None = None) -> str:
    lines = []
    for input_name, keys in inputs.items():
        lines.append(f"    {input_name}:")
        for key, value in keys.items():
            rendered = value if not isinstance(value, str) else f'"{value}"'
            if isinstance(value, list):
                rendered = "[" + ", ".join(f'"{v}"' for v in value) + "]"
            if isinstance(value, bool):
                rendered = "true" if value else "false"
            lines.append(f"      {key}: {rendered}")
    requires = "\n".join(f"- `{n}`: what it says." for n in inputs)
    on_line = f"  on: [{', '.join(on)}]\n" if on else ""
    return TEMPLATE.format(name=name, inputs="\n".join(lines), requires=requires, on=on_line)


def load(text: str) -> Any:
    from hz.contract.load import load_text

    result = load_text(text, namespace="me")
    assert result.contract is not None, result.diagnostics
    return result.contract
