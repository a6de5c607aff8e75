"""The team half of `why`: a contract's lease, its slot's receipt and its upstream drafts, read from this
clone as the last tick's fetch left them (no fetch here: asking why must not wait on the network)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from hz.ops.context import Context
from hz.ops.models_why import Fate, LeaseView, Upstream

if TYPE_CHECKING:
    from hz.contract.load import Contract
    from hz.graph_observed import Receipt

Holder = Callable[[str, int], "tuple[str, str] | None"]
_SETTLED = {"approval.observed": "approved", "draft.rejected": "rejected", "draft.superseded": "superseded"}


def state_receipts(ctx: Context) -> tuple[list[Receipt], Holder, list[str]]:
    """Every landed, non-void receipt on this clone's `hz/state`, who held each token, and notes."""
    from hz.gitstate.lint_fence import LeaseBook
    from hz.ops.observed import _receipts, _state_tip

    assert ctx.root is not None
    repo, ref, tip = _state_tip(ctx.root, ctx.environ)
    if tip is None:
        return [], lambda lease, token: None, ["no hz/state here yet: the first tick's fetch brings it"]
    book = LeaseBook.local(repo)

    def holder(lease: str, token: int) -> tuple[str, str] | None:
        grants = book.grants(lease)
        return grants.holder(token) if grants is not None else None

    return [r for r in _receipts(repo, tip, book) if not r.void], holder, [f"as of {ref}, the last fetch"]


def lease_view(ctx: Context, lease_id: str, slot: str | None, now: datetime, skew: timedelta) -> LeaseView | None:
    """The lease's newest record here: the ref itself (a server) or the copy the last fetch brought."""
    import pygit2

    from hz.gitstate.layout import LEASE_PREFIX
    from hz.gitstate.lease_lint import checked
    from hz.gitstate.lease_term import over, reader
    from hz.gitstate.lint_fence import _resolve
    from hz.ops.observed import _state_tip
    from hz.review.sync import team_remote
    from hz.slots import same_slot

    assert ctx.root is not None
    team = team_remote(ctx.root, ctx.environ)
    repo = team.repo if team is not None else pygit2.Repository(str(ctx.root))
    ref = LEASE_PREFIX + lease_id
    tip, fetched = _resolve(repo, ref), False
    if tip is None and team is not None:
        tip, fetched = _resolve(repo, team.tracking(ref)), True
    if tip is None:
        return None
    record = checked(repo, ref, tip)  # checked as the lease ref it copies: its record must name this lease
    if isinstance(record, str):  # damaged: `hz lease list` says how
        return None
    state_repo, _, state = _state_tip(ctx.root, ctx.environ)
    ended = over(reader(state_repo, state), record)  # its turn's end on hz/state, as last fetched
    return LeaseView(holder=record.holder, role=record.role, token=record.token, slot=record.slot,
                     state="released" if ended else record.state, expires=record.expires,
                     held_now=record.valid_for_holder(now, skew, ended=ended),
                     this_slot=slot is not None and same_slot(record.slot, slot), fetched=fetched)  # fmt: skip


def slot_fate(receipts: list[Receipt], lease_id: str, slot: str | None, holder: Holder) -> Fate | None:
    """The newest end (finished or skipped) of the slot's turn on hz/state, who ran it, and its draft's fate."""
    mine = [r for r in receipts if r.agent == lease_id]
    wanted = None if slot is None else f"{lease_id}@{slot}"
    ends = [r for r in mine if r.kind in ("turn.finished", "turn.skipped")]
    ends = [r for r in ends if wanted is None or wanted in _keys(r)]
    if not ends:
        return None
    end = max(ends, key=lambda r: r.ts)
    turn = end.data.get("turn")
    placed = [r for r in mine if r.kind == "draft.placed" and r.data.get("turn") == turn]
    draft = str(placed[-1].data["key"]) if placed else None
    settled = [_SETTLED[r.kind] for r in mine if r.kind in _SETTLED and r.data.get("key") == draft]
    who = holder(end.lease, end.token)
    return Fate(outcome="finished" if end.kind == "turn.finished" else "skipped",
                disposition=str(end.data.get("disposition", "skipped")), reason=_text(end.data.get("reason")),
                at=end.ts, usd=float(str(end.data.get("cost_usd", 0.0))), holder=None if who is None else who[0],
                role=None if who is None else who[1], draft=draft,
                draft_fate=(settled[-1] if settled else "pending") if draft else None)  # fmt: skip


def _keys(receipt: Receipt) -> list[str]:
    keys = receipt.data.get("keys")
    return [receipt.key, *(str(k) for k in keys)] if isinstance(keys, list) else [receipt.key]


def _text(value: object) -> str | None:
    return None if value is None else str(value)


def upstream_pending(receipts: list[Receipt], contract: Contract, ctx: Context) -> list[Upstream]:
    """Each `contract:` input and its newest placed draft that no receipt settled (None: nothing waits)."""
    from hz.contract.project import compile_repository
    from hz.contract.refs import BadReference, resolve_reference
    from hz.contract.resolve import source_locs

    if ctx.root is None:
        return []
    compiled = compile_repository(ctx.root, ctx.environ)
    names = [(c.qualified_name, c.layer) for c in compiled.contracts]
    ids = {c.qualified_name: f"hz-{c.contract.frontmatter.id}" for c in compiled.contracts
           if c.contract is not None and c.contract.frontmatter.id is not None}  # fmt: skip
    found: list[Upstream] = []
    for _, uri, _ in source_locs(contract):
        if not uri.startswith("contract:"):
            continue
        try:
            upstream = resolve_reference(uri, names, compiled.overridden)[1]
        except BadReference:
            continue
        found.append(Upstream(contract=upstream, pending_draft=_pending(receipts, ids.get(upstream))))
    return found


def _pending(receipts: list[Receipt], agent: str | None) -> str | None:
    if agent is None:
        return None
    placed = [r for r in receipts if r.agent == agent and r.kind == "draft.placed"]
    settled = {str(r.data.get("key")) for r in receipts if r.agent == agent and r.kind in _SETTLED}
    waiting = [r for r in placed if str(r.data.get("key")) not in settled]
    return str(max(waiting, key=lambda r: r.ts).data["key"]) if waiting else None
