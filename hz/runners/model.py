"""The model runner: one think step through pydantic-ai, under a hard USD cap and the turn's token ceiling.

Every model request pydantic-ai makes goes through `hz.runners.gated_model.GatedModel`, a wrapper around
the provider's model. Before the request leaves it reserves the request's worst case (`hz.runners.spend`):
its input bounded at one token per UTF-8 byte plus the provider's framing (`hz.runners.request_size`), at
the input price, and an answer of at most the configured output tokens at the output price. The grant it
gets (from the turn's cap here and the durable spend ledger when the turn hands one in) decides the
answer's `max_tokens`, which is set on the request, so the worst case fits the grant. After the reply it
settles the reservation to the reported usage, priced; an over-report or a missing report is flagged
(`hz.runners.spend.judge`).

The turn's token ceiling (`max_tokens`, all requests together) is checked before each request too,
against the reported tokens so far and an estimate of what the request sends.

Steering text is queued into the run right before each model request; each transcript entry is
handed to `request.record` before anything it asks for (a tool call) is carried out.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import warnings
from collections.abc import Callable, Sequence
from typing import Any

from pydantic_ai import Agent, ModelRetry, NativeOutput, PromptedOutput, Tool, ToolOutput
from pydantic_ai.exceptions import (
    AgentRunError,
    ModelAPIError,
    UnexpectedModelBehavior,
    UsageExtractionFailedWarning,
    UsageLimitExceeded,
    UsageLimitUnavailableWarning,
    UserError,
)
from pydantic_ai.messages import ModelMessage
from pydantic_ai.models import Model, ModelRequestParameters
from pydantic_ai.usage import RequestUsage, RunUsage, UsageLimits

from hz.errors import HzError
from hz.runners import conversation
from hz.runners.base import (
    BudgetExceeded,
    RunnerError,
    RunnerFailed,
    RunnerNotConfigured,
    RunnerTimeout,
    ThinkRequest,
    ThinkResult,
    ToolSpec,
    Usage,
)
from hz.runners.gated_model import GatedModel, Reservation
from hz.runners.outcome import Outcome, outcome_problems
from hz.runners.pricing import Price
from hz.runners.request_size import measure
from hz.runners.spend import (
    MIN_ANSWER_TOKENS,
    Purse,
    input_usd,
    judge,
    output_limit,
    output_usd,
)
from hz.runners.wire import WireOutcome

_Agent = Agent[None, WireOutcome]

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

    def think(self, request: ThinkRequest) -> ThinkResult:
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return asyncio.run(_Think(self, request).run())
        # called from inside an event loop (a daemon built on asyncio): run on a thread of its own
        with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
            return pool.submit(asyncio.run, _Think(self, request).run()).result()


class _Think:
    """One think step's state: the purse, the transcript recorded so far, the run's usage."""

    def __init__(self, runner: ModelRunner, request: ThinkRequest) -> None:
        self.runner = runner
        self.request = request
        self.limit = request.max_turns or DEFAULT_REQUEST_LIMIT  # model requests, retries included
        self.transcript: list[dict[str, Any]] = list(request.prior)
        self.recorded = 0  # messages of the run already in the transcript
        self.usage = RunUsage()
        self.purse = Purse(request.max_usd, request.spend, "the model endpoint")
        self.tokens_used = 0  # reported by the requests so far, for the turn's token ceiling

    async def run(self) -> ThinkResult:
        history = self._history()
        agent = self._agent()
        # the spending caps are the purse's, checked before each request; pydantic-ai only counts requests
        limits = UsageLimits(request_limit=self.limit)
        try:
            async with asyncio.timeout(self.request.timeout_s):
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", UsageLimitUnavailableWarning)
                    # usage genai-prices cannot read (negative counts) comes back empty: hz prices usage itself
                    # and counts an unreadable one as its grant (no-usage); the warning is only noise on stderr
                    warnings.simplefilter("ignore", UsageExtractionFailedWarning)
                    outcome = await self._iterate(agent, history, limits)
        except RunnerError as exc:
            exc.usage = self._usage()
            raise
        except TimeoutError as exc:
            raise RunnerTimeout(
                f"the model did not finish within {self.request.timeout_s:g} s", usage=self._usage()
            ) from exc
        except UsageLimitExceeded as exc:  # the contract's agent.max_turns, not a spending cap
            raise RunnerFailed(
                f"the model used all {self.limit} requests this turn allows without an outcome",
                hint="raise agent.max_turns in the contract, or make the task smaller",
                usage=self._usage(),
            ) from exc
        except UserError as exc:  # pydantic-ai refusing the settings (an output mode the model lacks)
            raise RunnerNotConfigured(
                f"the model endpoint refused hz's settings: {exc}",
                hint="check [runners.model] in config.toml (output, model)",
                usage=self._usage(),
            ) from exc
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
        # entering the agent enters its model, whose exit closes the connections this event loop opened
        async with (
            agent,
            agent.iter(
                None,
                message_history=history,
                instructions=self.request.instructions,
                usage_limits=limits,
                model_settings={"max_tokens": self.runner.max_output_tokens},
            ) as run,
        ):
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
        agent: _Agent = Agent(
            GatedModel(self.runner.model, self),
            output_type=_output_spec(self.runner.output),
            tools=[_pydantic_tool(spec) for spec in self.request.tools],
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

    def reserve(self, messages: Sequence[ModelMessage], params: ModelRequestParameters) -> Reservation:
        """Check the token ceiling, reserve the request's worst case and size its answer to the grant."""
        sent = measure(messages, self.request.instructions, params)
        room = self.request.max_tokens - self.tokens_used - sent.estimate
        if room < MIN_ANSWER_TOKENS:
            raise BudgetExceeded(
                f"the next model request would cross the turn's budget of {self.request.max_tokens} tokens "
                f"({self.tokens_used} used, about {sent.estimate} to send)",
                hint="raise the contract's cost.max_tokens, or shorten the context",
            )
        price = self.runner.price
        bound = sent.bound
        inputs = input_usd(price, bound)
        most = min(self.runner.max_output_tokens, room)
        grant = self.purse.reserve(inputs + output_usd(price, MIN_ANSWER_TOKENS), inputs + output_usd(price, most))
        return Reservation(grant, bound, output_limit(price, grant.usd, inputs, most))

    def settle(self, reservation: Reservation, usage: RequestUsage) -> None:
        """Settle a reply: its reported usage priced, flagged when it is beyond the limits or missing."""
        flag = judge(
            usage.input_tokens, usage.output_tokens, input_limit=reservation.bound, output_asked=reservation.answer
        )
        if flag == "no-usage":
            usd = reservation.grant.usd  # what it cost is unknown: the worst case hz allowed
        else:
            usd = self.runner.price.cost(usage.input_tokens, usage.output_tokens, usage.cache_read_tokens)
        self.purse.settle(reservation.grant, usd, flag)
        self.tokens_used += usage.input_tokens + usage.output_tokens
        if flag == "over-reported":
            self.purse.over_reported = (
                f"{usage.input_tokens} input tokens where at most {reservation.bound} were sent, "
                f"{usage.output_tokens} output tokens where at most {reservation.answer} were allowed"
            )

    def _usage(self) -> Usage:
        usage = self.usage
        return Usage(
            usage.input_tokens,
            usage.output_tokens,
            usage.cache_read_tokens,
            self.purse.settled_usd,
            usage.requests,
            tuple(self.purse.flags),
        )


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
