"""The frontmatter of a contract, schema 1, as pydantic models: the one source of truth.

The JSON Schema in `docs/schemas/contract-frontmatter-1.json` is generated from these classes
(`hz.contract.schema`). Errors that belong to a specific HZC code are raised as `PydanticCustomError`
whose type is the lower-case code (`hzc011`); `hz.contract.validate` turns every error into a
diagnostic. A cross-field error names the offending sub-key in its context under `at`, so the
diagnostic can point at that exact YAML node.
"""

from __future__ import annotations

import re
from datetime import timedelta
from functools import cache
from typing import Annotated, Any, Literal, Self

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PlainSerializer,
    StringConstraints,
    WithJsonSchema,
    model_validator,
)
from pydantic_core import PydanticCustomError

SCHEMA_VERSION = 1  # the newest `hz.schema` this hz reads
# Entries of any list or mapping (inputs, outputs, facets, schedule, publishes): no real contract has
# more than a dozen; a bound keeps a generated or pasted file from making every command slow.
MAX_ENTRIES = 100

SLUG_PATTERN = r"^[a-z](?:[a-z0-9]|-(?!-))*[a-z0-9]$|^[a-z]$"
IDENT_PATTERN = r"^[a-z][a-z0-9_]*$"
HANDLE_PATTERN = r"^@[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})(?:/[A-Za-z0-9._-]+)?$"
DURATION_PATTERN = r"^[1-9][0-9]*(s|m|h|d|w)$"
URI_PATTERN = r"^[a-z][a-z0-9+.-]*:.+$"
QUALIFIED_PATTERN = r"^[a-z][a-z0-9-]*:[a-z][a-z0-9-]*$"
CROCKFORD_PATTERN = r"^[0-9A-HJKMNP-TV-Z]{26}$"
SEMVER_PATTERN = r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9A-Za-z.-]+)?$"
WAKE_PATTERN = r"^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)?$"
ACTION_PATTERN = r"^[a-z][a-z0-9-]*(\.[a-z][a-z0-9-]*){1,3}$"
TOOL_PATTERN = r"^(hz|mcp|cli):[A-Za-z0-9][A-Za-z0-9._-]*$"
POLICY_PATTERN = r"^[a-z][a-z0-9-]*$"

# How each pattern is described to a person when a value does not match it.
PATTERN_NAMES: dict[str, str] = {
    SLUG_PATTERN: "a slug: lowercase letters, digits and single dashes, starting with a letter",
    IDENT_PATTERN: "an identifier: lowercase letters, digits and underscores, starting with a letter",
    HANDLE_PATTERN: "a GitHub handle such as @someone or @org/team",
    DURATION_PATTERN: "a duration: a whole number and one of s, m, h, d, w (such as 15m or 7d)",
    URI_PATTERN: "a URI such as git:log or state:reports/weekly.md",
    QUALIFIED_PATTERN: "a qualified name <namespace>:<name>, such as team:weekly-digest",
    CROCKFORD_PATTERN: "a 26-character Crockford base32 id (mint one with `hz workflow new`)",
    SEMVER_PATTERN: "a semantic version such as 1.2.0",
    WAKE_PATTERN: "an input name or <input>.<facet>",
    ACTION_PATTERN: "an operation name <module>.<noun>.<verb>",
    TOOL_PATTERN: "a tool hz:<module>.<noun>.<verb>, mcp:<server> or cli:<executable>",
    POLICY_PATTERN: "a policy id: lowercase letters, digits and dashes",
}

_DURATION_UNITS = {"w": 604800, "d": 86400, "h": 3600, "m": 60, "s": 1}


class _Strict(BaseModel):
    """Every model of the format: unknown keys are errors, values are immutable once parsed."""

    # python-re: the slug pattern needs a look-ahead, which pydantic's default engine lacks.
    model_config = ConfigDict(extra="forbid", frozen=True, regex_engine="python-re", populate_by_name=True)


# The longest duration any key takes (window, recheck, backoff, freshness, timeout): ten years. A
# window reaches that far back from a slot; anything longer is a typo, and a few more digits would
# overflow the calendar (a slot minus 99999999999w is before year 1).
MAX_DURATION = timedelta(days=3650)
_MAX_SECONDS = int(MAX_DURATION.total_seconds())
_MAX_DIGITS = len(str(_MAX_SECONDS))  # more digits are too long whatever the unit; int() never sees 5000 of them


def parse_duration(value: Any) -> Any:
    if isinstance(value, timedelta):
        return value
    if isinstance(value, str) and (match := re.fullmatch(DURATION_PATTERN, value)):
        number = value[:-1]
        if len(number) <= _MAX_DIGITS:
            # Compared as whole seconds: 142857143w is already too big for a timedelta.
            seconds = int(number) * _DURATION_UNITS[match.group(1)]
            if seconds <= _MAX_SECONDS:
                return timedelta(seconds=seconds)
        raise PydanticCustomError(
            "duration_too_long", "'{value}' is longer than 3650d, the longest duration hz takes", {"value": value}
        )
    raise PydanticCustomError("duration", "'{value}' is not " + PATTERN_NAMES[DURATION_PATTERN], {"value": value})


def format_duration(value: timedelta) -> str:
    """The canonical spelling: the largest unit that divides the duration (`168h` prints as `1w`)."""
    seconds = int(value.total_seconds())
    for unit, size in _DURATION_UNITS.items():
        if seconds % size == 0:
            return f"{seconds // size}{unit}"
    raise AssertionError("unreachable: s divides every whole number")


def _unique(values: tuple[Any, ...]) -> tuple[Any, ...]:
    seen: set[Any] = set()
    for value in values:
        if value in seen:
            raise PydanticCustomError("unique", "lists '{value}' more than once", {"value": value})
        seen.add(value)
    return values


def _as_tuple(value: Any) -> Any:
    """A scalar where a list is allowed stands for a list of one."""
    return (value,) if isinstance(value, str | dict) else value


def _pattern(pattern: str, max_length: int | None = None) -> StringConstraints:
    return StringConstraints(pattern=pattern, max_length=max_length)


Slug = Annotated[str, _pattern(SLUG_PATTERN, 64)]
Ident = Annotated[str, _pattern(IDENT_PATTERN, 64)]
Handle = Annotated[str, _pattern(HANDLE_PATTERN)]
Uri = Annotated[str, _pattern(URI_PATTERN)]
Qualified = Annotated[str, _pattern(QUALIFIED_PATTERN)]
CrockfordId = Annotated[str, _pattern(CROCKFORD_PATTERN)]
SemVer = Annotated[str, _pattern(SEMVER_PATTERN)]
Wake = Annotated[str, _pattern(WAKE_PATTERN)]
Action = Annotated[str, _pattern(ACTION_PATTERN)]
Tool = Annotated[str, _pattern(TOOL_PATTERN)]
PolicyId = Annotated[str, _pattern(POLICY_PATTERN)]
Duration = Annotated[
    timedelta,
    BeforeValidator(parse_duration),
    PlainSerializer(format_duration, return_type=str),
    WithJsonSchema({"type": "string", "pattern": DURATION_PATTERN}),
]
_UNIQUE = Field(json_schema_extra={"uniqueItems": True})


@cache
def _valid_cron(expression: str) -> bool:
    from hz.contract.croniter_import import croniter

    # Exactly five fields: croniter also takes seconds and years, which a slot-based wake cannot use.
    return len(expression.split()) == 5 and bool(croniter.is_valid(expression))


@cache
def _ever_fires(expression: str) -> bool:
    from datetime import datetime

    from hz.contract.croniter_import import CroniterBadDateError, croniter

    try:  # a leap day is at most eight years away; croniter gives up on dates that never come
        croniter(expression, datetime(2024, 1, 1)).get_next(datetime)
    except CroniterBadDateError:
        return False
    return True


def _check_cron(expression: str) -> str:
    if not _valid_cron(expression):
        raise PydanticCustomError(
            "hzc011", "'{value}' is not a valid five-field cron expression", {"value": expression}
        )
    if not _ever_fires(expression):
        raise PydanticCustomError("hzc011", "'{value}' never fires: no date matches it", {"value": expression})
    return expression


def _check_zone(name: str) -> str:
    from zoneinfo import ZoneInfo

    try:
        ZoneInfo(name)
    except (ValueError, KeyError, OSError):  # ZoneInfoNotFoundError is a KeyError
        raise PydanticCustomError("hzc011", "'{value}' is not an IANA time zone", {"value": name}) from None
    return name


class Cron(_Strict):
    """One schedule entry. A bare cron string in YAML becomes `Cron(cron=…, tz=None)`."""

    cron: Annotated[str, AfterValidator(_check_cron)]
    tz: Annotated[str, AfterValidator(_check_zone)] | None = None


def _as_cron_list(value: Any) -> Any:
    if value is None:
        return None
    items = value if isinstance(value, list | tuple) else [value]
    return tuple({"cron": item} if isinstance(item, str) else item for item in items)


_CRON_TEXT: dict[str, Any] = {"type": "string", "minLength": 9}  # five fields and their blanks at least
_CRON_WITH_ZONE: dict[str, Any] = {
    "type": "object",
    "required": ["cron"],
    "properties": {"cron": _CRON_TEXT, "tz": {"type": "string"}},
    "additionalProperties": False,
}
_CRON_SCHEMA: dict[str, Any] = {"oneOf": [_CRON_TEXT, _CRON_WITH_ZONE]}
Schedule = Annotated[
    Annotated[tuple[Cron, ...], Field(max_length=MAX_ENTRIES)] | None,
    BeforeValidator(_as_cron_list),
    WithJsonSchema({"oneOf": [_CRON_SCHEMA, {"type": "array", "items": _CRON_SCHEMA, "minItems": 1}]}),
]
Sources = Annotated[
    tuple[Uri, ...],
    BeforeValidator(_as_tuple),
    AfterValidator(_unique),
    Field(min_length=1),
    WithJsonSchema(
        {
            "oneOf": [
                {"type": "string", "pattern": URI_PATTERN},
                {
                    "type": "array",
                    "items": {"type": "string", "pattern": URI_PATTERN},
                    "minItems": 1,
                    "uniqueItems": True,
                },
            ]
        }
    ),
]


Stage = Literal["published", "draft"]
Scope = Literal["personal", "team"]
CatchUp = Literal["latest", "all", "skip"]
Title = Annotated[str, StringConstraints(min_length=1, max_length=80)]
RENDER_TIMEOUT = timedelta(minutes=15)


class Input(_Strict):
    """What a contract reads: one source (or several) of a provider, narrowed by query, facets and window."""

    source: Sources
    query: str | None = None
    facets: Annotated[tuple[Ident, ...], AfterValidator(_unique), Field(max_length=MAX_ENTRIES), _UNIQUE] = ()
    window: Duration | None = None
    # Only for `contract:` sources: approved text (published) or the newest draft.
    stage: Stage = "published"
    # When false, a source that fails or is missing becomes a stated gap instead of a failed turn.
    required: bool = True
    # Schema-1 addition: poll this source again after this long even when no wake asked for it.
    recheck: Duration | None = None


class Output(_Strict):
    """An artefact the contract keeps true, at a target, with the facets its `### Maintains` item lists."""

    target: Uri
    facets: Annotated[tuple[Ident, ...], AfterValidator(_unique), Field(min_length=1, max_length=MAX_ENTRIES), _UNIQUE]
    format: Literal["markdown", "json"] = "markdown"


Outputs = Annotated[dict[Ident, Output], Field(min_length=1, max_length=MAX_ENTRIES)]  # at least one thing


class Publish(_Strict):
    """A write action, run only after approval; `auto_approve` requests a policy, it grants nothing."""

    action: Action
    output: Ident
    target: Uri
    auto_approve: PolicyId | None = None


class Agent(_Strict):
    """Hints for the runner: which one, which model class, how much effort. Never part of the intent."""

    runner: Literal["any", "claude-code", "codex", "cursor"] = "any"
    model: Annotated[str, StringConstraints(min_length=1)] | None = None
    effort: Literal["low", "medium", "high", "xhigh", "max"] | None = None
    max_turns: Annotated[int, Field(ge=1, le=200)] | None = None


class Retries(_Strict):
    """How often a failed render is retried across ticks before the job is parked."""

    max: Annotated[int, Field(ge=0, le=10)] = 2
    backoff: Duration = timedelta(minutes=10)


class Concurrency(_Strict):
    """How many renders of this contract may run at once across the fleet, and what happens to more."""

    limit: Annotated[int, Field(ge=1, le=1000)] = 1  # bounded: a 20-digit limit overflowed what stores it
    behavior: Literal["queue", "skip"] = "queue"


class Cost(_Strict):
    """Ceilings per render (tokens) and per day (US dollars); the lower of this and the site's applies."""

    # Bounded above: a 20-digit max_tokens passed validation and crashed storing the compiled contract.
    max_tokens: Annotated[int, Field(ge=1000, le=100_000_000)] | None = None
    max_usd_per_day: Annotated[float, Field(gt=0, le=1_000_000, allow_inf_nan=False)] | None = None


class Hz(_Strict):
    """Everything hz-specific, under `hz:`: identity for people, wakes, inputs, outputs, limits."""

    schema_: Literal[1] = Field(alias="schema")  # `schema` would shadow a BaseModel attribute
    title: Title
    owner: Handle
    scope: Scope
    outputs: Outputs
    maintainers: Annotated[tuple[Handle, ...], AfterValidator(_unique), _UNIQUE] = ()
    tags: Annotated[tuple[Slug, ...], AfterValidator(_unique), _UNIQUE] = ()
    schedule: Schedule = None
    freshness: Duration | Literal["slot"] | None = None
    on: Annotated[tuple[Wake, ...], BeforeValidator(_as_tuple), AfterValidator(_unique), _UNIQUE] | None = None
    inputs: Annotated[dict[Ident, Input], Field(max_length=MAX_ENTRIES)] = {}
    publishes: Annotated[tuple[Publish, ...], Field(max_length=MAX_ENTRIES)] = ()
    agent: Agent = Agent()
    tools: Annotated[tuple[Tool, ...], AfterValidator(_unique), _UNIQUE] = ()
    timeout: Duration = RENDER_TIMEOUT
    retries: Retries = Retries()
    concurrency: Concurrency = Concurrency()
    catch_up: CatchUp = "latest"
    cost: Cost = Cost()
    idempotency: Annotated[str, StringConstraints(min_length=1)] = "{memo_key}"
    overrides: Qualified | None = None
    # Schema-1 addition: on a schedule slot with no moved input, render anyway (always) or skip (if-moved).
    render_on_schedule: Literal["always", "if-moved"] = "always"

    @model_validator(mode="after")
    def _cross_field(self) -> Self:
        for index, wake in enumerate(self.on or ()):
            _check_wake(wake, index, self.inputs)
        for index, publish in enumerate(self.publishes):
            if publish.output not in self.outputs:
                raise PydanticCustomError(
                    "publish_output",
                    "publishes an output '{value}' that hz.outputs does not declare",
                    {"value": publish.output, "at": ("publishes", index, "output")},
                )
        return self


def _check_wake(wake: str, index: int, inputs: dict[str, Input]) -> None:
    name, _, facet = wake.partition(".")
    at = ("on", index)
    if name not in inputs:
        raise PydanticCustomError("hzc016", "wakes on '{value}', which is not an input", {"value": name, "at": at})
    declared = inputs[name].facets
    # An input without `facets` passes on every facet its provider has; those are unknown until stage 3.
    if facet and declared and facet not in declared:
        raise PydanticCustomError(
            "hzc016",
            "wakes on facet '{value}', which input '{input}' does not list",
            {"value": facet, "input": name, "at": at},
        )


def _drop_extension_keys(data: Any) -> Any:
    """`x-*` keys at the top level belong to other tools: tolerated, and ignored."""
    if isinstance(data, dict):
        return {key: value for key, value in data.items() if not (isinstance(key, str) and key.startswith("x-"))}
    return data


class ContractFrontmatter(_Strict):
    """The YAML frontmatter of a `<name>.prose.md` contract: OpenProse keys at the top, hz's under `hz:`."""

    model_config = ConfigDict(
        json_schema_extra={"patternProperties": {"^x-": {}}},
        title="Heinzelmännchen contract frontmatter (schema 1)",
    )

    name: Slug
    kind: Literal["responsibility"]
    description: Annotated[str, StringConstraints(min_length=1, max_length=1024)]
    hz: Hz
    id: CrockfordId | None = None
    version: SemVer | None = None

    @model_validator(mode="before")
    @classmethod
    def _strip_extensions(cls, data: Any) -> Any:
        return _drop_extension_keys(data)
