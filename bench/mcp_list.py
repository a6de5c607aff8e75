"""An MCP `heinzel_list` call over stdio against the CLI's `hz heinzel list --json`, for the same home.

Run: .venv/bin/python bench/mcp_list.py [--agents N] (default 500)
Goal (issue 21): the MCP call takes at most twice what the command takes. Both are timed as a client sees
them: the command as a fresh process (what a script or an assistant's shell pays), the MCP call on an open
`hz mcp` session (what an assistant pays after connecting once); the connection itself (a fresh `hz mcp`
process, its handshake and one call) is shown too. Prints medians and the ratios; never asserts on time.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import anyio
from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters
from sessions import make_spines
from timing import ms, repeat

from hz.session.index import Index


def make_home(folder: Path, agents: int) -> dict[str, str]:
    """A home of `agents` agents with a few weeks of turns each; the environment that points at it."""
    home = folder / "home"
    make_spines(home / "heinzel", agents, 40)
    with Index.open(home / "heinzel"):  # a new index: the first open builds it
        pass
    return {**os.environ, "HZ_HOME": str(home), "HZ_CONFIG_HOME": str(folder / "config")}


def cli_runs(environ: dict[str, str], cwd: Path, times: int) -> list[float]:
    argv = [sys.executable, "-m", "hz", "heinzel", "list", "--json"]
    return repeat(lambda: subprocess.run(argv, env=environ, cwd=cwd, check=True, capture_output=True), times)


def server(environ: dict[str, str], cwd: Path) -> StdioServerParameters:
    return StdioServerParameters(command=sys.executable, args=["-m", "hz", "mcp"], env=environ, cwd=cwd)


async def mcp_runs(environ: dict[str, str], cwd: Path, times: int) -> tuple[list[float], int]:
    """Calls on one open session (after one warm-up call), and how many agents the last one listed."""
    async with Client(server(environ, cwd)) as client:
        result = await client.call_tool("heinzel_list", {})
        runs = []
        for _ in range(times):
            began = time.perf_counter()
            result = await client.call_tool("heinzel_list", {})
            runs.append(time.perf_counter() - began)
    assert not result.is_error and isinstance(result.structured_content, dict)
    return runs, len(result.structured_content["agents"])


async def connect_runs(environ: dict[str, str], cwd: Path, times: int) -> list[float]:
    """A fresh `hz mcp` process each time: start, handshake, one call, close."""
    runs = []
    for _ in range(times):
        began = time.perf_counter()
        async with Client(server(environ, cwd)) as client:
            await client.call_tool("heinzel_list", {})
        runs.append(time.perf_counter() - began)
    return runs


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--agents", type=int, default=500)
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        environ = make_home(folder, args.agents)
        print("load average {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))
        cli = statistics.median(cli_runs(environ, folder, args.runs))
        calls, listed = anyio.run(mcp_runs, environ, folder, args.runs)
        call = statistics.median(calls)
        connect = statistics.median(anyio.run(connect_runs, environ, folder, max(3, args.runs // 3)))
    print(f"{listed} agents listed")
    print(f"hz heinzel list --json (a fresh process): median {ms(cli, 1)}")
    print(f"MCP heinzel_list on an open stdio session: median {ms(call, 1)}  ratio {call / cli:.2f}x (goal <= 2x)")
    print(f"MCP connect + heinzel_list (a fresh hz mcp): median {ms(connect, 1)}  ratio {connect / cli:.2f}x")


if __name__ == "__main__":
    main()
