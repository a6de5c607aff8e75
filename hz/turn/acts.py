"""The act step: hz, in code, does what the outcome asks, each effect once per key.

A draft is placed through its target under the ledger; lessons, a question, a summary are journalled
once per id or key. The draft's text lives in the turn body, never in the spine.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial
from typing import Any

from hz.canonical import fingerprint, fingerprint_bytes
from hz.errors import HzError
from hz.review import drafts
from hz.review.targets import target_for
from hz.session.bodies import append_body, read_body
from hz.turn import history
from hz.turn.causes import format_slot, nth_slot_text, place_draft_key
from hz.turn.crash import crashpoint
from hz.turn.engine import Deps, Turn
from hz.turn.journal import Journal
from hz.turn.ledger import Effect, Ledger


def render_output(facets: tuple[str, ...], texts: Mapping[str, str]) -> str:
    """One output's Markdown: a `## <facet>` section per facet, in the contract's order."""
    return "\n".join(f"## {facet}\n\n{texts[facet].strip()}\n" for facet in facets)


def act_on(journal: Journal, turn: Turn, deps: Deps) -> str | None:
    outcome = turn.outcome or {}
    kind = outcome.get("kind")
    if kind == "draft":
        return place_drafts(journal, turn, deps, outcome["drafts"])
    if kind == "lessons":
        record_lessons(journal, turn, outcome["lessons"])
    elif kind == "question":
        ask(journal, turn, deps, str(outcome["question"]))
    elif kind == "summary":
        write_summary(journal, turn, outcome["summary"])
    elif kind == "amendment":
        from hz.turn.amend import propose

        propose(journal, turn, deps, outcome["amendment"])
    return None


def place_drafts(journal: Journal, turn: Turn, deps: Deps, texts: Mapping[str, Mapping[str, str]]) -> str:
    plan = turn.plan
    ledger = Ledger(journal, turn.id, history.of_turn(journal.events(), turn.id), deps.environ)
    placing = [r["placing"] for r in read_body(journal.directory, turn.id).records if "placing" in r]
    noted = {str(p["asset"]): str(p["key"]) for p in placing}  # a resumed turn places under the key it chose
    hashes: dict[str, str] = {}
    for output in sorted(plan.outputs):
        target = target_for(plan, output, turn.slot)
        key = noted.get(target.asset) or draft_key(journal, turn, target.asset)
        text = render_output(plan.outputs[output], texts[output])
        if target.asset not in noted:  # what was there before, so `hz reject` can put it back
            append_body(
                journal.directory, turn.id, {"placing": _placing(turn, key, target.asset, target.current(), text)}
            )
        tag = drafts.Tag(plan.name, plan.version, key)
        done = ledger.run(Effect(key, "place_draft", partial(target.write, tag, text), partial(target.lookup, key)))
        hashes[output] = done.hash
        _record_placed(journal, turn, deps, key, target, done.hash)
    return next(iter(hashes.values())) if len(hashes) == 1 else fingerprint(hashes)


def _record_placed(journal: Journal, turn: Turn, deps: Deps, key: str, target: Any, digest: str) -> None:
    if history.placed_draft(journal.events(), key) is not None:
        return
    data = {
        "key": key,
        "asset": target.asset,
        "hash": digest,
        "contract_version": turn.plan.version,
        "place": target.place,
    }
    journal.append("draft.placed", data, turn=turn.id, key=None)
    crashpoint("draft.placed", deps.environ)


def recover_placed(journal: Journal, turn: Turn, deps: Deps) -> None:
    """A turn that ends before its act step went on (abandoned: timeout, resumes, stopped) still records a
    draft a killed process wrote without its `effect.done`: the target is asked by the key, as a resume
    would, so `hz drafts` lists what is really in the file."""
    placing = [r["placing"] for r in read_body(journal.directory, turn.id).records if "placing" in r]
    if not placing or turn.plan.root is None:
        return
    ledger = Ledger(journal, turn.id, history.of_turn(journal.events(), turn.id), deps.environ)
    for output in sorted(turn.plan.outputs):
        try:
            target = target_for(turn.plan, output, turn.slot)
        except HzError:
            continue  # a target refused now (a link planted since) is not looked into
        for noted in placing:
            if noted["asset"] == target.asset and (
                done := ledger.recover(noted["key"], partial(target.lookup, noted["key"]))
            ):
                _record_placed(journal, turn, deps, done.key, target, done.hash)


def draft_key(journal: Journal, turn: Turn, asset: str) -> str:
    """This turn's key for drafting `asset`: the slot's key, unless another turn drafted the asset under it
    already (a second wake or a retry in the same minute); then the next free one of that minute, so the
    new draft is its own `draft.placed`, supersedes the first, and is decided on its own. A team draft
    keeps the slot's key: the team's drafts follow the contract's idempotency key (one branch per key)."""
    plan = turn.plan
    base = place_draft_key(plan.agent_id, plan.version, format_slot(turn.slot), asset)
    if plan.scope == "team":
        return base
    taken = {
        str(e.data.get("key"))
        for e in journal.events()
        if e.kind in ("draft.placed", "effect.started") and e.turn != turn.id
    }
    for n in range(60):
        key = place_draft_key(plan.agent_id, plan.version, nth_slot_text(turn.slot, n), asset)
        if key not in taken:
            return key
    raise HzError(f"sixty drafts of {asset} in one minute: this one waits", hint="hz drafts shows what waits")


def record_lessons(journal: Journal, turn: Turn, lessons: list[Mapping[str, Any]]) -> None:
    known = {e.data.get("lesson_id") for e in journal.events() if e.kind == "lesson.recorded"}
    for index, lesson in enumerate(lessons, start=1):
        lesson_id = f"{turn.id}.{index}"
        if lesson_id in known:
            continue
        hunks = [fingerprint_bytes(str(h).encode()) for h in lesson.get("hunks", ())]
        data: dict[str, Any] = {"lesson_id": lesson_id, "sentence": str(lesson["sentence"])[:1000], "hunks": hunks}
        approval = next((k for k in turn.keys if "@approval:" in k), None)
        if approval:
            data["approval_key"] = approval.split("@approval:", 1)[1]
        journal.append("lesson.recorded", data, turn=turn.id, key=None)


def question_key(turn: Turn) -> str:
    return f"{turn.plan.agent_id}@question:{turn.id}"


def ask(journal: Journal, turn: Turn, deps: Deps, question: str) -> None:
    """Ask once per key, then wait for the answer (or `max_wait`); a question asked again does not wait twice."""
    from datetime import timedelta

    from hz.turn.finish import Waiting
    from hz.turn.waits import wait_data

    key = question_key(turn)
    if any(e.kind == "question.asked" and e.data.get("key") == key for e in journal.events()):
        return
    journal.append("question.asked", {"key": key, "question": question[:1000]}, turn=turn.id, key=None)
    until = deps.clock() + timedelta(days=deps.settings.max_wait_days)
    data = wait_data("think", until=until, on={"kind": "answer", "key": key})
    journal.append("turn.waiting", data, turn=turn.id, key=None)
    raise Waiting(turn.id)


def write_summary(journal: Journal, turn: Turn, summary: Mapping[str, Any], *, keep: int = 5) -> None:
    previous = history.last_of(journal.events(), "summary.written")
    data: dict[str, Any] = {
        "asset": str(summary.get("asset") or turn.plan.name)[:1000],
        "wants": str(summary.get("user_wants") or "-")[:1000],
        "decisions": [str(d)[:1000] for d in summary.get("decisions", ())],
        "open_questions": [str(q)[:1000] for q in summary.get("open_questions", ())],
        "sources": [str(s)[:200] for s in summary.get("sources_watched", ())],
        "kept_turns": keep,
    }
    if summary.get("next_deadline"):
        data["next_deadline"] = summary["next_deadline"]
    if previous is not None:
        data["previous_seq"] = previous.seq
    journal.append("summary.written", data, turn=turn.id, key=None)


def _placing(turn: Turn, key: str, asset: str, previous: str | None, text: str) -> dict[str, Any]:
    root = str(turn.plan.root) if turn.plan.root else None
    return {"key": key, "asset": asset, "previous": previous, "text": text, "root": root, "scope": turn.plan.scope}
