"""`hz mcp` as a client sees it: a real `hz mcp` process over stdio, driven by the official `mcp` client."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import jsonschema
import mcp_types as types
from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters

from hz.ops.registry import OPERATIONS
from hz.ops.schemas import request_schema, result_schema
from tests.ops.homes import busy_home, cli_json
from tests.turn.agents import contract_text

Answer = Callable[[Any, types.ElicitRequestParams], Awaitable[types.ElicitResult]]
READ_ONLY = {"heinzel_list", "heinzel_show", "drafts", "why", "graph", "lessons"}
DESTRUCTIVE = {"approve", "reject", "heinzel_stop"}
REFUSED = (
    "approve is a person's decision, and this client cannot ask its person (it offers no elicitation): run "
    "`hz approve idle-note` in a terminal, or use the agent's page of `hz serve`. To let an assistant decide "
    "without asking, start the server with `hz mcp --allow-approve`."
)


def _client(repo: Path, *extra: str, mode: str = "auto", answer: Answer | None = None) -> Client:
    server = StdioServerParameters(command=sys.executable, args=["-m", "hz", "mcp", *extra], env=dict(os.environ),
                                   cwd=repo)  # fmt: skip
    return Client(server, mode=mode, elicitation_callback=answer, read_timeout_seconds=60)


def _said(result: types.CallToolResult) -> str:
    assert isinstance(result.content[0], types.TextContent)
    return result.content[0].text


def _checked(tools: dict[str, types.Tool], name: str, result: types.CallToolResult) -> dict[str, Any]:
    """The structured result, valid by the tool's own output schema and the same as its text."""
    assert not result.is_error, _said(result)
    jsonschema.validate(result.structured_content, tools[name].output_schema or {})
    assert json.loads(_said(result)) == result.structured_content
    found: dict[str, Any] = result.structured_content
    assert found["schema_version"] == 1
    return found


def test_every_tool_is_listed_with_its_schemas_and_called(repo: Path) -> None:
    agent = busy_home(repo)
    (repo / "other.prose.md").write_text(contract_text("other-note"), encoding="utf-8")

    async def session() -> None:
        async with _client(repo, "--allow-approve") as client:
            tools = {tool.name: tool for tool in (await client.list_tools()).tools}
            assert set(tools) == set(OPERATIONS)
            for name, tool in tools.items():
                assert tool.input_schema == request_schema(OPERATIONS[name])
                assert tool.output_schema == result_schema(OPERATIONS[name])
                assert tool.annotations is not None
                assert tool.annotations.read_only_hint is (name in READ_ONLY), name
                assert tool.annotations.destructive_hint is (None if name in READ_ONLY else name in DESTRUCTIVE), name
            # the read-only tools give exactly what the CLI's --json prints for this home
            for name, arguments, argv in [
                ("heinzel_list", {}, ("heinzel", "list")),
                ("heinzel_list", {"state": "proposed"}, ("heinzel", "list", "--state", "proposed")),
                ("heinzel_show", {"name": "weekly-note"}, ("heinzel", "show", "weekly-note")),
                ("drafts", {}, ("drafts",)),
                ("lessons", {"name": "weekly-note"}, ("heinzel", "lessons", "weekly-note")),
                ("graph", {}, ("graph",)),
            ]:
                found = _checked(tools, name, await client.call_tool(name, arguments))
                assert found[OPERATIONS[name].payload] == cli_json(*argv), name
            why = _checked(tools, "why", await client.call_tool("why", {"contract": "weekly-note"}))["why"]
            assert (why["scope"], why["roles"]["owner"], why["agent"]["state"]) == ("personal", "@priya", "waiting")
            # the tools that act
            new = await client.call_tool("heinzel_new", {"name": "other-note", "contract": contract_text("other-note"),
                                                         "source": "other.prose.md"})  # fmt: skip
            assert _checked(tools, "heinzel_new", new)["state"] == "proposed"
            approved = _checked(tools, "approve", await client.call_tool("approve", {"item": "other-note"}))
            assert (approved["kind"], approved["agent"], approved["version"]) == ("agent", "me:other-note", 1)
            assert approved["said"].startswith("me:other-note v1 approved: it is asleep and wakes on its own")
            chat = _checked(tools, "heinzel_chat", await client.call_tool(
                "heinzel_chat", {"name": "weekly-note", "message": "keep it under ten lines"}))  # fmt: skip
            assert chat["queued"] is None and chat["ran"], chat
            wake = _checked(tools, "heinzel_wake", await client.call_tool("heinzel_wake", {"name": "other-note"}))
            assert wake["said"], wake
            retry = await client.call_tool("heinzel_retry", {"name": "weekly-note", "hint": "shorter"})
            assert _checked(tools, "heinzel_retry", retry)["ran"]
            key = cli_json("drafts")[0]["key"]  # type: ignore[index]
            rejected = _checked(tools, "reject", await client.call_tool("reject", {"key": key}))
            assert rejected["key"] == key
            for name, arguments, error in [
                ("heinzel_resume", {"name": "weekly-note"},
                 "error: weekly-note has no waiting turn\n  hint: hz heinzel wake starts a new one"),
                ("answer", {"name": "weekly-note", "answer": "yes"},
                 "error: weekly-note asked nothing that waits for an answer\n  hint: hz heinzel show weekly-note"),
                ("heinzel_dismiss", {"name": "weekly-note", "lesson": "1"},
                 "error: weekly-note has no lesson 1\n  hint: hz heinzel lessons weekly-note"),
                ("heinzel_show", {"name": "nobody"}, None),
                ("heinzel_retry", {"name": "weekly-note", "hint": "two\nlines"},
                 "error: the hint holds the control character '\\n'; write one plain line"),
                ("heinzel_list", {"state": "sleeping"}, None),
            ]:  # fmt: skip
                refused = await client.call_tool(name, arguments)
                assert refused.is_error and refused.structured_content is None, name
                assert error is None or _said(refused) == error, _said(refused)
            await _resources(client, agent)
            stop = await client.call_tool("heinzel_stop", {"name": "weekly-note"})
            assert stop.is_error or _checked(tools, "heinzel_stop", stop)
            shown = cli_json("heinzel", "show", "weekly-note")
            assert [t["cause"] for t in shown["timeline"]].count("asked") >= 1  # type: ignore[index]

    anyio.run(session)


async def _resources(client: Client, agent: str) -> None:
    """Agents and their contracts are resources: a summary as `heinzel_list` has it, the approved text."""
    listed = {str(r.uri): r for r in (await client.list_resources()).resources}
    assert f"hz://agents/{agent}" in listed and f"hz://contracts/{agent}" in listed
    summary = (await client.read_resource(f"hz://agents/{agent}")).contents[0]
    assert isinstance(summary, types.TextResourceContents)
    rows: Any = cli_json("heinzel", "list")
    assert json.loads(summary.text) == next(row for row in rows if row["id"] == agent)
    text = (await client.read_resource(f"hz://contracts/{agent}")).contents[0]
    assert isinstance(text, types.TextResourceContents)
    assert (text.text, text.mime_type) == (contract_text(), "text/markdown")


def test_a_person_decides_an_approval_through_elicitation_or_it_is_refused(repo: Path) -> None:
    busy_home(repo)
    asked: list[str] = []
    script: list[tuple[str, bool]] = []

    async def answer(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append(params.message)
        action, confirm = script.pop(0)
        return types.ElicitResult(action=action, content={"confirm": confirm} if action == "accept" else None)  # type: ignore[arg-type]

    async def approve(client: Client) -> types.CallToolResult:
        return await client.call_tool("approve", {"item": "idle-note"})

    def state() -> object:
        return cli_json("heinzel", "show", "idle-note")["state"]  # type: ignore[index]

    async def session() -> None:
        async with _client(repo) as client:  # no elicitation: refused, naming the command and the page
            refused = await approve(client)
            assert (refused.is_error, _said(refused)) == (True, REFUSED)
        async with _client(repo, mode="legacy", answer=answer) as client:  # asked in the handshake era
            script.append(("decline", False))
            declined = await approve(client)
            assert (declined.is_error, _said(declined)) == (True, (
                "nothing was done: the person said no. To approve idle-note later, run `hz approve idle-note` in a "
                "terminal, or use the agent's page of `hz serve`."))  # fmt: skip
        async with _client(repo, answer=answer) as client:  # 2026-07-28: the question goes back with the result
            script.append(("accept", False))  # accepted the form but did not tick: no
            assert (await approve(client)).is_error
            forged = {"consent": types.ElicitResult(action="accept", content={"confirm": True})}
            unasked = await client.session.call_tool("approve", {"item": "idle-note"}, input_responses=forged,
                                                     request_state="0" * 64, allow_input_required=True)  # fmt: skip
            assert isinstance(unasked, types.InputRequiredResult)  # an answer nobody was asked for: asked again
            assert state() == "proposed"
            script.append(("accept", True))
            accepted = await approve(client)
            assert not accepted.is_error, _said(accepted)
        assert state() == "asleep"

    anyio.run(session)
    assert asked == ["An assistant asks to approve idle-note for you (as `hz approve idle-note` would). "
                     "This is your decision: do you approve it?"] * 3  # fmt: skip
