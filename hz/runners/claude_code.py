"""The `claude-code` runner: Claude Code's headless print mode, with the user's own login.

    claude -p --output-format json --json-schema <outcome schema> --system-prompt <instructions>
           --tools "" --strict-mcp-config --no-session-persistence
           --max-budget-usd <cap> --max-turns <n> [--model <alias or id>]     (prompt on stdin)

The think step needs no tools of Claude Code's own, so they are all switched off, and so are the
user's MCP servers. The USD cap goes to `--max-budget-usd`; the token ceiling bounds each answer
through `CLAUDE_CODE_MAX_OUTPUT_TOKENS`. The CLI prints one result object: its `structured_output`
(or its `result` text) is the outcome, `total_cost_usd` the spend, `usage` the tokens.

Of the secrets in the environment the CLI gets only those its own login reads (`LOGIN_ENV`: an API key,
an OAuth or proxy token, or Bedrock's AWS keys); hz's tokens for GitHub, Jira and the rest stay behind.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from hz.runners.base import BudgetExceeded, RunnerFailed, ThinkRequest, ThinkResult, Usage
from hz.runners.cli import CliRunner, Finished, outcome_from, parse_json_object, run_cli
from hz.runners.pricing import price_of
from hz.runners.prompt import cli_prompt
from hz.runners.settings import DEFAULT_CLASSES, RunnerSettings
from hz.runners.wire import outcome_schema_text

LABEL = "claude-code"
DEFAULT_MAX_TURNS = 10
MAX_OUTPUT_TOKENS = 32_000  # what one answer may hold at most, whatever the turn's ceiling
LOGIN_ENV = frozenset({
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_AUTH_TOKEN",
    "CLAUDE_CODE_OAUTH_TOKEN",
    "AWS_SECRET_ACCESS_KEY",
    "AWS_SESSION_TOKEN",
    "AWS_BEARER_TOKEN_BEDROCK",
})  # fmt: skip


class ClaudeCodeRunner(CliRunner):
    name = LABEL

    @classmethod
    def from_settings(
        cls, settings: RunnerSettings, environ: Mapping[str, str] = os.environ, hint: str | None = None
    ) -> ClaudeCodeRunner:
        cli = settings.claude_code
        model = cli.choice.resolve(hint, DEFAULT_CLASSES["claude-code"])
        return cls(cli.command, model, price_of(model or "sonnet", settings.prices), environ)

    def argv(self, request: ThinkRequest) -> list[str]:
        argv = [self.command, "-p", "--output-format", "json", "--json-schema", outcome_schema_text()]
        argv += ["--system-prompt", request.instructions, "--tools", "", "--strict-mcp-config"]
        argv += ["--no-session-persistence", "--max-budget-usd", f"{request.max_usd:.6f}"]
        argv += ["--max-turns", str(request.max_turns or DEFAULT_MAX_TURNS)]
        return argv + (["--model", self.model] if self.model else [])

    def think(self, request: ThinkRequest) -> ThinkResult:
        environ = {**self.environ, "CLAUDE_CODE_MAX_OUTPUT_TOKENS": str(min(request.max_tokens, MAX_OUTPUT_TOKENS))}
        finished = run_cli(
            self.argv(request),
            stdin=cli_prompt(request),
            request=request,
            environ=environ,
            label=LABEL,
            login=LOGIN_ENV,
        )
        data = _result_object(finished)
        entry = {"runner": LABEL, "result": data}
        if request.record is not None:
            request.record(entry)
        usage = usage_of(data)
        _raise_for_subtype(data, request, usage)
        answer = data.get("structured_output") or data.get("result")
        outcome = outcome_from(answer, request, LABEL, usage)
        return ThinkResult(outcome=outcome, usage=usage, transcript=(entry,))


def _result_object(finished: Finished) -> dict[str, Any]:
    if finished.returncode != 0 and not finished.stdout.strip():
        raise RunnerFailed(f"{LABEL} exited with status {finished.returncode}: {finished.stderr_tail()}")
    try:
        data = parse_json_object(finished.stdout, LABEL)
    except RunnerFailed:
        if finished.returncode != 0:
            raise RunnerFailed(f"{LABEL} exited with status {finished.returncode}: {finished.stderr_tail()}") from None
        raise
    if data.get("type") != "result":
        raise RunnerFailed(f"{LABEL} printed JSON that is not a result object (type {data.get('type')!r})")
    return data


def usage_of(data: Mapping[str, Any]) -> Usage:
    raw = data.get("usage")
    usage: Mapping[str, Any] = raw if isinstance(raw, Mapping) else {}
    cached = _count(usage, "cache_read_input_tokens")
    # Anthropic counts cache reads and writes apart from input_tokens; hz counts them in it
    input_tokens = _count(usage, "input_tokens") + _count(usage, "cache_creation_input_tokens") + cached
    cost = data.get("total_cost_usd")
    usd = float(cost) if isinstance(cost, int | float) and not isinstance(cost, bool) else 0.0
    turns = data.get("num_turns")
    return Usage(input_tokens, _count(usage, "output_tokens"), cached, usd, turns if isinstance(turns, int) else 0)


def _count(usage: Mapping[str, Any], key: str) -> int:
    value = usage.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _raise_for_subtype(data: Mapping[str, Any], request: ThinkRequest, usage: Usage) -> None:
    subtype = data.get("subtype")
    if subtype == "success" and not data.get("is_error"):
        return
    if subtype == "error_max_budget_usd":
        raise BudgetExceeded(f"{LABEL} stopped at the turn's budget of {request.max_usd:g} USD", usage=usage)
    if subtype == "error_max_turns":
        limit = request.max_turns or DEFAULT_MAX_TURNS
        raise RunnerFailed(f"{LABEL} reached its limit of {limit} turns before it answered", usage=usage)
    errors = data.get("errors")
    listed = "; ".join(str(e) for e in errors if e) if isinstance(errors, list) else ""
    detail = " ".join(str(data.get("result") or listed or "no detail given").split())[:300]
    # an API error arrives as a "success" that is an error; other subtypes name what stopped the run
    why = "" if subtype == "success" else f" ({subtype})"
    raise RunnerFailed(f"{LABEL} failed{why}: {detail}", usage=usage)
