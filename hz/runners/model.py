"""The model runner: one think step through pydantic-ai, under a hard token and USD cap.

The cap holds in three layers. The engine compares the turn's worst case (its token ceiling at the
dearest token price) with the caps before the first call. Before each request this runner estimates
what the request sends, refuses to send it when that plus a minimal answer would cross the turn's
budget, and otherwise bounds the answer (`max_tokens`) by what is left. pydantic-ai's own
`UsageLimits` stay on as the backstop. The budget is the smaller of the token ceiling and what the
USD cap buys at the dearest price, so recorded spend stays under both.

Steering text is queued into the run right before each model request; each transcript entry is
handed to `request.record` before anything it asks for (a tool call) is carried out.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import dataclasses
import json
import warnings
from collections.abc import Callable, Sequence
from typing import Any

from pydantic_ai import Agent, ModelRetry, NativeOutput, PromptedOutput, Tool, ToolOutput
from pydantic_ai.capabilities import Hooks
from pydantic_ai.exceptions import (
    AgentRunError,
    ModelAPIError,
    UnexpectedModelBehavior,
    UsageLimitExceeded,
    UsageLimitUnavailableWarning,
)
from pydantic_ai.messages import ModelMessage
from pydantic_ai.models import Model, ModelRequestContext
from pydantic_ai.tools import RunContext
from pydantic_ai.usage import RunUsage, UsageLimits

from hz.errors import HzError
from hz.runners import conversation
from hz.runners.base import (
    BudgetExceeded,
    RunnerError,
    RunnerFailed,
    RunnerTimeout,
    ThinkRequest,
    ThinkResult,
    ToolSpec,
    Usage,
)
from hz.runners.outcome import Outcome, outcome_problems
from hz.runners.pricing import Price
from hz.runners.wire import WireOutcome

_Agent = Agent[None, WireOutcome]

CHARS_PER_TOKEN = 3  # fewer than the usual ~4, so that the estimate errs on the side of the cap
MIN_ANSWER_TOKENS = 64  # a request that leaves less room than this for the answer is not worth sending
DEFAULT_REQUEST_LIMIT = 50


class ModelRunner:
    name = "model"

    def __init__(self, model: Model, price: Price, *, max_output_tokens: int = 4096, output: str = "tool") -> None:
        self.model = model
        self.price = price
        self.max_output_tokens = max_output_tokens
        self.output = output  # tool | native | prompted

    def worst_case_usd(self, max_tokens: int) -> float:
        return self.price.worst_case(max_tokens)

    def budget_tokens(self, request: ThinkRequest) -> int:
        return min(request.max_tokens, self.price.affordable_tokens(request.max_usd))

    def think(self, request: ThinkRequest) -> ThinkResult:
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return asyncio.run(_Think(self, request).run())
        # called from inside an event loop (a daemon built on asyncio): run on a thread of its own
        with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
            return pool.submit(asyncio.run, _Think(self, request).run()).result()


class _Think:
    """One think step's state: the budget, the transcript recorded so far, the run's usage."""

    def __init__(self, runner: ModelRunner, request: ThinkRequest) -> None:
        self.runner = runner
        self.request = request
        self.budget = runner.budget_tokens(request)
        self.limit = request.max_turns or DEFAULT_REQUEST_LIMIT  # model requests, retries included
        self.transcript: list[dict[str, Any]] = list(request.prior)
        self.recorded = 0  # messages of the run already in the transcript
        self.usage = RunUsage()

    async def run(self) -> ThinkResult:
        history = self._history()
        agent = self._agent()
        limits = UsageLimits(request_limit=self.limit, total_tokens_limit=self.budget)
        try:
            async with asyncio.timeout(self.request.timeout_s):
                with warnings.catch_warnings():
                    # a server that reports no usage counts as zero tokens; the pre-request estimate still holds
                    warnings.simplefilter("ignore", UsageLimitUnavailableWarning)
                    outcome = await self._iterate(agent, history, limits)
        except RunnerError as exc:
            exc.usage = self._usage()
            raise
        except TimeoutError as exc:
            raise RunnerTimeout(
                f"the model did not finish within {self.request.timeout_s:g} s", usage=self._usage()
            ) from exc
        except UsageLimitExceeded as exc:
            if "request_limit" in str(exc):  # the contract's agent.max_turns, not a spending cap
                raise RunnerFailed(
                    f"the model used all {self.limit} requests this turn allows without an outcome",
                    hint="raise agent.max_turns in the contract, or make the task smaller",
                    usage=self._usage(),
                ) from exc
            raise BudgetExceeded(f"the model run hit its limit: {exc}", usage=self._usage()) from exc
        except (ModelAPIError, UnexpectedModelBehavior, AgentRunError, OSError) as exc:
            raise RunnerFailed(f"the model failed: {exc}", usage=self._usage()) from exc
        return ThinkResult(outcome=outcome, usage=self._usage(), transcript=tuple(self.transcript))

    def _history(self) -> list[ModelMessage]:
        # another runner's record (the user switched runners mid-turn) holds no call of ours: start over
        if conversation.is_model_transcript(self.request.prior):
            prior = conversation.from_json(self.request.prior)
            history = conversation.resumed_history(prior, self.request.tools)
            # what prior holds is on record already; a dropped trailing answer is replaced by the next one
            self.recorded = min(len(conversation.merge_requests(prior)), len(history))
            return history
        return conversation.fresh_history(self.request)

    async def _iterate(self, agent: _Agent, history: list[ModelMessage], limits: UsageLimits) -> Outcome:
        self._record(history)  # everything the first request sends is on record before it is sent
        async with agent.iter(
            None,
            message_history=history,
            instructions=self.request.instructions,
            usage_limits=limits,
            model_settings={"max_tokens": self.runner.max_output_tokens},
        ) as run:
            try:
                async for node in run:
                    self._record(run.all_messages())
                    if Agent.is_model_request_node(node):
                        self._steer(run.enqueue)
            finally:
                self.usage = run.usage  # spent even when the run fails
            self._record(run.all_messages())
            assert run.result is not None  # the loop only ends at the End node
            return run.result.output.to_outcome()

    def _record(self, messages: Sequence[ModelMessage]) -> None:
        # the run's history is empty until its first node has loaded the one we passed in
        fresh = list(messages[self.recorded :])
        self.recorded = max(self.recorded, len(messages))
        for entry in conversation.to_json(fresh):
            self.transcript.append(entry)
            if self.request.record is not None:
                self.request.record(entry)

    def _steer(self, enqueue: Callable[..., object]) -> None:
        if self.request.steering is None:
            return
        for text in self.request.steering():
            enqueue(text)

    def _agent(self) -> _Agent:
        hooks: Hooks[None] = Hooks()
        hooks.on.before_model_request(self._guard)
        agent: _Agent = Agent(
            self.runner.model,
            output_type=_output_spec(self.runner.output),
            tools=[_pydantic_tool(spec) for spec in self.request.tools],
            capabilities=[hooks],
            retries={"output": 2, "tools": 1},
        )
        agent.output_validator(self._check)
        return agent

    def _check(self, wire: WireOutcome) -> WireOutcome:
        try:
            outcome = wire.to_outcome()
        except ValueError as exc:
            raise ModelRetry(_first_error(exc)) from None
        problems = outcome_problems(outcome, self.request.want, self.request.outputs)
        if problems:
            raise ModelRetry("; ".join(problems))
        return wire

    async def _guard(self, ctx: RunContext[None], context: ModelRequestContext) -> ModelRequestContext:
        used = ctx.usage.total_tokens
        sending = estimate_tokens(context.messages, self.request.instructions, context)
        room = self.budget - used - sending
        if room < MIN_ANSWER_TOKENS:
            raise BudgetExceeded(
                f"the next model request would cross the turn's budget of {self.budget} tokens "
                f"({used} used, about {sending} to send)",
                hint="raise the contract's cost.max_tokens or the USD caps, or shorten the context",
            )
        answer = min(self.runner.max_output_tokens, room)
        return dataclasses.replace(context, model_settings={**(context.model_settings or {}), "max_tokens": answer})

    def _usage(self) -> Usage:
        usage = self.usage
        cost = self.runner.price.cost(usage.input_tokens, usage.output_tokens, usage.cache_read_tokens)
        return Usage(usage.input_tokens, usage.output_tokens, usage.cache_read_tokens, cost, usage.requests)


def estimate_tokens(messages: Sequence[ModelMessage], instructions: str, context: ModelRequestContext) -> int:
    """An over-estimate of what a request sends: its text, the instructions and the tool schemas."""
    params = context.model_request_parameters
    tools = [*params.function_tools, *params.output_tools]
    size = len(instructions) + sum(len(json.dumps(t.parameters_json_schema)) + len(t.description or "") for t in tools)
    if params.output_object is not None:  # native structured output sends the schema apart from the tools
        size += len(json.dumps(params.output_object.json_schema))
    for message in messages:
        for part in message.parts:
            size += _part_size(part)
    return size // CHARS_PER_TOKEN + 1


def _part_size(part: Any) -> int:
    for attribute in ("content", "args"):
        value = getattr(part, attribute, None)
        if isinstance(value, str):
            return len(value)
        if value is not None:
            return len(json.dumps(value, default=str))
    return 0


def _pydantic_tool(spec: ToolSpec) -> Tool[None]:
    def call(**arguments: Any) -> str:
        try:
            return conversation.run_tool(spec, arguments)
        except HzError as exc:  # a foreseeable failure is the model's to handle, not the turn's
            return f"error: {exc.message}"

    schema = dict(spec.parameters) if spec.parameters is not None else {"type": "object", "additionalProperties": True}
    return Tool.from_schema(call, name=spec.name, description=spec.description, json_schema=schema)


def _first_error(exc: ValueError) -> str:
    """The message of a validation error without pydantic's decoration."""
    errors = getattr(exc, "errors", None)
    if not callable(errors):
        return str(exc)
    messages = []
    for error in errors():
        message = str(error.get("msg", "")).removeprefix("Value error, ")
        where = ".".join(str(part) for part in error.get("loc", ()))
        messages.append(f"{where}: {message}" if where else message)
    return "; ".join(messages)


def _output_spec(mode: str) -> Any:
    if mode == "native":
        return NativeOutput(WireOutcome)
    if mode == "prompted":
        return PromptedOutput(WireOutcome)
    return ToolOutput(WireOutcome)
