"""Reserving a paid request's worst case before it leaves, and settling it to what was reported after.

A runner asks its `Purse` for a grant before every paid request (a model request, a whole CLI run). The
purse holds the turn's own cap (`ThinkRequest.max_usd`) in this process and, when the turn handed one
in, the durable `SpendGate` that decides under every cap across processes. The request is then sized to
its grant: the model runner sets the answer's output limit so that its worst case costs no more than
the grant, the claude CLI gets the grant as its budget flag.

What bounds a request's input without a tokenizer: every tokenizer hz may meet (byte-level BPE, or
SentencePiece with byte fallback) spends at least one UTF-8 byte per token, so the bytes of the text
sent, plus the provider's own framing, bound its input tokens in any script. For English that is about
four times the real count and for CJK text about three times, but the excess is only held while the
request is in flight: the settlement gives it back.

A settlement is judged: an endpoint that reports more output than it was allowed, or more input than
the bound, is recorded as it reported and flagged `over-reported` (the purse makes no further request;
the ledger refuses that runner for the day); one that reports no usage at all is charged its full grant
and flagged `no-usage`, since what it cost cannot be known.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from hz.runners.base import BudgetExceeded, Grant, RunnerNotConfigured, SpendFlag, SpendGate
from hz.runners.pricing import Price

# The provider's framing of one request, beyond the text hz sends: role and turn markers, and the tool-use
# preamble a provider adds to its system prompt when tools are offered (a few hundred tokens at Anthropic).
REQUEST_OVERHEAD_TOKENS = 1024
PART_OVERHEAD_TOKENS = 8  # delimiters around each message part, tool definition and instruction block
MIN_ANSWER_TOKENS = 64  # a request that leaves less room than this for the answer is not worth sending
# A float allowance: a grant computed as least + n x price must still buy those n tokens.
_SLACK = 1e-9


def input_bound(utf8_bytes: int, parts: int) -> int:
    """At most how many input tokens a request of `utf8_bytes` bytes in `parts` parts is counted as."""
    return utf8_bytes + parts * PART_OVERHEAD_TOKENS + REQUEST_OVERHEAD_TOKENS


def input_usd(price: Price, tokens: int) -> float:
    """The worst case of `tokens` input tokens: at the dearer of the cached and uncached prices."""
    return tokens * max(price.input, price.cached) / 1_000_000


def output_usd(price: Price, tokens: int) -> float:
    return tokens * price.output / 1_000_000


def output_limit(price: Price, grant_usd: float, input_cost: float, most: int) -> int:
    """The largest answer (at most `most` tokens) whose worst case, beside the input's, fits the grant."""
    if price.output == 0:
        return most
    affordable = math.floor((grant_usd - input_cost) * 1_000_000 / price.output + _SLACK)
    return max(0, min(most, affordable))


def judge(input_tokens: int, output_tokens: int, *, input_limit: int, output_asked: int | None) -> SpendFlag | None:
    """How a request's reported usage is flagged: beyond what hz allowed, or not reported at all."""
    if input_tokens <= 0:
        return "no-usage"  # hz never sends an empty request, so no input reported means not reported
    if input_tokens > input_limit or (output_asked is not None and output_tokens > output_asked):
        return "over-reported"
    return None


def usd_text(usd: float) -> str:
    """An amount as the user reads it; below a cent it keeps its digits (0.0042, not 0.00)."""
    return f"{usd:.4f}" if usd >= 0.01 or usd == 0 else f"{usd:.6f}"


@dataclass
class Purse:
    """One think step's spending: the turn's cap held here, the durable gate when there is one."""

    cap_usd: float  # the tightest cap that applies to this turn (ThinkRequest.max_usd)
    gate: SpendGate | None
    label: str  # who asks, for messages ("the model runner", "claude-code")
    settled_usd: float = 0.0  # what this think step's settled requests cost
    flags: list[SpendFlag] = field(default_factory=list)
    over_reported: str | None = None  # what the endpoint over-reported, once it has

    def reserve(self, least: float, most: float) -> Grant:
        """A grant of at least `least` and at most `most` USD, or BudgetExceeded naming the cap."""
        if not (math.isfinite(least) and math.isfinite(most)):  # TOML reads `nan` and `inf` as prices
            raise RunnerNotConfigured(
                f"{self.label}'s next request has no finite worst case ({least} to {most} USD): "
                "its price is not a finite number",
                hint="check [runners.prices] in config.toml: input, output and cached in USD per million tokens",
            )
        if self.over_reported is not None:
            raise BudgetExceeded(
                f"{self.label} reported more usage than hz asked for ({self.over_reported}); "
                "hz makes no further request to it today",
                hint="check the endpoint's usage reporting, or use another runner until tomorrow",
            )
        left = max(0.0, self.cap_usd - self.settled_usd)
        if left + _SLACK < least:
            raise BudgetExceeded(
                f"the turn cap of {usd_text(self.cap_usd)} USD has {usd_text(left)} USD left; "
                f"{self.label}'s next request needs at least {usd_text(least)} USD",
                hint="raise [heinzel] max_usd or the contract's cost cap, or shorten what the turn reads",
            )
        most = max(least, min(most, left))
        if self.gate is None:
            return Grant("local", most)
        grant = self.gate.reserve(least, most)
        if grant is None:
            raise BudgetExceeded(self._refusal(least), hint=_REFUSAL_HINT)
        return grant

    def settle(self, grant: Grant, usd: float, flag: SpendFlag | None = None) -> None:
        if not math.isfinite(usd) or usd < 0:
            # unreadable as a cost: an infinite one would refuse every agent for the rest of the day, a
            # negative one would take other requests' spending off the records
            usd, flag = grant.usd, "no-usage"
        if flag is None and usd > grant.usd + _SLACK:
            # priced above the request's own worst case: some count (cached tokens beyond the prompt, say)
            # went past what hz sent or allowed, whichever field carried it
            flag = "over-reported"
            self.over_reported = f"usage priced at {usd_text(usd)} USD where the request allowed {usd_text(grant.usd)}"
        self.settled_usd += usd
        if flag is not None:
            self.flags.append(flag)
        if self.gate is not None:
            self.gate.settle(grant, usd, flag)

    def _refusal(self, least: float) -> str:
        # the ledger's gate keeps why it refused (which cap, its limit, what is gone); a bare gate may not
        why = getattr(self.gate, "refused", None)
        cap = getattr(why, "cap", None)
        if cap == "over-reported":
            return f"{self.label} over-reported its usage earlier today; hz makes no further request to it today"
        limit, spent = getattr(why, "limit_usd", None), getattr(why, "spent_usd", None)
        if isinstance(cap, str) and isinstance(limit, float | int) and isinstance(spent, float | int):
            left = max(0.0, limit - spent)
            return (
                f"the {cap} cap of {usd_text(limit)} USD has {usd_text(left)} USD left; "
                f"{self.label}'s next request needs at least {usd_text(least)} USD"
            )
        return f"the spend ledger has less than {usd_text(least)} USD left for {self.label}'s next request"


_REFUSAL_HINT = "raise the cap in config.toml ([heinzel] max_usd, max_usd_per_day) or the contract, or wait a day"
