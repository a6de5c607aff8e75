"""The `claude-code` runner: Claude Code's headless print mode, with the user's own login.

    claude -p --output-format json --json-schema <outcome schema> --system-prompt <instructions>
           --tools "" --strict-mcp-config --no-session-persistence
           --max-budget-usd <grant> --max-turns <n> [--model <alias or id>]     (prompt on stdin)

The think step needs no tools of Claude Code's own, so they are all switched off, and so are the
user's MCP servers. The whole run is reserved before it starts and `--max-budget-usd` is the grant; each
answer is bounded through `CLAUDE_CODE_MAX_OUTPUT_TOKENS` by the token ceiling and what the grant buys.
Claude Code checks its budget between its own turns, so a run may report more than the grant: it is
recorded as reported and flagged `over-reported`; a run that reports no cost counts its whole grant.
The CLI prints one result object: its `structured_output` (or its `result` text) is the outcome,
`total_cost_usd` the spend, `usage` the tokens.

Of the secrets in the environment the CLI gets only those its own login reads (`LOGIN_ENV`: an API key,
an OAuth or proxy token, or Bedrock's AWS keys); hz's tokens for GitHub, Jira and the rest stay behind.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from hz.runners.base import BudgetExceeded, Grant, RunnerFailed, ThinkRequest, ThinkResult, Usage
from hz.runners.cli import CliRunner, Finished, outcome_from, parse_json_object, run_cli, settle, settle_failed
from hz.runners.pricing import price_of
from hz.runners.prompt import cli_prompt
from hz.runners.settings import DEFAULT_CLASSES, RunnerSettings
from hz.runners.spend import output_limit
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

    def argv(self, request: ThinkRequest, budget_usd: float) -> list[str]:
        argv = [self.command, "-p", "--output-format", "json", "--json-schema", outcome_schema_text()]
        argv += ["--system-prompt", request.instructions, "--tools", "", "--strict-mcp-config"]
        argv += ["--no-session-persistence", "--max-budget-usd", f"{budget_usd:.6f}"]
        argv += ["--max-turns", str(request.max_turns or DEFAULT_MAX_TURNS)]
        return argv + (["--model", self.model] if self.model else [])

    def think(self, request: ThinkRequest) -> ThinkResult:
        prompt = cli_prompt(request)
        purse, grant = self.reserve(request, prompt, LABEL)
        environ = {**self.environ, "CLAUDE_CODE_MAX_OUTPUT_TOKENS": str(self._answer_limit(request, prompt, grant))}
        try:
            finished = run_cli(
                self.argv(request, grant.usd),
                stdin=prompt,
                request=request,
                environ=environ,
                label=LABEL,
                login=LOGIN_ENV,
            )
            data = _result_object(finished)
        except BaseException as exc:
            settle_failed(purse, grant, exc)
            raise
        entry = {"runner": LABEL, "result": data}
        if request.record is not None:
            request.record(entry)
        usage = settle(purse, grant, usage_of(data), _reported_cost(data))
        _raise_for_subtype(data, grant, request, usage)
        answer = data.get("structured_output") or data.get("result")
        outcome = outcome_from(answer, request, LABEL, usage)
        return ThinkResult(outcome=outcome, usage=usage, transcript=(entry,))

    def _answer_limit(self, request: ThinkRequest, prompt: str, grant: Grant) -> int:
        """One answer's output tokens: within the ceiling, and what the grant buys beside the prompt."""
        sent = self.prompt_usd(request, prompt)
        return max(1, output_limit(self.price, grant.usd, sent, min(request.max_tokens, MAX_OUTPUT_TOKENS)))


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


def _reported_cost(data: Mapping[str, Any]) -> float | None:
    """The cost the CLI reported; None when there is none that reads as a cost (settling counts the grant)."""
    cost = data.get("total_cost_usd")
    if not isinstance(cost, int | float) or isinstance(cost, bool) or not cost >= 0:
        return None
    try:
        return float(cost)
    except OverflowError:  # a JSON integer past a float's range
        return None


def usage_of(data: Mapping[str, Any]) -> Usage:
    raw = data.get("usage")
    usage: Mapping[str, Any] = raw if isinstance(raw, Mapping) else {}
    cached = _count(usage, "cache_read_input_tokens")
    # Anthropic counts cache reads and writes apart from input_tokens; hz counts them in it
    input_tokens = _count(usage, "input_tokens") + _count(usage, "cache_creation_input_tokens") + cached
    usd = _reported_cost(data) or 0.0
    turns = data.get("num_turns")
    return Usage(input_tokens, _count(usage, "output_tokens"), cached, usd, turns if isinstance(turns, int) else 0)


def _count(usage: Mapping[str, Any], key: str) -> int:
    value = usage.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _raise_for_subtype(data: Mapping[str, Any], grant: Grant, request: ThinkRequest, usage: Usage) -> None:
    subtype = data.get("subtype")
    if subtype == "success" and not data.get("is_error"):
        return
    if subtype == "error_max_budget_usd":
        raise BudgetExceeded(f"{LABEL} stopped at its budget of {grant.usd:g} USD", usage=usage)
    if subtype == "error_max_turns":
        limit = request.max_turns or DEFAULT_MAX_TURNS
        raise RunnerFailed(f"{LABEL} reached its limit of {limit} turns before it answered", usage=usage)
    errors = data.get("errors")
    listed = "; ".join(str(e) for e in errors if e) if isinstance(errors, list) else ""
    detail = " ".join(str(data.get("result") or listed or "no detail given").split())[:300]
    # an API error arrives as a "success" that is an error; other subtypes name what stopped the run
    why = "" if subtype == "success" else f" ({subtype})"
    raise RunnerFailed(f"{LABEL} failed{why}: {detail}", usage=usage)
