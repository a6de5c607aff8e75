"""The embedded default runner: no model, no network, the same outcome for the same inputs.

It fills each requested facet of each output from this wake's inputs: how many items each input
holds and a line per item with its link, and it says in the first line of every facet that no model
wrote the text. A facet named like an input facet draws on that facet only; any other facet lists
every input. A wake for discovered sources only becomes a question to the user (read them?); a draft
that comes with discovered sources names them in its report. It costs nothing, so it can never cross a
cap, and a fresh clone runs end to end with it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from hz.runners.base import RunnerFailed, ThinkRequest, ThinkResult, Usage
from hz.runners.outcome import Outcome, Summary

NOTICE = "_Written by hz's offline runner: no model wrote this text; it only lists what the inputs hold._"
MAX_ITEMS = 50  # per input facet, so one huge feed cannot bloat a draft
_TITLE_KEYS = ("title", "name", "summary", "subject", "key", "id")
_LINK_KEYS = ("url", "link", "href", "html_url", "permalink")


class OfflineRunner:
    name = "offline"

    def worst_case_usd(self, max_tokens: int) -> float:
        return 0.0

    def think(self, request: ThinkRequest) -> ThinkResult:
        outcome = offline_outcome(request)
        entry = {"runner": self.name, "outcome": outcome.model_dump(mode="json")}
        if request.record is not None:
            request.record(entry)
        return ThinkResult(outcome=outcome, usage=Usage(), transcript=(entry,))


def offline_outcome(request: ThinkRequest) -> Outcome:
    want = request.want
    if request.discovered and "draft" not in want and "question" in want:
        return _discovered_question(request)
    if "draft" in want and request.outputs:
        drafts = {name: {f: _facet_text(f, request.inputs) for f in facets} for name, facets in request.outputs.items()}
        return Outcome(kind="draft", report=_draft_report(request), drafts=drafts)
    if "summary" in want:
        return Outcome(kind="summary", report="offline summary: no model wrote it", summary=_summary(request))
    if "nothing" in want:
        return Outcome(kind="nothing", report="offline runner: nothing a runner without a model can do this turn")
    if "lessons" in want:
        return Outcome(kind="lessons", report="offline runner: no model to learn lessons from the edits")
    raise RunnerFailed(
        f"the offline runner cannot produce {' or '.join(sorted(want))}",
        hint="configure a model runner ([runners] default in config.toml) for turns that need judgment",
    )


def _draft_report(request: ThinkRequest) -> str:
    items = sum(_count(value) for facets in request.inputs.values() for value in facets.values())
    outputs = ", ".join(sorted(request.outputs))
    report = f"offline draft of {outputs} from {len(request.inputs)} inputs ({items} items), no model"
    if request.discovered:
        report += "; not in the contract yet: " + ", ".join(d["source"] for d in request.discovered)
    return report if len(report) <= 300 else report[:299] + "…"


def _discovered_question(request: ThinkRequest) -> Outcome:
    """A wake for discovered sources only: ask the user whether the contract should read them."""
    found = [f"{d['source']} (hint {d['hint']}: {d['why']})" for d in request.discovered]
    if len(found) == 1:
        question = f"A source your contract does not read turned up: {found[0]}. Add it to the contract's inputs?"
    else:
        listed = "; ".join(found)
        question = f"Sources your contract does not read turned up: {listed}. Add them to the contract's inputs?"
    count = len(found)
    report = f"offline runner: asks whether to read {count} discovered source{'' if count == 1 else 's'}"
    return Outcome(kind="question", report=report, question=question)


def _facet_text(facet: str, inputs: Mapping[str, Mapping[str, Any]]) -> str:
    same_name = [(i, f) for i in sorted(inputs) for f in sorted(inputs[i]) if f == facet]
    sources = same_name or [(i, f) for i in sorted(inputs) for f in sorted(inputs[i])]
    blocks = [NOTICE]
    if not sources:
        blocks.append("No inputs were given for this facet.")
    for name, source_facet in sources:
        blocks.append(_render_source(name, source_facet, inputs[name][source_facet]))
    return "\n\n".join(blocks) + "\n"


def _render_source(name: str, facet: str, value: Any) -> str:
    heading = f"**{name}** ({facet}): {_describe_count(value)}"
    lines = _item_lines(value)
    return "\n".join([heading, *lines]) if lines else heading


def _describe_count(value: Any) -> str:
    if isinstance(value, list | tuple):
        return f"{len(value)} item" + ("" if len(value) == 1 else "s")
    if isinstance(value, Mapping) and not _is_item(value):
        return f"{len(value)} field" + ("" if len(value) == 1 else "s")
    if value is None or value == "":
        return "empty"
    return "1 item"


def _count(value: Any) -> int:
    if isinstance(value, list | tuple):
        return len(value)
    return 0 if value is None or value == "" else 1


def _item_lines(value: Any) -> list[str]:
    if isinstance(value, list | tuple):
        lines = [f"- {_one_line(item)}" for item in value[:MAX_ITEMS]]
        if len(value) > MAX_ITEMS:
            lines.append(f"- … and {len(value) - MAX_ITEMS} more")
        return lines
    if isinstance(value, Mapping) and not _is_item(value):
        return [f"- {key}: {_one_line(value[key])}" for key in sorted(value, key=str)]
    if value is None or value == "":
        return []
    return [f"- {_one_line(value)}"]


def _is_item(value: Mapping[str, Any]) -> bool:
    return any(key in value for key in (*_TITLE_KEYS, *_LINK_KEYS))


def _one_line(value: Any) -> str:
    if isinstance(value, Mapping) and _is_item(value):
        return _item_line(value)
    text = value if isinstance(value, str) else json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)
    text = " ".join(text.split())
    return text if len(text) <= 200 else text[:199] + "…"


def _item_line(item: Mapping[str, Any]) -> str:
    title = next((str(item[k]) for k in _TITLE_KEYS if item.get(k) not in (None, "")), "")
    link = next((str(item[k]) for k in _LINK_KEYS if item.get(k) not in (None, "")), "")
    title = " ".join(title.split())[:200]
    if title and link:
        return f"[{title}]({link})"
    return title or link


def _summary(request: ThinkRequest) -> Summary:
    return Summary(
        asset=", ".join(sorted(request.outputs)) or "not known",
        user_wants="not known: the offline runner has no model to read the session",
        sources_watched=tuple(sorted(request.inputs)),
    )
