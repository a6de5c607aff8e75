"""The outcome as a model writes it: a schema every provider's strict structured output accepts.

Strict modes (Anthropic's and OpenAI's, which Codex's `--output-schema` uses) refuse maps with free
keys and want every field listed as required. So on the wire a draft is a list of
`{output, facet, text}`, and the schema asks for every field (null or empty when unused);
`to_outcome` turns it into the `Outcome` the engine reads, where drafts are output -> facet -> text.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from hz.runners.outcome import Amendment, Lesson, Outcome, OutcomeKind, Summary


class _Strict(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class WireDraft(_Strict):
    output: str = Field(description="The output's name.")
    facet: str = Field(description="The facet's name.")
    text: str = Field(description="The facet's Markdown text.")


class WireLesson(_Strict):
    sentence: str = Field(description="One sentence of advice about how to write the output.")
    hunks: list[str] = Field(
        default_factory=list, description="The unified-diff hunks of the approved edits it comes from."
    )


class WireAmendment(_Strict):
    text: str = Field(description="The full proposed contract text (frontmatter and body).")
    reason: str = Field(description="Why the contract should change, in one or two sentences.")


class WireSummary(_Strict):
    asset: str = Field(description="The artefact this agent keeps true.")
    user_wants: str = Field(description="What the user wants from it, as learned so far.")
    decisions: list[str] = Field(default_factory=list, description="Decisions taken so far.")
    open_questions: list[str] = Field(default_factory=list, description="Questions still open.")
    next_deadline: str | None = Field(default=None, description="The next deadline, ISO 8601, or null.")
    sources_watched: list[str] = Field(default_factory=list, description="The sources this agent watches.")


class WireOutcome(_Strict):
    """The outcome of this turn: one kind, with only that kind's field filled and the others empty or null."""

    kind: OutcomeKind = Field(description="What this turn produced.")
    report: str = Field(description="One line for the user saying what happened.")
    drafts: list[WireDraft] = Field(
        default_factory=list, description="For kind draft: one entry per facet of each output; else []."
    )
    lessons: list[WireLesson] = Field(
        default_factory=list, description="For kind lessons: what the approved edits teach; else []."
    )
    amendment: WireAmendment | None = Field(
        default=None, description="For kind amendment: the proposed contract; else null."
    )
    question: str | None = Field(default=None, description="For question: what to ask the user.")
    summary: WireSummary | None = Field(default=None, description="For summary: the session summary.")

    def to_outcome(self) -> Outcome:
        """The engine's outcome; a ValueError says what is wrong, in words a model can act on."""
        drafts: dict[str, dict[str, str]] = {}
        for draft in self.drafts:
            facets = drafts.setdefault(draft.output, {})
            if draft.facet in facets:
                raise ValueError(f"output `{draft.output}` has facet `{draft.facet}` twice")
            facets[draft.facet] = draft.text
        return Outcome(
            kind=self.kind,
            report=self.report,
            drafts=drafts,
            lessons=tuple(Lesson(sentence=x.sentence, hunks=tuple(x.hunks)) for x in self.lessons),
            amendment=Amendment(**self.amendment.model_dump()) if self.amendment else None,
            question=self.question,
            summary=Summary(**self.summary.model_dump()) if self.summary else None,
        )


def outcome_schema() -> dict[str, Any]:
    """The JSON Schema of `WireOutcome` as strict modes want it: every property required, no defaults.

    Validation stays lenient (a weaker model may leave out an empty field); the schema asks for all.
    """
    schema: dict[str, Any] = _strict(WireOutcome.model_json_schema())
    return schema


def _strict(node: Any) -> Any:
    if isinstance(node, dict):
        cleaned = {k: _strict(v) for k, v in node.items() if k not in ("default", "title")}
        if cleaned.get("type") == "object" and isinstance(cleaned.get("properties"), dict):
            cleaned["required"] = sorted(cleaned["properties"])
            cleaned["additionalProperties"] = False
        return cleaned
    if isinstance(node, list):
        return [_strict(item) for item in node]
    return node


def outcome_schema_text() -> str:
    return json.dumps(outcome_schema(), separators=(",", ":"), sort_keys=True)
