"""The model runner: one think step through pydantic-ai, under a hard USD cap and the turn's token ceiling.

Every model request pydantic-ai makes goes through `_GatedModel`, a wrapper around the provider's model.
Before the request leaves it reserves the request's worst case (`hz.runners.spend`): its input bounded
at one token per UTF-8 byte plus the provider's framing, at the input price, and an answer of at most
the configured output tokens at the output price. The grant it gets (from the turn's cap here and the
durable spend ledger when the turn hands one in) decides the answer's `max_tokens`, which is set on the
request, so the worst case fits the grant. After the reply it settles the reservation to the reported
usage, priced; an over-report or a missing report is flagged (`hz.runners.spend.judge`).

The turn's token ceiling (`max_tokens`, all requests together) is checked before each request too,
against the reported tokens so far and an estimate of what the request sends.

Steering text is queued into the run right before each model request; each transcript entry is
handed to `request.record` before anything it asks for (a tool call) is carried out.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import warnings
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

from pydantic_ai import Agent, ModelRetry, NativeOutput, PromptedOutput, Tool, ToolOutput
from pydantic_ai.exceptions import (
    AgentRunError,
    ModelAPIError,
    ModelHTTPError,
    UnexpectedModelBehavior,
    UsageExtractionFailedWarning,
    UsageLimitExceeded,
    UsageLimitUnavailableWarning,
    UserError,
)
from pydantic_ai.messages import ModelMessage, ModelResponse
from pydantic_ai.models import Model, ModelRequestParameters, StreamedResponse
from pydantic_ai.models.wrapper import WrapperModel
from pydantic_ai.settings import ModelSettings
from pydantic_ai.tools import RunContext
from pydantic_ai.usage import RequestUsage, RunUsage, UsageLimits

from hz.errors import HzError
from hz.runners import conversation
from hz.runners.base import (
    BudgetExceeded,
    Grant,
    RunnerError,
    RunnerFailed,
    RunnerNotConfigured,
    RunnerTimeout,
    ThinkRequest,
    ThinkResult,
    ToolSpec,
    Usage,
)
from hz.runners.outcome import Outcome, outcome_problems
from hz.runners.pricing import Price
from hz.runners.spend import (
    MIN_ANSWER_TOKENS,
    Purse,
    input_bound,
    input_usd,
    judge,
    output_limit,
    output_usd,
)
from hz.runners.wire import WireOutcome

_Agent = Agent[None, WireOutcome]

CHARS_PER_TOKEN = 3  # the token ceiling's estimate: fewer than the usual ~4, so that it errs on the safe side
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
            _GatedModel(self.runner.model, self),
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

    def reserve(self, messages: Sequence[ModelMessage], params: ModelRequestParameters) -> _Reservation:
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
        return _Reservation(grant, bound, output_limit(price, grant.usd, inputs, most))

    def settle(self, reservation: _Reservation, usage: RequestUsage) -> None:
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


@dataclass(frozen=True)
class _Reservation:
    grant: Grant
    bound: int  # input tokens the request cannot exceed
    answer: int  # the output limit set on the request


class _GatedModel(WrapperModel):
    """The provider's model with a reservation around each request: nothing leaves without a grant."""

    def __init__(self, wrapped: Model, think: _Think) -> None:
        super().__init__(wrapped)
        self.think = think

    async def request(
        self, messages: list[ModelMessage], model_settings: ModelSettings | None, params: ModelRequestParameters
    ) -> ModelResponse:
        reservation = self.think.reserve(messages, params)
        settings = _with_answer_limit(model_settings, reservation.answer)
        try:
            response = await self.wrapped.request(messages, settings, params)
        except _MALFORMED as exc:  # the client library choked on the answer (an Anthropic answer without usage)
            self._settle_failed(reservation, exc)
            raise RunnerFailed(
                f"the model endpoint answered in a shape hz cannot read: {type(exc).__name__}: {exc}"
            ) from exc
        except BaseException as exc:
            self._settle_failed(reservation, exc)
            raise
        self.think.settle(reservation, response.usage)
        return response

    @asynccontextmanager
    async def request_stream(
        self,
        messages: list[ModelMessage],
        model_settings: ModelSettings | None,
        params: ModelRequestParameters,
        run_context: RunContext[Any] | None = None,
    ) -> AsyncIterator[StreamedResponse]:
        reservation = self.think.reserve(messages, params)
        settings = _with_answer_limit(model_settings, reservation.answer)
        try:
            async with self.wrapped.request_stream(messages, settings, params, run_context) as stream:
                yield stream
        except BaseException as exc:
            self._settle_failed(reservation, exc)
            raise
        self.think.settle(reservation, stream.usage)

    def _settle_failed(self, reservation: _Reservation, exc: BaseException) -> None:
        if isinstance(exc, ModelHTTPError):  # the endpoint refused the request: an error answer is not billed
            self.think.purse.settle(reservation.grant, 0.0)
        else:  # cut off in flight (timeout, cancel, lost connection): it may have been paid in full
            self.think.purse.settle(reservation.grant, reservation.grant.usd, "no-usage")


# What a client library raises on an answer that does not have the documented shape.
_MALFORMED = (AttributeError, KeyError, IndexError, TypeError)


def _with_answer_limit(settings: ModelSettings | None, answer: int) -> ModelSettings:
    return {**(settings or {}), "max_tokens": answer}


@dataclass(frozen=True)
class Sent:
    """What one request sends: its characters and UTF-8 bytes, in how many parts."""

    chars: int
    utf8_bytes: int
    parts: int

    @property
    def estimate(self) -> int:
        """A guess of its tokens for the token ceiling (a ceiling, not money: a guess will do)."""
        return self.chars // CHARS_PER_TOKEN + 1

    @property
    def bound(self) -> int:
        """At most how many tokens any endpoint may count it as (hz.runners.spend.input_bound)."""
        return input_bound(self.utf8_bytes, self.parts)


def measure(messages: Sequence[ModelMessage], instructions: str, params: ModelRequestParameters) -> Sent:
    """What a request sends: its text, the instructions and the tool and output schemas."""
    texts = [instructions]
    for tool in [*params.function_tools, *params.output_tools]:
        texts += [tool.name, tool.description or "", json.dumps(tool.parameters_json_schema, ensure_ascii=False)]
    if params.output_object is not None:  # native or prompted output sends the schema apart from the tools
        texts.append(json.dumps(params.output_object.json_schema, ensure_ascii=False))
    template = getattr(params, "prompted_output_template", None)
    if isinstance(template, str):
        texts.append(template)
    for message in messages:
        instructions_part = getattr(message, "instructions", None)
        if isinstance(instructions_part, str):
            texts.append(instructions_part)
        texts += [_part_text(part) for part in message.parts]
    return Sent(sum(map(len, texts)), sum(len(t.encode("utf-8", "surrogatepass")) for t in texts), len(texts))


def _part_text(part: Any) -> str:
    for attribute in ("content", "args"):
        value = getattr(part, attribute, None)
        if isinstance(value, str):
            return value
        if value is not None:
            return json.dumps(value, default=str, ensure_ascii=False)
    return ""


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
