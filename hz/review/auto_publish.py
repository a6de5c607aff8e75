"""Auto-approved publishes: run right after a team draft's branch landed, before any person merged it.

A contract's publish with `auto_approve: <id>` asks to run on the text as drafted. The tick that placed
the draft and pushed its branch asks hz.review.policy, with the policies of the fetched `main`, whether
the request is granted (a live policy, not the first proposal since the contract changed, no
correction). A granted publish runs through hz.review.publish, under the same publish key as after a
merge, so the approval's later publishes find it done and run only the others. Its `publish.done`
carries the lease and token of the draft's `draft.placed`, like every receipt of a draft.

Nothing else moves: the branch, its pull request and `approval.observed` still wait for a person.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from hz.gitstate import objects
from hz.gitstate.events import Event, PublishDone
from hz.gitstate.layout import STATE_REF
from hz.gitstate.remote import TeamRemote
from hz.gitstate.shapes import occasion

AGENT = "auto-approve"  # the report's name for these publishes


@dataclass(frozen=True)
class Proposal:
    """A team draft this tick placed: its branch commit, its `draft.placed` receipt and its turn's start."""

    commit: str
    placed: Event
    started: Event  # turn.started of the turn that placed it: its contract_fp is the proposal's intent


def proposals(
    local: Iterable[Any], made: Sequence[Event], lease: str, branches: Mapping[str, str]
) -> dict[str, Proposal]:
    """The proposals (ref -> Proposal) of the branches a turn placed: `local` its spine events, `made` its
    receipts for hz/state, `branches` its draft branches still to push (ref -> commit)."""
    started = next((e for e in made if e.kind == "turn.started"), None)
    placed = {str(e.data["key"]): e for e in made if e.kind == "draft.placed"}
    found: dict[str, Proposal] = {}
    for event in local:
        ref = "refs/heads/" + str(event.data.get("place") or "")
        if event.kind != "draft.placed" or ref not in branches or started is None:
            continue
        key = str(event.data["key"])
        team_key = key if key.startswith(lease + "@") else f"{lease}@{key.split('@', 1)[1]}"
        if (receipt := placed.get(team_key)) is not None:
            found[ref] = Proposal(branches[ref], receipt, started)
    return found


def run_granted(
    remote: TeamRemote,
    main_tip: str | None,
    proposed: Mapping[str, Proposal],
    published: Mapping[str, str],
    *,
    forge: Any,
    environ: Mapping[str, str],
    now: datetime,
) -> list[dict[str, Any]]:
    """Run the granted publishes of the proposals whose branch this tick's push landed; report entries."""
    landed = [p for ref, p in proposed.items() if published.get(ref) == p.commit]
    if main_tip is None or not landed:
        return []
    from hz.review.approval_publish import _publishes, contract_on_main
    from hz.review.approval_watch import Main

    main = Main(remote, main_tip)
    asked = [(p, contract_on_main(main, p.placed.id)) for p in landed]
    asked = [(p, c) for p, c in asked if any(getattr(x, "auto_approve", None) for x in _publishes(c))]
    entries: list[dict[str, Any]] = []
    for proposal, contract in asked:
        entries += _run_one(remote, main, proposal, contract, forge=forge, environ=environ, now=now)
    return entries


def _run_one(
    remote: TeamRemote, main: Any, proposal: Proposal, contract: Any, *, forge: Any, environ: Mapping[str, str],
    now: datetime,
) -> list[dict[str, Any]]:  # fmt: skip
    from hz.review.approval_publish import _publishes, publish_keys
    from hz.review.approval_record import record_once
    from hz.review.approval_state import StateBook
    from hz.review.policy import Asker, first_after_change, granted, policies_on
    from hz.review.publish import PublishContext, done_event, run_publishes

    placed = proposal.placed
    book = StateBook(remote.repo, objects.resolve(remote.repo, remote.tracking(STATE_REF)))
    history = [*book.of_kind("turn.started"), *book.of_kind("draft.placed"), proposal.started, placed]
    let_out = [*book.of_kind("approval.observed"), *book.of_kind("publish.done")]
    hz = contract.frontmatter.hz
    asker = Asker(f"team:{contract.frontmatter.name}", str(hz.owner), str(hz.scope))
    fp = str(proposal.started.data["contract_fp"])
    allowed: list[Any] = granted(
        _publishes(contract), asker, policies_on(remote.root, main.tip), now=now,
        first_after_change=first_after_change(history, placed.key, fp),
        correction=corrects(let_out, placed, getattr(hz, "idempotency", None)),
    )  # fmt: skip
    output = _output(main, proposal)
    text = main.file_at(proposal.commit, str(placed.data["asset"]).partition(":")[2])
    if not [p for p in allowed if p.output == output] or text is None:
        return []
    recorded: list[Event] = []

    def record(done: PublishDone) -> None:
        recorded.append(done_event(done, ts=now, lease=placed.lease, token=placed.token))

    ctx = PublishContext(
        root=remote.root, draft_key=placed.key, output=output, text=text, publishes=allowed, record=record,
        title=str(hz.title), forge=forge, environ=environ, remote=remote.remote, main=main.tip,
        done=frozenset(k for k in publish_keys(placed, allowed)
            if book.has("publish.done", placed.id, _key(placed, k))),
    )  # fmt: skip
    results = run_publishes(ctx)
    saved = record_once(remote, book.tip, recorded, now) if recorded else None
    entries = [
        {"agent": AGENT, "action": "published", "key": placed.key, "publish": r.action, "target": r.target,
         "status": r.status, **({"action": "error", "error": r.error} if r.error else {})}
        for r in results
        if r.status != "recorded"
    ]  # fmt: skip
    if saved is not None and saved.error:
        entries.append({"agent": AGENT, "action": "error", "key": placed.key, "error": saved.error})
    return entries


def _key(placed: Event, publish_key: str) -> str:
    return f"{placed.id}@publish-{publish_key}"


def corrects(events: Iterable[Event], placed: Event, idempotency: str | None = None) -> bool:
    """Is this draft a correction: do `events` (hz/state's) hold an approval or a publish of a draft of the
    same contract, slot and asset (the same job, proposed again after a person or a policy let it out), or,
    given the contract's own `hz.idempotency` template (not the default), of the same idempotency key?

    The default key (`{memo_key}`, the asset: hz keeps no memo of inputs) is left to the job: every day's
    draft of a fixed-path digest shares it, yet each is a new job with new inputs. A template the contract
    declares says which drafts are one job (`{slot:%Y-%m-%d}`: the hours of a day), so a draft of a key a
    person or a policy already let out corrects it, whatever its slot."""
    job = _job(placed.key)
    keyed = _idempotency_key(idempotency, placed.id, job)
    for event in events:
        if event.id == placed.id and event.kind in ("approval.observed", "publish.done"):
            key = _job(str(event.data["key" if event.kind == "approval.observed" else "draft_key"]))
            if key == job or (keyed is not None and _idempotency_key(idempotency, placed.id, key) == keyed):
                return True
    return False


def _idempotency_key(template: str | None, lease: str, job: tuple[str, ...]) -> str | None:
    """The idempotency key of the job (slot, asset) by a declared `template` (None: the default, or no job)."""
    from hz.review.branches import DEFAULT_IDEMPOTENCY, draft_key
    from hz.slots import parse_slot

    if template in (None, DEFAULT_IDEMPOTENCY) or len(job) != 2:
        return None
    try:
        slot = parse_slot(job[0])
    except ValueError:
        return None
    return draft_key(str(template), lease.removeprefix("hz-"), slot, job[1])


def _job(draft_key: str) -> tuple[str, ...]:
    """The slot and asset a draft key names (its version left out)."""
    form, rest = occasion(draft_key)
    return tuple(rest.split("@", 2)[1:]) if form == "draft" else (draft_key,)


def _output(main: Any, proposal: Proposal) -> str:
    """The output the draft is of: its commit's `Hz-Output` trailer, else as main's contract says."""
    from hz.review.approval_watch import _trailer

    return _trailer(main.repo[proposal.commit], "Hz-Output") or main.output_of(proposal.placed)
