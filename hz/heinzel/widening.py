"""Does an amendment widen what the agent may do? Then only the user may write it (HZC050).

Widening, key by key (old version -> proposed text):
- `hz.inputs`: a new input, a new source, a changed query, more facets (or all where some were
  listed), a longer window, reading drafts instead of published truth;
- `hz.outputs` / `hz.publishes`: a new or moved target, a new publish action, a new auto-approval;
- `hz.tools`: a new tool;
- cost caps: a higher or removed `hz.cost` ceiling, more `hz.agent.max_turns`, a longer `hz.timeout`;
- `hz.schedule` / `hz.on`: more wakes in four weeks than before, or waking on more inputs;
- `hz.owner` / `hz.maintainers` (who approves): a new person; `hz.scope`: personal to team.
Everything else (the body, fewer inputs, lower caps, a later time, fewer wakes) is a narrowing or
neutral change the agent may propose.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from hz.contract.model import ContractFrontmatter, Hz, Input

_EPOCH = datetime(2026, 1, 5, tzinfo=UTC)  # a Monday; four weeks from here count the wakes


def widened(old: ContractFrontmatter, new: ContractFrontmatter) -> list[str]:
    """The frontmatter keys (`hz.inputs.incidents`, `hz.tools`, …) in which `new` widens `old`."""
    a, b = old.hz, new.hz
    found = [*_inputs(a, b), *_outputs(a, b), *_costs(a, b), *_wakes(a, b), *_people(a, b)]
    return sorted(set(found))


def _sources(spec: Input) -> set[str]:
    return {spec.source} if isinstance(spec.source, str) else set(spec.source)


def _inputs(a: Hz, b: Hz) -> Iterator[str]:
    for name, new in b.inputs.items():
        old = a.inputs.get(name)
        if old is None:
            yield f"hz.inputs.{name}"
            continue
        more_facets = bool(old.facets) and (not new.facets or not set(new.facets) <= set(old.facets))
        longer = old.window is not None and (new.window is None or new.window > old.window)
        drafts = new.stage == "draft" and old.stage != "draft"
        if _sources(new) - _sources(old) or new.query != old.query or more_facets or longer or drafts:
            yield f"hz.inputs.{name}"


def _outputs(a: Hz, b: Hz) -> Iterator[str]:
    for name, new in b.outputs.items():
        old = a.outputs.get(name)
        if old is None or old.target != new.target:
            yield f"hz.outputs.{name}"
    old_publishes = {(p.action, p.output, p.target): p.auto_approve for p in a.publishes}
    for publish in b.publishes:
        key = (publish.action, publish.output, publish.target)
        if key not in old_publishes or (publish.auto_approve and publish.auto_approve != old_publishes[key]):
            yield "hz.publishes"
    if set(b.tools) - set(a.tools):
        yield "hz.tools"


def _higher(old: Any, new: Any) -> bool:
    return old is not None and (new is None or new > old)


def _costs(a: Hz, b: Hz) -> Iterator[str]:
    if _higher(a.cost.max_tokens, b.cost.max_tokens):
        yield "hz.cost.max_tokens"
    if _higher(a.cost.max_usd_per_day, b.cost.max_usd_per_day):
        yield "hz.cost.max_usd_per_day"
    if _higher(a.agent.max_turns, b.agent.max_turns):
        yield "hz.agent.max_turns"
    if b.timeout > a.timeout:
        yield "hz.timeout"


def _wake_count(schedule: Any) -> int:
    from hz.schedule import crons_from, due_slots

    crons = crons_from(schedule, "UTC")
    return len(due_slots(crons, _EPOCH, _EPOCH + timedelta(weeks=4))) if crons else 0


def _wakes(a: Hz, b: Hz) -> Iterator[str]:
    if _wake_count(b.schedule) > _wake_count(a.schedule):
        yield "hz.schedule"
    if a.on is None and b.on is None:
        return  # both wake on every input; a new input is already reported under hz.inputs
    old_on = set(a.inputs) if a.on is None else {str(w).split(".")[0] for w in a.on}
    new_on = set(b.inputs) if b.on is None else {str(w).split(".")[0] for w in b.on}
    if new_on - old_on:
        yield "hz.on"


def _people(a: Hz, b: Hz) -> Iterator[str]:
    if b.owner != a.owner:
        yield "hz.owner"
    if set(b.maintainers) - set(a.maintainers):
        yield "hz.maintainers"
    if a.scope == "personal" and b.scope == "team":
        yield "hz.scope"
