"""The operations every head calls: the CLI's `--json`, `hz mcp`, the REST API and the pages.

One function per operation (`hz.ops.agents.list_agents`, `hz.ops.drafts.list_drafts`, …), each taking a
`Context` (the environment, the repository, the clock) and a typed request, and returning a typed
result. The heads only parse, call and print: a feature is written here once.

Requests are frozen dataclasses and results are TypedDicts (`hz.ops.models`), both read by pydantic for
validation and JSON Schemas (`hz.ops.schemas`) but costing no pydantic import where a head does not
ask for a schema: `hz heinzel list --json` stays a fast command. Every result is an object carrying
`schema_version` (SCHEMA_VERSION) beside its payload; the CLI's `--json` prints the payload exactly as
it always did, REST and MCP the whole object. `hz.ops.registry` names every operation with its request,
result and hints for the heads.
"""

from __future__ import annotations

from hz.ops.context import Context

# Bumped when a result changes in a way an old reader would misread (a field removed, renamed or
# retyped); added fields do not bump it. docs/decisions.md, "The user's view", says why.
SCHEMA_VERSION = 1

__all__ = ["SCHEMA_VERSION", "Context"]
