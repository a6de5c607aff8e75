"""Publishes: the `hz.publishes` actions of an approved draft, each run once, wherever hz runs it.

After `approval.observed` of a draft, `run_publishes` runs every publish of the approved output. Each
has a publish key, `sha256` of (draft key, action, target), that is written AT THE TARGET with what is
published (a hidden `<!-- hz-publish: KEY -->` in a GitHub comment or pull request body, a last line in
a Jira comment, a `Hz-Publish: KEY` trailer on the commit of a file's branch) and looked for there
before anything is written. Only then is `publish.done` recorded. So a crash between the write and the
receipt leaves one write: the next run finds it and records the receipt it missed. Publish keys already
recorded (`PublishContext.done`) are not looked up at all.

One action that fails is reported in its `PublishResult` and tried again on a later tick; the others
still run. The actions live in `publish_github`, `publish_jira` and `publish_file`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Literal, Protocol, get_args

from hz.canonical import fingerprint, fingerprint_bytes
from hz.errors import HzError
from hz.gitstate.events import PublishAction, PublishDone
from hz.gitstate.shapes import ASSET, occasion, slot_time

if TYPE_CHECKING:
    from hz.gitstate.events import Event

ACTIONS: tuple[str, ...] = get_args(PublishAction)
_ASSET = re.compile(ASSET)
_SCHEME = re.compile("[a-z][a-z0-9+-]{0,15}")  # an asset ref's scheme (hz.gitstate.shapes.ASSET)
_ISSUE = re.compile(
    r"^github:(?P<repo>[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+)(?:#|/issues/|/pull/)(?P<number>[1-9][0-9]{0,9})$"
)


class PublishError(HzError):
    """One publish could not run; the message names the target and never a token."""


class Publish(Protocol):
    """One entry of `hz.publishes` (hz.contract.model.Publish has these fields)."""

    @property
    def action(self) -> str: ...

    @property
    def output(self) -> str: ...

    @property
    def target(self) -> str: ...


class PullLike(Protocol):
    @property
    def number(self) -> int: ...

    @property
    def body(self) -> str: ...


class PublishForge(Protocol):
    """What a publish needs of hz.review.forge.Forge (which satisfies it)."""

    def find_comment(self, issue: int, marker: str) -> int | None: ...

    def add_comment(self, issue: int, body: str) -> int: ...

    def pull_for_branch(self, branch: str) -> PullLike | None: ...

    def create_pull(self, branch: str, *, base: str, title: str, body: str) -> PullLike: ...


@dataclass(frozen=True)
class PublishContext:
    """Everything one approved draft's publishes need; a tick has each of these at hand.

    `publishes` may be the contract's whole `hz.publishes`: only those of `output` run. `text` is the
    approved output as it stands on `main` (the reviewer's edits included). `done` holds the publish
    keys already recorded (on `hz/state` or queued for it); `record` queues one `publish.done`.
    """

    root: Path  # the repository (its objects and remote are used for file publishes)
    draft_key: str  # the approved draft's key: the job key of every publish key
    output: str
    text: str
    publishes: Sequence[Publish]
    record: Callable[[PublishDone], None]
    title: str = ""  # the contract's title or name, for pull request titles and commit subjects
    forge: PublishForge | None = None  # None: no forge; files go to a branch alone
    environ: Mapping[str, str] = field(default_factory=dict)  # HZ_JIRA_BASE, JIRA_TOKEN, …
    done: frozenset[str] = frozenset()
    remote: str | None = None  # None: the `[state]` remote of hz.toml, else origin
    main: str | None = None  # main's commit (TeamView.main); None: hz's copy from the tick's fetch, else fetched
    base: str = "main"


@dataclass(frozen=True)
class PublishResult:
    key: str  # the publish key
    action: str
    target: str  # the receipt's target ref
    status: Literal["recorded", "written", "found", "failed"]  # recorded: done on an earlier run
    error: str | None = None


@dataclass(frozen=True)
class Job:
    """One publish to run: its key, where it goes, and what it writes there."""

    key: str
    action: str
    target: str  # as the contract wrote it, `{slot}` filled
    text: str

    @property
    def marker(self) -> str:
        return marker(self.key)


def publish_key(draft_key: str, action: str, target: str) -> str:
    """The publish key: `sha256` of (job key, action, target), the same on every machine."""
    return fingerprint({"job": draft_key, "action": action, "target": target})


def marker(key: str) -> str:
    """The words that mark a write at its target (inside an HTML comment where the target renders HTML)."""
    return f"hz-publish: {key}"


def hidden_marker(key: str) -> str:
    return f"<!-- {marker(key)} -->"


def run_publishes(ctx: PublishContext) -> list[PublishResult]:
    """Run each publish of `ctx.output` once (see the module doc); one result per publish, in order."""
    results = []
    for publish in ctx.publishes:
        if publish.output != ctx.output:
            continue
        results.append(_run_one(ctx, publish))
    return results


def _run_one(ctx: PublishContext, publish: Publish) -> PublishResult:
    target = fill_target(publish.target, ctx.draft_key)
    key = publish_key(ctx.draft_key, publish.action, target)
    ref = target_ref(publish.action, target)
    if key in ctx.done:
        return PublishResult(key, publish.action, ref, "recorded")
    job = Job(key, publish.action, target, ctx.text)
    try:
        written, content = _action(publish.action)(ctx, job)
        ctx.record(
            PublishDone(
                key=key,
                draft_key=ctx.draft_key,
                action=publish.action,  # type: ignore[arg-type]  # checked by _action
                target=ref,
                hash=fingerprint_bytes(content.encode("utf-8")),
            )
        )
    except HzError as exc:
        return PublishResult(key, publish.action, ref, "failed", exc.message)
    return PublishResult(key, publish.action, ref, "written" if written else "found")


Action = Callable[[PublishContext, Job], tuple[bool, str]]
"""Finds the job's write at its target or makes it: (whether it wrote now, the content that is there)."""


def _action(name: str) -> Action:
    from hz.review import publish_file, publish_github, publish_jira

    actions: dict[str, Action] = {
        "github.issue.comment": publish_github.issue_comment,
        "github.pull.create": publish_file.pull_create,
        "jira.issue.comment": publish_jira.issue_comment,
        "state.file.write": publish_file.state_file_write,
    }
    if name not in actions:
        raise PublishError(f"hz cannot run the publish action '{name}'", hint=f"known: {', '.join(ACTIONS)}")
    return actions[name]


def fill_target(target: str, draft_key: str) -> str:
    """The target with `{slot}` placeholders filled from the slot the draft key names."""
    from hz.repo_paths import fill_slot

    form, rest = occasion(draft_key)
    slot = slot_time(rest.split("@", 2)[1]) if form == "draft" else None
    return fill_slot(target, slot) if slot is not None and "{slot" in target else target


def target_ref(action: str, target: str) -> str:
    """The target as a receipt may hold it (`<scheme>:<path>`, no blanks, no `#`), or a hash when it cannot;
    never an error, so a malformed target is reported by its action, beside the others."""
    scheme, _, rest = target.partition(":")
    issue = _ISSUE.match(target) if action == "github.issue.comment" else None
    ref = f"github:{issue['repo']}/issues/{issue['number']}" if issue else f"{scheme}:{rest}"
    if _ASSET.fullmatch(ref) and len(ref) <= 200:
        return ref
    safe = scheme if _SCHEME.fullmatch(scheme) else "publish"
    return f"{safe}:h-{fingerprint(target)[7:47]}"


def github_issue(target: str) -> tuple[str, int]:
    """`github:<owner>/<repo>#<n>` (or `/issues/<n>`, `/pull/<n>`) -> ('owner/repo', n)."""
    match = _ISSUE.match(target)
    if match is None:
        raise PublishError(
            f"'{target}' names no GitHub issue", hint="write github:<owner>/<repo>#<number>, e.g. github:acme/site#12"
        )
    return match["repo"], int(match["number"])


def same_repository(forge: PublishForge, repo: str, target: str) -> None:
    """A target on another repository than the forge's is refused: the forge holds one repository's token."""
    mine = getattr(forge, "repo", None)
    if isinstance(mine, str) and mine.lower() != repo.lower():
        raise PublishError(
            f"'{target}' is on {repo}, and this repository's forge is {mine}",
            hint="a publish writes to the team repository's own forge; name a target there",
        )


def contract_id(draft_key: str) -> str:
    """`hz-<ULID>`, the contract's id on `hz/state`, from a draft key."""
    return draft_key.split("@", 1)[0]


def done_keys(events: Iterable[Event]) -> frozenset[str]:
    """The publish keys these events (hz/state's, the outbox's) record as done."""
    return frozenset(str(e.data["key"]) for e in events if e.kind == "publish.done")


def done_event(done: PublishDone, *, ts: datetime, lease: str, token: int) -> Event:
    """The `publish.done` event for `hz/state`: id the draft's contract, key `<id>@publish-<publish key>`."""
    from hz.gitstate.events import Event
    from hz.gitstate.types import format_utc

    ident = contract_id(done.draft_key)
    return Event.make(
        "publish.done", id=ident, key=f"{ident}@publish-{done.key}", ts=format_utc(ts), lease=lease, token=token,
        data=done,
    )  # fmt: skip


def comment_body(job: Job, hidden: bool = True) -> str:
    """What a comment publishes: the approved text, then the marker on a line of its own."""
    tail = hidden_marker(job.key) if hidden else marker(job.key)
    return f"{job.text.rstrip()}\n\n{tail}\n"


def check_size(body: str, limit: int, where: str) -> None:
    if len(body) > limit:
        raise PublishError(
            f"the approved text is {len(body)} characters; {where} takes at most {limit}",
            hint="publish it as a file (state.file.write) and link it, or shorten the output",
        )
