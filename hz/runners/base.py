"""The think step's interface: what a turn asks a runner for and what it gets back.

The turn engine builds a `ThinkRequest` (instructions, context messages, this wake's inputs, the
outputs and facets to fill, the kinds of outcome allowed, the caps) and a runner answers with a
`ThinkResult`: a structured `Outcome`, what it cost and a transcript for the turn body. Runners never
write to a session themselves; the optional `record` callback lets the engine journal each transcript
entry the moment it exists, so a crash mid-think leaves `prior` to resume from.

This module stays free of pydantic and pydantic-ai so that the idle tick can import it cheaply.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol

from hz.errors import HzError

if TYPE_CHECKING:
    from hz.runners.outcome import Outcome

# The outcome kinds a turn may allow; `Outcome.kind` is always one of these.
OUTCOME_KINDS: frozenset[str] = frozenset({"draft", "lessons", "amendment", "question", "nothing", "summary"})

# What a tool call that a crash interrupted returns to the model instead of being run again.
INTERRUPTED = "interrupted"


@dataclass(frozen=True)
class ToolSpec:
    """A tool the model may call. `replay_safe` tools are rerun after a crash; others are not."""

    name: str
    description: str
    replay_safe: bool
    call: Callable[[dict[str, Any]], str]
    # JSON Schema of the arguments object; None means the tool takes free-form arguments.
    parameters: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class ContextMessage:
    """One message of the context the engine built (summary, events since, approved text, inputs)."""

    role: Literal["user", "assistant"]
    text: str


@dataclass(frozen=True)
class Grant:
    """Money reserved for one model request before it leaves: `usd` is what the request may cost at most."""

    id: str
    usd: float


# Why a settled request is flagged to the user (and, for `over-reported`, ends that runner's day).
SpendFlag = Literal["over-reported", "no-usage"]


class SpendGate(Protocol):
    """Reserve before each model request, settle after: the caps hold across processes and crashes.

    `reserve` decides in one durable transaction whether at least `least_usd` is left under every cap
    (turn, contract, day) and grants up to `most_usd`; None means not even `least_usd` is left, and the
    request must not be made. The runner sets the request's output limit so that its worst case fits the
    grant. `settle` replaces the grant by what the endpoint reported; a grant never settled (a crash)
    stays counted at its full amount.
    """

    def reserve(self, least_usd: float, most_usd: float) -> Grant | None: ...

    def settle(self, grant: Grant, usd: float, flag: SpendFlag | None = None) -> None: ...


@dataclass(frozen=True)
class ThinkRequest:
    agent_id: str
    turn_id: str
    # framing, pinned contract body, skills, active lessons (built by the engine); the model runner sends
    # them as pydantic-ai `instructions` (a FunctionModel sees `AgentInfo.instructions`), the CLIs as
    # the system prompt (claude-code) or the head of the prompt (codex)
    instructions: str
    messages: tuple[ContextMessage, ...]  # summary, events since, last approved text, <input> data blocks
    inputs: Mapping[str, Mapping[str, Any]]  # input name -> facet -> canonical value
    outputs: Mapping[str, tuple[str, ...]]  # output name -> facet names to fill
    want: frozenset[str]  # outcome kinds allowed this turn, a subset of OUTCOME_KINDS
    max_tokens: int  # the turn's token ceiling (all requests together)
    max_usd: float  # the tightest USD cap that applies to this turn
    timeout_s: float
    tools: tuple[ToolSpec, ...] = ()
    steering: Callable[[], list[str]] | None = None  # drained before each next model request
    prior: tuple[dict[str, Any], ...] = ()  # recorded transcript of an interrupted think step (resume)
    record: Callable[[dict[str, Any]], None] | None = None  # called with each transcript entry as it happens
    model: str | None = None  # the contract's `agent.model` hint: a class (fast|balanced|deep) or a provider id
    max_turns: int | None = None  # the contract's `agent.max_turns`: model requests / CLI turns at most
    cwd: Path | None = None  # where a CLI runner runs; None means a fresh empty directory
    # sources a playbook hint turned up that the contract does not read: {source, hint, why} each
    discovered: tuple[Mapping[str, str], ...] = ()
    # the day's durable spend ledger, one reservation per model request; None (tests, free runners): no gate
    spend: SpendGate | None = None
    # called while a long request runs (a CLI run); it raises (the turn's Stopped) when the turn is to stop
    check_cancel: Callable[[], None] | None = None


@dataclass(frozen=True)
class Usage:
    input_tokens: int = 0
    output_tokens: int = 0
    cached_tokens: int = 0
    usd: float = 0.0
    requests: int = 0
    # how the endpoint's reports were flagged (SpendFlag each, in order), for the user to see
    flags: tuple[SpendFlag, ...] = ()

    @property
    def total_tokens(self) -> int:
        return self.input_tokens + self.output_tokens


@dataclass(frozen=True)
class ThinkResult:
    outcome: Outcome
    usage: Usage
    transcript: tuple[dict[str, Any], ...] = field(default=())  # for the turn body, never the spine


class Runner(Protocol):
    name: str

    def worst_case_usd(self, max_tokens: int) -> float:
        """What a turn with this token ceiling can cost at most; the caps compare it before the first call."""
        ...

    def think(self, request: ThinkRequest) -> ThinkResult: ...


class RunnerError(HzError):
    """The think step could not produce an outcome.

    `usage` is what was spent before the failure, so the engine can still count it against the caps.
    """

    def __init__(self, message: str, *, hint: str | None = None, usage: Usage | None = None) -> None:
        super().__init__(message, hint=hint)
        self.usage = usage or Usage()


class BudgetExceeded(RunnerError):
    """The next model request could cross the turn's token or USD cap, so it was not made."""


class RunnerTimeout(RunnerError):
    """The think step ran past its timeout and was stopped."""


class RunnerFailed(RunnerError):
    """The model, the endpoint or the CLI failed, or answered with something that is not an outcome."""


class RunnerNotConfigured(RunnerError):
    """The runner named by the contract or the user's config cannot be set up (unknown name, no key).

    Its message always starts with "runner not configured", so a tick's line for that agent says so."""

    PREFIX = "runner not configured: "

    def __init__(self, message: str, *, hint: str | None = None, usage: Usage | None = None) -> None:
        super().__init__(message if message.startswith(self.PREFIX) else self.PREFIX + message, hint=hint, usage=usage)
