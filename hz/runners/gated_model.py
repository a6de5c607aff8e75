"""The provider's model behind a gate: each request reserves its worst case first and settles after.

`GatedModel` wraps the model pydantic-ai calls; the think step (`hz.runners.model`) is its `Meter`, which
checks the token ceiling, reserves the grant, sizes the answer to it and settles the reported usage.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any, Protocol

from pydantic_ai.exceptions import ModelHTTPError
from pydantic_ai.messages import ModelMessage, ModelResponse
from pydantic_ai.models import Model, ModelRequestParameters, StreamedResponse
from pydantic_ai.models.wrapper import WrapperModel
from pydantic_ai.settings import ModelSettings
from pydantic_ai.tools import RunContext
from pydantic_ai.usage import RequestUsage

from hz.runners.base import Grant, RunnerFailed
from hz.runners.spend import Purse


@dataclass(frozen=True)
class Reservation:
    grant: Grant
    bound: int  # input tokens the request cannot exceed
    answer: int  # the output limit set on the request


class Meter(Protocol):
    """What the gate asks of the think step around each request."""

    purse: Purse

    def reserve(self, messages: list[ModelMessage], params: ModelRequestParameters) -> Reservation: ...

    def settle(self, reservation: Reservation, usage: RequestUsage) -> None: ...


class GatedModel(WrapperModel):
    """The provider's model with a reservation around each request: nothing leaves without a grant."""

    def __init__(self, wrapped: Model, think: Meter) -> None:
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

    def _settle_failed(self, reservation: Reservation, exc: BaseException) -> None:
        if isinstance(exc, ModelHTTPError):  # the endpoint refused the request: an error answer is not billed
            self.think.purse.settle(reservation.grant, 0.0)
        else:  # cut off in flight (timeout, cancel, lost connection): it may have been paid in full
            self.think.purse.settle(reservation.grant, reservation.grant.usd, "no-usage")


# What a client library raises on an answer that does not have the documented shape.
_MALFORMED = (AttributeError, KeyError, IndexError, TypeError)


def _with_answer_limit(settings: ModelSettings | None, answer: int) -> ModelSettings:
    return {**(settings or {}), "max_tokens": answer}
