"""The field types every spine payload is built from, and `Payload`, the base that closes each model.

Every string anywhere in a payload is refused when it looks like an e-mail address (`Payload`); the models
of the kinds are in `hz.session.agent_payloads`, `turn_payloads`, `item_payloads` and `spine_payloads`,
and `hz.session.vocabulary` maps each kind to its model.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, AwareDatetime, BaseModel, ConfigDict, Field, StringConstraints, model_validator

from hz.addresses import looks_like_address

Hash = Annotated[str, StringConstraints(pattern=r"^sha256:[0-9a-f]{64}$")]
AgentId = Annotated[str, StringConstraints(pattern=r"^hz-[0-9A-HJKMNP-TV-Z]{26}$")]
Slug = Annotated[str, StringConstraints(pattern=r"^[a-z][a-z0-9]*(-[a-z0-9]+)*$", max_length=64)]
Handle = Annotated[str, StringConstraints(pattern=r"^@[A-Za-z0-9][A-Za-z0-9-]{0,38}(?:/[A-Za-z0-9._-]+)?$")]
Key = Annotated[str, StringConstraints(min_length=1, max_length=512)]
Ident = Annotated[str, StringConstraints(min_length=1, max_length=200)]
Sentence = Annotated[str, StringConstraints(min_length=1, max_length=1000)]
Short = Annotated[str, StringConstraints(max_length=2000)]
Money = Annotated[float, Field(ge=0)]
Count = Annotated[int, Field(ge=0)]
Step = Literal["gather", "think", "outcome", "act", "finish"]
Cause = Literal["schedule", "source-changed", "discovered", "asked", "approval", "created", "retry", "stale"]
Namespace = Literal["me", "project", "team"]


def _utc(moment: datetime) -> datetime:
    return moment.astimezone(UTC)


UtcTime = Annotated[AwareDatetime, AfterValidator(_utc)]


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in (*_strings(k), *_strings(v))]
    if isinstance(value, list | tuple):
        return [s for item in value for s in _strings(item)]
    return []


class Payload(BaseModel):
    """Base of every payload: frozen, closed, and free of anything shaped like an e-mail address."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    @model_validator(mode="before")
    @classmethod
    def _no_addresses(cls, value: Any) -> Any:
        for text in _strings(value):
            if looks_like_address(text):
                raise ValueError("a spine event may not hold an e-mail address")
        return value
