"""`hz heinzel wake|chat|retry|resume|stop`: the text of `hz.ops.turns` (turns a person asks for)."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import TextIO

from hz.errors import EXIT_OK


def _print(out: TextIO, said: list[str]) -> int:
    out.write("".join(line + "\n" for line in said))
    return EXIT_OK


def wake_command(
    out: TextIO, name: str, *, after: bool, environ: Mapping[str, str], now: datetime | None = None
) -> int:
    from hz.ops import Context, turns
    from hz.ops.models_agents import AgentRequest

    return _print(out, turns.wake(Context.here(environ, now), AgentRequest(name=name))["said"])


def chat_command(
    out: TextIO, name: str, message: str, *, after: bool, environ: Mapping[str, str], now: datetime | None = None
) -> int:
    from hz.ops import Context, turns
    from hz.ops.models_actions import ChatRequest

    result = turns.chat(Context.here(environ, now), ChatRequest(name=name, message=message, after=after))
    return _print(out, result["said"])


def retry_command(out: TextIO, name: str, hint: str, *, environ: Mapping[str, str], now: datetime | None = None) -> int:
    from hz.ops import Context, turns
    from hz.ops.models_actions import RetryRequest

    return _print(out, turns.retry(Context.here(environ, now), RetryRequest(name=name, hint=hint))["said"])


def resume_command(out: TextIO, name: str, *, environ: Mapping[str, str], now: datetime | None = None) -> int:
    from hz.ops import Context, turns
    from hz.ops.models_agents import AgentRequest

    return _print(out, turns.resume(Context.here(environ, now), AgentRequest(name=name))["said"])


def stop_command(out: TextIO, name: str, *, environ: Mapping[str, str]) -> int:
    from hz.ops import Context, turns
    from hz.ops.models_agents import AgentRequest

    return _print(out, turns.stop(Context.here(environ), AgentRequest(name=name))["said"])
