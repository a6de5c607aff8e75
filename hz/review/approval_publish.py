"""The publishes of approved team drafts: run right after the approval is recorded, and again on later
ticks until each one is done (hz.review.publish runs each action once, found by its publish key).

Whoever recorded the approval runs them at once; any member or Actions run takes over the ones still
missing on a later tick, since the approval is on `hz/state` and the text on `main` for everyone. The
`publish.done` receipts are lease-less like the approval they follow (hz.review.approval_record): they
carry the draft's (lease, token) and land once per publish key.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from hz.errors import HzError
from hz.gitstate.events import Event, PublishDone
from hz.gitstate.receipts import receipt_problem
from hz.review.approval_state import StateBook
from hz.review.approval_watch import Main

RETRY_FOR = timedelta(days=7)  # an approval's publishes are retried this long after it was recorded
MAX_SEARCH = 200  # commits of main searched for an approved text by its fingerprint


@dataclass(frozen=True)
class Approved:
    """An approved draft whose publishes may be due: its receipt on hz/state, its output and text."""

    receipt: Event  # approval.observed
    output: str
    text: str


def due_publishes(
    main: Main, book: StateBook, now: datetime, texts: Mapping[str, str], takeover: timedelta = timedelta(0)
) -> tuple[list[Approved], bool]:
    """Approvals on `hz/state` of the last RETRY_FOR whose contract on main declares publishes of their
    output that are not all done; `texts` holds the approved texts this tick recorded (by draft key).

    Whoever records an approval runs its publishes at once; another tick takes them over only once the
    approval is `takeover` old (the team's grace period), so two members seldom race to write the same
    comment (each looks for it by its publish key first; a race in between would still write it twice).

    An approval that does not follow from hz/state and main (hz.gitstate.receipts: no placed draft, an
    approver main's roster does not list) runs nothing, and `book` lists only contracts on main, so
    forged receipts cost one look at most. An approval whose publishes need nothing more (all done, none
    declared, or too old to retry) is written down in the remote's private folder and not read again by a
    later tick. Returned with the due ones: whether any approval is still open (due now, or later), so the
    next tick looks again."""
    from hz.review.approval_state import SETTLED, remember, remembered

    folder = main.remote.local_dir
    known = remembered(folder, SETTLED)
    due: list[Approved] = []
    settled: list[str] = []
    second = _second_member_required(main)
    for path in book.files:
        if "/approval.observed-" not in path or path in known or (receipt := book.read(path)) is None:
            continue
        if receipt_problem(receipt, book, main.contracts) is not None:  # forged, orphaned: never looked at again
            settled.append(path)
            continue
        if second and receipt.data.get("self_approved") and not book.has("approval.seconded", receipt.id, receipt.key):
            continue  # approved by its own author's member: waits for another member's `hz approve`
        contract = contract_on_main(main, receipt.id)
        if _parse(receipt.ts) < now - RETRY_FOR:
            settled.append(path)
            continue
        if contract is None:  # main has it no more, or it does not load now: looked at again next tick
            continue
        if receipt.key not in texts and _parse(receipt.ts) > now - takeover:  # its recorder is at it
            continue
        output = main.output_of(receipt)
        keys = publish_keys(receipt, [p for p in _publishes(contract) if p.output == output])
        if all(book.has("publish.done", receipt.id, f"{receipt.id}@publish-{k}") for k in keys):
            settled.append(path)
        elif (text := texts.get(receipt.key) or approved_text(main, receipt)) is not None:
            due.append(Approved(receipt, output, text))
    remember(folder, known, settled, SETTLED)
    looked = sum(1 for path in book.files if "/approval.observed-" in path and path not in known)
    return due, looked > len(settled)


def _second_member_required(main: Main) -> bool:
    """`[review] require_other_member` of main's hz.toml; false when main's file is broken (the approval
    look reports that, and records nothing meanwhile)."""
    from hz.errors import ConfigError
    from hz.gitstate.main_toml import main_label, read_main_toml, review_settings

    try:
        return review_settings(read_main_toml(main.repo, main.tip), main_label(main.tip))
    except ConfigError:
        return True  # unreadable: the safe side is to wait


def run_due(
    main: Main, book: StateBook, approved: Approved, *, forge: Any, environ: Mapping[str, str], now: datetime
) -> tuple[list[Event], list[Any]]:
    """Run one approval's publishes: the `publish.done` receipts to record, and the results."""
    from hz.review.publish import PublishContext, done_event, run_publishes

    receipt = approved.receipt
    contract = contract_on_main(main, receipt.id)
    publishes = _publishes(contract)
    recorded: list[Event] = []

    def record(done: PublishDone) -> None:
        recorded.append(done_event(done, ts=now, lease=receipt.lease, token=receipt.token))

    ctx = PublishContext(
        root=main.remote.root,
        draft_key=receipt.key,
        output=approved.output,
        text=approved.text,
        publishes=publishes,
        record=record,
        title=str(contract.frontmatter.hz.title) if contract is not None else "",
        forge=forge,
        environ=environ,
        done=frozenset(
            k
            for k in publish_keys(receipt, publishes)
            if book.has("publish.done", receipt.id, f"{receipt.id}@publish-{k}")
        ),
        remote=main.remote.remote,
        main=main.tip,
    )
    return recorded, run_publishes(ctx)


def publish_keys(receipt: Event, publishes: list[Any]) -> list[str]:
    from hz.review.publish import fill_target, publish_key

    return [publish_key(receipt.key, p.action, fill_target(p.target, receipt.key)) for p in publishes]


def _publishes(contract: Any) -> list[Any]:
    hz = getattr(getattr(contract, "frontmatter", None), "hz", None)
    return list(getattr(hz, "publishes", None) or ())


def contract_on_main(main: Main, hz_id: str) -> Any:
    """The team contract on main whose id is `hz-<id>` (loaded), None when main has none that loads."""
    from hz.contract.load import load_text
    from hz.gitstate.main_declared import contract_texts, defaults  # the walk and defaults of the state lint

    cached = main.__dict__.setdefault("_contracts", {})
    if hz_id not in cached:
        cached[hz_id] = None
        tree = _tree(main)
        for text in contract_texts(main.repo, tree):
            if hz_id.removeprefix("hz-") not in text:  # cheap: only a contract naming the id is loaded
                continue
            # its owner may come from workflows/_defaults.yaml (as in `hz init`'s example): without the
            # defaults the contract does not load, and its publishes never run
            loaded = load_text(text, defaults=defaults(main.repo, tree)).contract
            if loaded is not None and loaded.frontmatter.id == hz_id.removeprefix("hz-"):
                cached[hz_id] = loaded
                break
    return cached[hz_id]


def _tree(main: Main) -> Any:
    import pygit2

    return main.repo[main.tip].peel(pygit2.Commit).tree


def approved_text(main: Main, receipt: Event) -> str | None:
    """The approved text on main: the newest version of the draft's file whose fingerprint the receipt holds."""
    from hz.canonical import fingerprint_bytes

    path = str(receipt.data["asset"]).partition(":")[2]
    try:
        listed = main.git("log", f"--max-count={MAX_SEARCH}", "--format=%H", main.tip, "--", path)
    except HzError:
        return None
    for commit in listed.split():
        text = main.file_at(commit, path)
        if text is not None and fingerprint_bytes(text.encode("utf-8")) == receipt.data["output_fp"]:
            return text
    return None


def _parse(ts: str) -> datetime:
    return datetime.fromisoformat(ts.replace("Z", "+00:00"))
