"""The structured outcome of a think step: what the model decided, checked before hz acts on it.

One outcome has one `kind` and carries the field of that kind only, plus a report line (the short
sentence the user reads in the timeline). Drafts are Markdown text per facet of each output. The
same model is the output schema the model runners ask for, so its field descriptions speak to a model.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

OutcomeKind = Literal["draft", "lessons", "amendment", "question", "nothing", "summary"]

# Which field each kind carries; every other kind-specific field must stay empty.
_FIELD_OF_KIND: dict[str, str | None] = {
    "draft": "drafts",
    "lessons": "lessons",
    "amendment": "amendment",
    "question": "question",
    "summary": "summary",
    "nothing": None,
}


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Lesson(_Frozen):
    sentence: str = Field(min_length=1, description="One sentence of advice about how to write the output.")
    hunks: tuple[str, ...] = Field(
        default=(), description="The unified-diff hunks between the placed draft and the approved text it comes from."
    )


class Amendment(_Frozen):
    text: str = Field(min_length=1, description="The full proposed contract text (frontmatter and body).")
    reason: str = Field(min_length=1, description="Why the contract should change, in one or two sentences.")


class Summary(_Frozen):
    """The fixed schema of `summary.written`: the user reads the same fields every time."""

    asset: str = Field(description="The artefact this agent keeps true.")
    user_wants: str = Field(description="What the user wants from it, as learned so far.")
    decisions: tuple[str, ...] = Field(default=(), description="Decisions taken so far.")
    open_questions: tuple[str, ...] = Field(default=(), description="Questions still open.")
    next_deadline: str | None = Field(default=None, description="The next deadline, ISO 8601, if there is one.")
    sources_watched: tuple[str, ...] = Field(default=(), description="The sources this agent watches.")


class Outcome(_Frozen):
    kind: OutcomeKind = Field(description="What this turn produced; only the matching field is filled.")
    report: str = Field(min_length=1, max_length=300, description="One line for the user saying what happened.")
    drafts: dict[str, dict[str, str]] = Field(
        default_factory=dict, description="For kind draft: output name -> facet name -> Markdown text."
    )
    lessons: tuple[Lesson, ...] = Field(default=(), description="For kind lessons: what the approval edits teach.")
    amendment: Amendment | None = Field(default=None, description="For kind amendment: the proposed contract.")
    question: str | None = Field(default=None, description="For kind question: what to ask the user.")
    summary: Summary | None = Field(default=None, description="For kind summary: the session summary.")

    @model_validator(mode="after")
    def _one_kind(self) -> Outcome:
        wanted = _FIELD_OF_KIND[self.kind]
        for name in {f for f in _FIELD_OF_KIND.values() if f is not None}:
            filled = bool(getattr(self, name))
            # an approval without edits teaches nothing, so `lessons` may be empty for its kind
            if name == wanted and not filled and name != "lessons":
                raise ValueError(f"an outcome of kind {self.kind} needs `{name}`")
            if name != wanted and filled:
                raise ValueError(f"an outcome of kind {self.kind} must leave `{name}` empty")
        if "\n" in self.report:
            raise ValueError("the report is one line")
        return self


def outcome_problems(outcome: Outcome, want: frozenset[str], outputs: Mapping[str, tuple[str, ...]]) -> list[str]:
    """What keeps this outcome from being acceptable for the turn; empty means acceptable.

    A draft must fill exactly the requested facets of exactly the requested outputs, with some text.
    """
    problems: list[str] = []
    if outcome.kind not in want:
        problems.append(f"kind {outcome.kind} is not allowed this turn; allowed: {', '.join(sorted(want))}")
    if outcome.kind == "draft":
        problems.extend(_draft_problems(outcome.drafts, outputs))
    return problems


def _draft_problems(drafts: Mapping[str, Mapping[str, str]], outputs: Mapping[str, tuple[str, ...]]) -> list[str]:
    problems = [f"unknown output `{name}`" for name in sorted(set(drafts) - set(outputs))]
    for name, facets in outputs.items():
        given = drafts.get(name, {})
        for facet in facets:
            if not given.get(facet, "").strip():
                problems.append(f"output `{name}` lacks facet `{facet}`")
        problems.extend(f"output `{name}` has unknown facet `{f}`" for f in sorted(set(given) - set(facets)))
    return problems
