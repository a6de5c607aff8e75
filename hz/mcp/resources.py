"""Agents and their contracts as MCP resources: `hz://agents/<id>` (JSON) and `hz://contracts/<id>` (Markdown)."""

from __future__ import annotations

import json

import mcp_types as types
from mcp.shared.exceptions import MCPError

from hz.ops import Context

AGENTS = "hz://agents/"
CONTRACTS = "hz://contracts/"


def listed(ctx: Context) -> types.ListResourcesResult:
    from hz.ops.agents import list_agents
    from hz.ops.models_agents import ListRequest

    found: list[types.Resource] = []
    for agent in list_agents(ctx, ListRequest())["agents"]:
        named = f"{agent['namespace']}:{agent['name']}"
        found.append(types.Resource(uri=AGENTS + agent["id"], name=named, title=f"{named} (summary)",
                                    mime_type="application/json"))  # fmt: skip
        if agent["contract"]["version"]:
            found.append(types.Resource(uri=CONTRACTS + agent["id"], name=f"{named}.prose.md",
                                        title=f"{named} contract v{agent['contract']['version']}",
                                        mime_type="text/markdown"))  # fmt: skip
    return types.ListResourcesResult(resources=found)


def read(ctx: Context, uri: str) -> types.ReadResourceResult:
    from hz.errors import HzError

    try:
        if uri.startswith(AGENTS):
            text, mime = _summary(ctx, uri.removeprefix(AGENTS)), "application/json"
        elif uri.startswith(CONTRACTS):
            text, mime = _contract(ctx, uri.removeprefix(CONTRACTS)), "text/markdown"
        else:
            raise MCPError(types.INVALID_PARAMS, f"no resource {uri[:80]!r}: hz has hz://agents/… and hz://contracts/…")
    except HzError as exc:
        raise MCPError(types.INVALID_PARAMS, exc.render()) from None
    return types.ReadResourceResult(contents=[types.TextResourceContents(uri=uri, mime_type=mime, text=text)])


def _agent_id(value: str) -> str:
    from hz.errors import HzError

    if not value.startswith("hz-") or not value[3:].isalnum():
        raise HzError(f"{value[:40]!r} is not an agent id", hint="list the resources for the agents' ids")
    return value


def _summary(ctx: Context, value: str) -> str:
    from hz.ops.agents import summary
    from hz.session.store import Store

    with Store.from_environ(ctx.environ) as store:
        rows = store.index.agents(today=ctx.moment().strftime("%Y-%m-%d"))
    found = [row for row in rows if row["id"] == _agent_id(value)]
    if not found:
        from hz.errors import HzError

        raise HzError(f"no agent {value}", hint="list the resources for the agents' ids")
    return json.dumps(summary(found[0]), indent=2, ensure_ascii=False)


def _contract(ctx: Context, value: str) -> str:
    from hz.errors import HzError
    from hz.heinzel.versions import read_version
    from hz.session.store import Store

    with Store.from_environ(ctx.environ) as store:
        row = store.index.agent(_agent_id(value))
        if row is None or not row["contract_version"]:
            raise HzError(f"no approved contract of {value}", hint="list the resources for the agents' ids")
        return read_version(store.agent_dir(str(row["id"])), int(row["contract_version"]))
