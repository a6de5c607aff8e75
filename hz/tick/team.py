"""Team contracts in a tick: one runner per slot through the contract's lease, receipts to `hz/state`.

Each member adopts a team contract as an agent of their own, so the team-wide identity is the
contract's `id:` (`hz-<id>` is its lease, `refs/hz/lease/hz-<id>`, and the id of its receipts). Before a
team wake runs, the tick takes that lease for the wake's slot (owner first; a delegate or an Actions
run only once the grace period passed); a lease held by someone else, not yet ours to take, or a slot
already done means this machine does nothing for it. After the turn, its receipt-grade events (turn
started and ended, draft placed) are queued, and the tick flushes them in one atomic push together with
the renewal of every lease it holds, the draft branches its turns placed (each replacing the output's
pending draft) and the deletion of branches whose draft was decided: at most one push per tick, none
when nothing happened. What the tick knows of the remote comes from its one fetch at the start
(`for_tick`, hz.review.sync): `main`'s owners and maintainers, the slot's receipts, the leases.

This applies only when the repository's `hz.toml` names a `[state]` table; without it a team contract
runs on its owner's machine alone (hz.tick.owner_only). An `hz.toml` that does not parse is an error of
the tick, and team slots wait: a typo in a committed file must not switch coordination off.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from hz.errors import ConfigError, HzError
from hz.session.envelope import Envelope
from hz.turn.plan import Plan

RAN_ELSEWHERE = "ran-elsewhere"
"""Why a claim was not won when the slot's end is on `hz/state` already; the local skip's reason too."""

NOT_ON_MAIN = "not on main"
"""Why a claim was not tried: the contract with this id was on the remote's main and was removed."""

_REASONS = {"max-resumes": "resumes", "gather": "error", "runner": "error", "outcome": "error", "act": "error"}


def configured(root: Path | None) -> bool:
    """Whether the repository's team contracts run under leases: its `hz.toml` has a `[state]` table.

    An `hz.toml` that cannot be read counts as configured: team slots then wait rather than run
    unleased, and `Team.open` reports the file's error (a tick with it exits 1).
    """
    from hz.gitstate.settings import read_hz_toml

    if root is None:
        return False
    try:
        document = read_hz_toml(root)
    except ConfigError:
        return True
    return document is not None and "state" in document


@dataclass
class Team:
    remote: Any  # hz.gitstate.remote.TeamRemote
    settings: Any  # hz.gitstate.settings.StateSettings
    identity: Any  # hz.gitstate.identity.Identity
    writer: Any  # hz.gitstate.writer.StateWriter
    held: dict[str, int] = field(default_factory=dict)  # lease id -> token, won this tick
    slots: dict[str, str] = field(default_factory=dict)  # lease id -> the slot (lease stamp) of that term
    queued: int = 0
    drafts: dict[str, Any] = field(default_factory=dict)  # draft ref -> hz.gitstate.writer.Draft, its lease term
    main: Any = False  # the contracts on the remote's main (MainContracts | None), read at the first claim
    view: Any = None  # hz.review.sync.TeamView: what the tick's one fetch brought
    plans: dict[str, Plan] = field(default_factory=dict)  # lease id -> the plan of its turn this tick
    environ: Mapping[str, str] = field(default_factory=dict)
    forge: Any = False  # hz.review.forge.Forge | None | why it failed, set up at first need (`_forge`)
    proposed: dict[str, Any] = field(default_factory=dict)  # draft ref -> hz.review.auto_publish.Proposal

    def pull_book(self) -> Any:
        """The pull requests asked for and not yet answered (hz.review.pulls.PullBook)."""
        from hz.review.pulls import PullBook

        return PullBook(self.remote.local_dir / "pulls")

    @classmethod
    def open(
        cls, root: Path, environ: Mapping[str, str], handle: str | None, fetched: tuple[Any, Any] | None = None
    ) -> Team:
        """The team of this tick, with its one fetch of the remote done: `fetched` (the TeamRemote and the
        hz.review.sync.TeamView of the tick's start, `for_tick`), else here."""
        from hz.gitstate.identity import whoami
        from hz.gitstate.main_toml import team_state_settings
        from hz.gitstate.settings import load_state_settings
        from hz.gitstate.writer import StateWriter

        settings = load_state_settings(root)
        remote, view = fetched or fetch(root, settings.remote, environ)
        if view is not None and view.main is not None:  # the lease times the team merged, not the work tree's
            settings = team_state_settings(remote, view.main)
        team = cls(remote, settings, whoami(environ, handle), StateWriter(remote, settings))
        team.view, team.environ = view, environ
        return team


def fetch(root: Path, name: str, environ: Mapping[str, str]) -> tuple[Any, Any]:
    """The tick's one fetch of the team remote `name`: (its TeamRemote, the TeamView it brought)."""
    from hz.gitstate.remote import TeamRemote
    from hz.review.sync import fetch_view

    remote = TeamRemote(root, name, environ)
    return remote, fetch_view(remote)


def for_tick(root: Path | None, environ: Mapping[str, str]) -> tuple[tuple[Any, Any] | None, list[str]]:
    """The tick's one fetch, before anything else reads the remote (`Team.open` takes it), or the error
    why not; (None, []) where the repository keeps no team state. Light: git alone, nothing heavy
    imported, so an idle tick pays the fetch and no more."""
    from hz.gitstate.settings import load_state_settings

    if root is None or not configured(root):
        return None, []
    try:
        return fetch(root, load_state_settings(root).remote, environ), []
    except HzError as exc:
        return None, [exc.message]


def lease_id(plan: Plan) -> str | None:
    contract_id = getattr(getattr(plan.contract, "frontmatter", None), "id", None)
    return f"hz-{contract_id}" if contract_id else None


@dataclass(frozen=True)
class Claim:
    won: bool
    lease: str | None
    token: int
    why: str  # won | held by … | early | ran-elsewhere | not a member of it | not on main | no contract id
    role: str = "owner"
    handle: str | None = None  # who runs it, the approver of record when a draft's approval has none
    pending: bool = False  # lost for now, settled nowhere: the wake stays due and the next tick claims again
    holder_now: str | None = None  # held: who holds the lease now
    until: str | None = None  # held: when that hold expires; early: when the grace period ends
    held_slot: str | None = None  # held: the slot the holder holds it for


def _role(team: Team, plan: Plan, lease: str) -> Any:
    """This machine's role for the contract: by its owner and maintainers on the remote's main (what the
    hook checks; a change there counts before this machine adopts the new version), else by its version."""
    if team.main is False:
        team.main = _main_contracts(team)
    declared = team.main.declared.get(lease) if team.main is not None else None
    if declared is not None:
        return team.identity.role_for(declared.owner or "", tuple(declared.maintainers))
    hz = plan.contract.frontmatter.hz
    return team.identity.role_for(str(hz.owner), tuple(str(m) for m in hz.maintainers))


def _retired(team: Team, lease: str) -> bool:
    """Whether the remote's main once had this contract and no longer does. This machine's agent may still
    run the contract's last version (its text is in the agent's folder), but a hold begun on it is
    refused by the hook (HZS019), so the claim asks for none: asking failed the tick every time. Main's
    history is read only when its tip lacks the id."""
    if team.main is False:
        team.main = _main_contracts(team)
    return team.main is not None and team.main.retired(lease)


def _main_contracts(team: Team) -> Any:
    """The contracts on the remote's main as the tick's fetch saw it (None: the remote has no main)."""
    from hz.gitstate.lint_contracts import MainContracts

    if team.view is None:
        return MainContracts.on_remote(team.remote)
    if team.view.main is None:
        return None
    return MainContracts.at(team.remote.repo, team.remote.repo[team.view.main], strict=False)


def decide(team: Team, plan: Plan, slot: datetime, now: datetime, *, asked: bool = False) -> Claim:
    """Whether this machine may take the lease for `plan`'s `slot` now, as of the tick's fetch, pushing
    nothing: a Claim with `won` when it is free to take (`claim` then pushes), else why not, with who
    holds it until when (hz.tick.dispositions says it to a person).

    `asked`: a turn a person started (wake, chat, retry): its slot is the minute they asked in, nobody's
    schedule slot, so no owner goes first and a delegate takes it at once (the lease still decides)."""
    return _decided(team, plan, slot, now, asked)[0]


def _decided(team: Team, plan: Plan, slot: datetime, now: datetime, asked: bool = False) -> tuple[Claim, Any]:
    from hz.gitstate.lease import Claim as LeaseClaim
    from hz.gitstate.lease import Outcome
    from hz.gitstate.lease import plan as lease_plan
    from hz.gitstate.types import format_utc
    from hz.slots import lease_stamp

    lease = lease_id(plan)
    if lease is None:
        return Claim(False, None, 0, "no contract id"), None
    if _retired(team, lease):  # the hook refuses any new hold on it
        return Claim(False, lease, 0, NOT_ON_MAIN), None
    role = _role(team, plan, lease)
    if role is None:
        return Claim(False, lease, 0, "not a member of it"), None
    stamp = lease_stamp(slot)
    if lease in team.held:
        return _again(team, lease, stamp, role), None
    wish = LeaseClaim(lease, stamp, team.identity.holder, role, None if asked else slot)
    step = lease_plan(team.remote, wish, now, team.settings)
    if not isinstance(step, Outcome):
        return Claim(True, lease, int(step.record.token), "won", role, team.identity.handle), step
    if step.status == "done":  # its end is on hz/state: whoever ran it, this machine never will
        return Claim(False, lease, 0, RAN_ELSEWHERE, role), None
    if step.status == "early":
        until = format_utc(step.not_before) if step.not_before else None
        return Claim(False, lease, 0, "early", role, pending=True, until=until), None
    record = step.record
    holder = getattr(record, "holder", None)
    return Claim(False, lease, 0, f"held by {holder}", role, pending=True, holder_now=holder,
                 until=getattr(record, "expires", None), held_slot=getattr(record, "slot", None)), None  # fmt: skip


def claim(team: Team, plan: Plan, slot: datetime, now: datetime, *, asked: bool = False) -> Claim:
    """Take the lease for `plan`'s `slot` (see `decide`); a race for it lost reads as held by the winner.

    Held by someone else (or a race for it lost), or too early for this role: nothing is settled here.
    The holder may die mid-turn (kill -9) and leave the slot undone; the next tick looks again and finds
    the slot done (ran-elsewhere) or the lease expired (taken over). Looking costs fetches, no model call."""
    from hz.gitstate.lease import push_plan
    from hz.slots import lease_stamp

    decided, step = _decided(team, plan, slot, now, asked)
    if step is None:
        return decided
    assert decided.lease is not None
    outcome = push_plan(team.remote, step, now)
    if outcome.won:
        assert outcome.record is not None, "a won lease has its record"
        token = int(outcome.record.token)
        team.held[decided.lease], team.slots[decided.lease], team.plans[decided.lease] = (
            token, lease_stamp(slot), plan)
        return Claim(True, decided.lease, token, "won", decided.role, team.identity.handle)
    record = outcome.record
    holder = getattr(record, "holder", None)
    return Claim(False, decided.lease, 0, f"held by {holder}", decided.role, pending=True, holder_now=holder,
                 until=getattr(record, "expires", None), held_slot=getattr(record, "slot", None))  # fmt: skip


def _again(team: Team, lease: str, stamp: str, role: str) -> Claim:
    """A lease won earlier in this tick: the same slot is the same term, won again; another slot waits.

    Another slot waits for the next tick rather than taking a new term now: a new term would supersede
    the one whose receipts this tick's one push still carries (renewed under the newer token only), and
    a tick runs one schedule slot per agent anyway (catch-up goes a slot a tick).
    """
    from hz.slots import same_slot

    if same_slot(team.slots.get(lease, ""), stamp):
        return Claim(True, lease, team.held[lease], "won", role, team.identity.handle)
    why = f"this tick holds the lease for slot {team.slots.get(lease, '?')}"
    return Claim(False, lease, 0, why, role, pending=True)


def _team_key(key: str, lease: str) -> str:
    return lease + "@" + key.split("@", 1)[1]


def _utc(ts: str) -> str:
    return datetime.fromisoformat(ts.replace("Z", "+00:00")).astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def receipts(events: Sequence[Envelope], turn: str, claim_: Claim) -> list[Any]:
    """The receipt-grade events of one local turn, keyed by the team-wide id."""
    from hz.gitstate.events import PAYLOADS, Event, Kind

    lease = claim_.lease
    assert lease is not None
    mine = [e for e in events if e.turn == turn]
    started = next(e for e in mine if e.kind == "turn.started")
    keys = [_team_key(k, lease) for k in started.data.get("keys", [])]
    common = {
        "turn": turn,
        "cause": started.data["cause"],
        "causes": list(started.data.get("causes", [])),
        "keys": keys,
    }
    finished = next((e for e in mine if e.kind == "turn.finished"), None)
    fp = (finished.data.get("contract_fingerprint") if finished else None) or "sha256:" + "0" * 64
    payloads: list[tuple[Kind, str, str, dict[str, Any]]] = [
        ("turn.started", keys[0], started.ts, {**common, "contract_version": int(started.data["contract_version"]),
                                               "contract_fp": fp, "token": claim_.token, "role": claim_.role}),
    ]  # fmt: skip
    for event in mine:
        if event.kind == "draft.placed":
            key = _team_key(str(event.data["key"]), lease)
            data = {"turn": turn, "key": key, "asset": event.data["asset"], "hash": event.data["hash"]}
            payloads.append(("draft.placed", key, event.ts, data))
        elif event.kind == "approval.observed" and (approval := _approval(event, events, lease, claim_)):
            payloads.append(approval)
    if finished is not None:
        payloads.append(("turn.finished", keys[0], finished.ts, {**common, **_ended(finished.data)}))
    return [
        Event.make(
            kind,
            id=lease,
            key=key,
            ts=_utc(ts),
            lease=lease,
            token=claim_.token,
            data=PAYLOADS[kind].model_validate(data),
        )
        for kind, key, ts, data in payloads
    ]


def _approval(event: Envelope, events: Sequence[Envelope], lease: str, claim_: Claim) -> Any:
    """The receipt of an approved draft: who, how much changed, the approved text's fingerprint; no text."""
    placed = next((e for e in events if e.kind == "draft.placed" and e.data["key"] == event.data["key"]), None)
    if event.data.get("decision") != "approved" or placed is None or not event.data.get("output_fp"):
        return None
    key = _team_key(str(event.data["key"]), lease)
    data = {
        "key": key,
        "asset": placed.data["asset"],
        "approver": event.data.get("approver") or claim_.handle,
        "share_changed": round(float(event.data.get("share_changed", 0.0)), 3),  # to 0.001 (hz.gitstate.lint)
        "output_fp": event.data["output_fp"],
    }
    return ("approval.observed", key, event.ts, data)


def _ended(d: Mapping[str, Any]) -> dict[str, Any]:
    reason = _REASONS.get(str(d.get("reason")), d.get("reason"))
    ended: dict[str, Any] = {
        "disposition": d["disposition"],
        "cost_usd": round(float(d.get("usd", 0.0)), 6),  # micro-USD: no more digits reach hz/state
        "tokens": int(d.get("tokens", 0)),
        "tokens_cached": int(d.get("tokens_cached", 0)),
        "duration_s": round(float(d.get("duration_s", 0.0)), 3),
        "input_fps": dict(d.get("inputs", {})),
    }
    if reason not in (None, "nothing-to-do"):
        ended["reason"] = reason
    for source, target in (("contract_fingerprint", "contract_fp"), ("output_hash", "draft_hash")):
        if d.get(source):
            ended[target] = d[source]
    return ended


def record(team: Team, events: Sequence[Envelope], turn: str, claim_: Claim) -> None:
    from hz.review.auto_publish import proposals

    made = receipts(events, turn, claim_)
    team.queued += team.writer.queue(*made)
    assert claim_.lease is not None, "a team turn runs under its lease"
    placed = [e for e in events if e.turn == turn]
    branches = unpublished_drafts(team, placed)
    team.drafts.update(tie(branches, claim_.lease, claim_.token, team))
    team.proposed.update(proposals(placed, made, claim_.lease, branches))
    _ask_pulls(team, team.plans.get(claim_.lease), branches)


def _ask_pulls(team: Team, plan: Plan | None, branches: Mapping[str, str]) -> None:
    """Note the pull request each new draft branch asks for (hz.review.pulls), made once its push lands:
    kept until the forge answers, so a draft pushed by a later tick (its receipts waited) still gets one."""
    from hz.review.pulls import ask_for

    forge = _forge(team)
    if forge is None or plan is None or team.view is None:  # a forge that failed to set up: asked later
        return
    base = (team.view.main_ref or "refs/heads/main").removeprefix("refs/heads/")
    for ref, commit in branches.items():
        key, slot = _trailers(team, commit)
        if key and slot and ref.startswith("refs/heads/hz/draft/"):
            team.pull_book().put(ask_for(plan, ref.removeprefix("refs/heads/"), commit, key, slot, base))


def _forge(team: Team) -> Any:
    """The team's forge for this tick (None: none configured; a str: why it could not be set up)."""
    from hz.review.forge import forge_for

    if team.forge is False:
        try:
            from hz.gitstate.main_toml import team_toml

            main = team.view.main if team.view is not None else None
            team.forge = forge_for(team.remote.root, team.environ, team_toml(team.remote, main)[0] or {})
        except HzError as exc:
            team.forge = exc.message
    return team.forge


def tie(drafts: Mapping[str, str], lease: str, token: int, team: Team | None = None) -> dict[str, Any]:
    """Draft refs (ref -> commit) tied to the lease term of the turn that placed them, for the writer:
    pushed only with a renewal of that lease under that token, withheld when it was taken over.

    A branch named for its contract's output replaces the draft pending there: the push expects the tip
    the tick's fetch saw (the `team`'s view), so it moves only what this tick looked at, and never over
    a draft of a later slot (one a late push of an older turn would otherwise undo)."""
    from hz.gitstate.writer import Draft
    from hz.review.draft_push import later_there

    view = team.view if team is not None else None
    return {
        ref: Draft(commit, lease, token, _seen_tip(view, ref))
        for ref, commit in drafts.items()
        if team is None or not later_there(team.remote.repo, view, ref, commit)
    }


def _seen_tip(view: Any, ref: str) -> str | None:
    """The tip of a `hz/draft/<contract>/<output>` branch the tick's fetch saw (ZERO: none); None for an
    older `hz/draft/<agent>/<slot>` branch, which only ever moves forward."""
    from hz.gitstate.transport import ZERO

    if view is None or ref in view.others:
        return None
    seen = next((d.commit for d in view.drafts.values() if d.ref == ref), None)
    if seen is not None:
        return str(seen)
    # an agent id (`hz-…`) names an older branch; a contract id (a ULID) never starts so
    return None if ref.removeprefix("refs/heads/hz/draft/").startswith("hz-") else ZERO


def unpublished_drafts(team: Team, events: Sequence[Envelope]) -> dict[str, str]:
    """The draft branches these `draft.placed` events name whose tip the remote has not had from us yet
    (ref -> local commit, one git process).

    What was pushed is remembered in hz's own tracking namespace (`refs/hz/sync/<remote>/heads/…`). Only
    the branches of the given events: a branch belongs to the lease term of the turn that placed it, so
    an older turn's branch never rides on a later turn's lease. One withheld because its lease was taken
    over (marked under `withheld_ref`) is not on the remote and never will be: the next holder drafts its own.
    """
    refs = sorted({"refs/heads/" + str(e.data["place"]) for e in events if _on_branch(e)})
    if not refs:
        return {}
    import subprocess

    from hz.gitenv import git_env

    marks = [team.remote.tracking(ref) for ref in refs] + [withheld_ref(team, ref) for ref in refs]
    done = subprocess.run(
        ["git", "-C", str(team.remote.root), "for-each-ref", "--format=%(objectname) %(refname)", *refs, *marks],
        capture_output=True, text=True, env=git_env(team.remote.git.env), check=False,
    )  # fmt: skip
    tips: dict[str, str] = {}
    for line in done.stdout.splitlines():
        commit, _, ref = line.partition(" ")
        tips[ref] = commit
    return {
        ref: tips[ref]
        for ref in refs
        if ref in tips and tips[ref] not in (tips.get(team.remote.tracking(ref)), tips.get(withheld_ref(team, ref)))
    }


def withheld_ref(team: Team, ref: str) -> str:
    """Where this machine marks a draft branch's commit as never placed: its lease was taken over."""
    return f"{team.remote.sync_prefix}withheld/{ref.removeprefix('refs/')}"


def _on_branch(event: Envelope) -> bool:
    """A draft, or an agent's amendment of its team contract (hz.turn.amend), on a `hz/draft/…` branch."""
    place = str(event.data.get("place") or "")
    kinds = ("draft.placed", "amendment.proposed")
    return event.kind in kinds and place.startswith("hz/draft/") and place.count("/") >= 3


def flush(team: Team, now: datetime) -> dict[str, Any]:
    """One push per tick at most: the queued receipts, the renewal of the leases won, the new draft branches
    and the deletion of decided ones (hz.review.draft_push); then the pull requests of the moved branches."""
    from hz.review.draft_push import decided, forget_decided_local

    forget_decided_local(team.remote, team.view)
    drops = {ref: gone for ref, gone in decided(team.remote, team.view).items() if ref not in team.drafts}
    if not team.queued and not team.held and not team.drafts and not drops and not team.writer.outbox.waiting():
        return {"pushed": False, **_pulls(team, {})}  # asks a failed forge left go out now
    try:
        result = team.writer.flush(now, renew=tuple(team.held), publish={**drops, **team.drafts})
        again = _stale(team, result.unpublished)
        renew = tuple({draft.lease for draft in again.values()})
        retried = team.writer.flush(now, renew=renew, publish=again) if again else None
    except HzError as exc:
        return {"pushed": False, "error": exc.message}
    from hz.gitstate.objects import set_ref
    from hz.gitstate.refused import report
    from hz.review.draft_push import forget_local

    published = {**result.published, **(retried.published if retried else {})}
    refused = {**result.unpublished, **(retried.unpublished if retried else {})}
    unpublished = {ref: why for ref, why in refused.items() if ref not in drops and ref not in published}
    for ref, commit in published.items():  # remembered, so the next flush does not push it again
        if commit:
            set_ref(team.remote.repo, team.remote.tracking(ref), commit)
        else:
            forget_local(team.remote, ref, drops[ref].expected or "")
    for ref in result.withheld:  # not on the remote, never to be: the lease's next holder drafts its own
        set_ref(team.remote.repo, withheld_ref(team, ref), team.drafts[ref].commit)
    said = {"error": report(result.refused, team.writer.set_aside.directory)} if result.refused else {}
    return {
        **said,  # events the hook refused: set aside, said once, never blocking the rest
        "pushed": bool(result.pushes),
        "landed": len(result.landed),
        "fenced": sorted(result.fenced),
        "withheld": dict(sorted(result.withheld.items())),  # draft ref -> its fenced lease: never pushed
        "published": sorted(ref for ref, commit in published.items() if commit),
        "deleted": sorted(ref for ref, commit in published.items() if not commit),
        "unpublished": unpublished,
        "clashed": dict(result.clashed),  # receipts another run wrote first: a double run, said in the tick
        **_pulls(team, published),
        **_auto_published(team, published, now),
    }


def _auto_published(team: Team, published: Mapping[str, str], now: datetime) -> dict[str, Any]:
    """The publishes an `auto_approve` policy grants on the drafts whose branch just landed
    (hz.review.auto_publish); they run once the branch is there, so a person sees what was published."""
    if not team.proposed or team.view is None:
        return {}
    from hz.review.auto_publish import run_granted

    forge = _forge(team)
    entries = run_granted(team.remote, team.view.main, team.proposed, published,
                          forge=None if isinstance(forge, str) else forge, environ=team.environ, now=now)  # fmt: skip
    return {"auto_published": entries} if entries else {}


def _stale(team: Team, unpublished: Mapping[str, str]) -> dict[str, Any]:
    """New drafts whose branch moved since the fetch, to push once more (hz.review.draft_push)."""
    from hz.review.draft_push import retry_stale

    mine = {ref: draft for ref, draft in team.drafts.items() if draft.lease in team.held}
    return retry_stale(team.remote, mine, unpublished) if team.view is not None else {}


def _pulls(team: Team, published: Mapping[str, str]) -> dict[str, Any]:
    """Ask the forge for the pull request of every draft branch whose push landed (this tick's, or one a
    failed forge left waiting); nothing without a forge. Errors go in the tick's report, the asks stay."""
    from hz.review.pulls import open_pulls

    book = team.pull_book()
    if team.view is None or not book.asks():
        return {}
    forge = _forge(team)
    if isinstance(forge, str):
        return {"pulls_failed": [forge]}
    if forge is None:  # no forge (any more): the branches alone carry the review
        for ask in book.asks():
            book.done(ask)
        return {}
    tips = {d.branch: d.commit for d in team.view.drafts.values()}
    tips.update({ref.removeprefix("refs/heads/"): commit or None for ref, commit in published.items()})
    waiting = {draft.commit for ref, draft in team.drafts.items() if ref not in published}
    urls, errors = open_pulls(forge, book, tips, waiting)
    return {"pulls": urls, **({"pulls_failed": errors} if errors else {})}


def _trailers(team: Team, commit: str) -> tuple[str | None, str | None]:
    from hz.review.draft_push import slot_of

    try:
        key = team.remote.repo[commit].message_trailers.get("Hz-Draft")
    except (KeyError, ValueError):
        key = None
    return (str(key).strip() if key else None), slot_of(team.remote.repo, commit)
