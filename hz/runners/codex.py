"""The `codex` runner: Codex's non-interactive `exec` mode with JSONL events, with the user's own login.

    codex exec --json --skip-git-repo-check --sandbox read-only --ephemeral
               --output-schema <file> [--model <id>] -                          (prompt on stdin)

Codex has no system prompt flag, so the instructions lead the prompt. Its events arrive one JSON
object per line: `item.completed` items of type `agent_message` carry the answer (the last one is
the outcome), `turn.completed` carries `usage` (input, cached input and output tokens), and
`turn.failed` or `error` say why it failed. Codex reports no cost, so hz prices the tokens itself.
Codex has no budget flag either: its whole run is reserved at its worst case before it starts and
settled to its priced usage after (a run that costs more than its grant is flagged `over-reported`, one
without usage counts its whole grant); the timeout ends it.
Of the secrets in the environment Codex gets only the API keys its own login reads (`LOGIN_ENV`).
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from hz.runners.base import RunnerFailed, ThinkRequest, ThinkResult, Usage
from hz.runners.cli import CliRunner, Finished, outcome_from, parse_json_object, run_cli, settle, settle_failed
from hz.runners.pricing import price_of
from hz.runners.prompt import cli_prompt
from hz.runners.settings import RunnerSettings
from hz.runners.wire import outcome_schema_text

LABEL = "codex"
LOGIN_ENV = frozenset({"OPENAI_API_KEY", "CODEX_API_KEY"})
UNNAMED_MODEL_PRICE = "gpt-6.1-sol"  # Codex's own default model is unknown to hz: price it as the dearest class


class CodexRunner(CliRunner):
    name = LABEL

    @classmethod
    def from_settings(
        cls, settings: RunnerSettings, environ: Mapping[str, str] = os.environ, hint: str | None = None
    ) -> CodexRunner:
        cli = settings.codex
        # a class hint maps only to models the user named; otherwise Codex keeps its own default
        model = cli.choice.resolve(hint, {})
        return cls(cli.command, model, price_of(model or UNNAMED_MODEL_PRICE, settings.prices), environ)

    def argv(self, schema_file: Path) -> list[str]:
        argv = [self.command, "exec", "--json", "--skip-git-repo-check", "--sandbox", "read-only", "--ephemeral"]
        argv += ["--output-schema", str(schema_file)]
        return [*argv, *(["--model", self.model] if self.model else []), "-"]

    def think(self, request: ThinkRequest) -> ThinkResult:
        prompt = f"{request.instructions}\n\n{cli_prompt(request)}"
        purse, grant = self.reserve(request, prompt, LABEL)
        try:
            with tempfile.TemporaryDirectory(prefix="hz-codex-") as scratch:
                schema_file = Path(scratch) / "outcome.schema.json"
                schema_file.write_text(outcome_schema_text(), encoding="utf-8")
                finished = run_cli(
                    self.argv(schema_file),
                    stdin=prompt,
                    request=request,
                    environ=self.environ,
                    label=LABEL,
                    login=LOGIN_ENV,
                )
            events = _events(finished)
        except BaseException as exc:
            settle_failed(purse, grant, exc)
            raise
        for event in events:
            if request.record is not None:
                request.record({"runner": LABEL, "event": event})
        reported = self._usage(events)
        usage = settle(purse, grant, reported, reported.usd if reported.requests else None)
        answer = _answer(events, finished, usage)
        outcome = outcome_from(answer, request, LABEL, usage)
        transcript = tuple({"runner": LABEL, "event": event} for event in events)
        return ThinkResult(outcome=outcome, usage=usage, transcript=transcript)

    def _usage(self, events: list[dict[str, Any]]) -> Usage:
        totals = {"input_tokens": 0, "cached_input_tokens": 0, "output_tokens": 0}
        turns = 0
        for event in events:
            if event.get("type") in ("turn.completed", "turn.failed") and isinstance(event.get("usage"), Mapping):
                turns += 1
                for key in totals:
                    value = event["usage"].get(key)
                    totals[key] += value if isinstance(value, int) and not isinstance(value, bool) else 0
        inputs, cached, outputs = totals["input_tokens"], totals["cached_input_tokens"], totals["output_tokens"]
        return Usage(inputs, outputs, cached, self.price.cost(inputs, outputs, cached), turns)


def _events(finished: Finished) -> list[dict[str, Any]]:
    events = []
    for line in finished.stdout.splitlines():
        if not line.strip():
            continue
        try:
            events.append(parse_json_object(line, LABEL))
        except RunnerFailed:
            if finished.returncode != 0:
                raise RunnerFailed(
                    f"{LABEL} exited with status {finished.returncode}: {finished.stderr_tail()}"
                ) from None
            raise
    if finished.returncode != 0 and not events:
        raise RunnerFailed(f"{LABEL} exited with status {finished.returncode}: {finished.stderr_tail()}")
    return events


def _answer(events: list[dict[str, Any]], finished: Finished, usage: Usage) -> str:
    for event in events:
        if event.get("type") == "turn.failed":
            error = event.get("error")
            raise RunnerFailed(f"{LABEL} failed: {_message(error if isinstance(error, Mapping) else {})}", usage=usage)
    messages = [
        item.get("text")
        for event in events
        if event.get("type") == "item.completed" and isinstance(item := event.get("item"), Mapping)
        if item.get("type") == "agent_message" and isinstance(item.get("text"), str)
    ]
    if messages:
        return str(messages[-1])
    errors = [_message(e) for e in events if e.get("type") == "error"]
    if errors:
        raise RunnerFailed(f"{LABEL} failed: {errors[-1]}", usage=usage)
    status = f" (exit status {finished.returncode})" if finished.returncode else ""
    raise RunnerFailed(f"{LABEL} finished without an answer{status}", usage=usage)


def _message(event: Mapping[str, Any]) -> str:
    text = event.get("message")
    return " ".join(str(text).split())[:300] if text else "no detail given"
