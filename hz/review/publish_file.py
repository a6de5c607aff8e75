"""`state.file.write` and `github.pull.create`: the approved text as a file change on a branch, and a
pull request for it when the repository has a forge.

hz never writes `main` itself (humans merge there), so a file publish is a commit on top of the team's
`main` that sets one file to the approved text, pushed as `hz/publish/<contract id>/<publish key, 16 hex>`
(create-only: two members racing push it once), with `Hz-Publish: <publish key>` among its trailers.
With a forge, a pull request of that branch carries the hidden marker in its body. Without one the
branch alone is the publish, reviewed and merged like any branch (`github.pull.create` needs a forge).

Onto main as the tick's fetch left it (`PublishContext.main`, else hz's copy of it, else fetched now).
Found before anything is written, in this order: the branch's pull request with the marker, the
branch with the trailer (a pull request missing for it is opened then), or `main` already holding the
exact text at the path (a merged and deleted publish branch, or the draft's own merge wrote it).
Paths obey hz.repo_paths' rule for team targets: never `.git`, `.github/`, git's control files or
anything outside the repository.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from hz.gitstate import objects
from hz.gitstate.remote import TeamRemote
from hz.gitstate.transport import ZERO
from hz.repo_paths import problem
from hz.review.publish import Job, PublishContext, PublishError, contract_id, hidden_marker, same_repository

PREFIX = "hz/publish/"
TRAILER = "Hz-Publish"
FORGE_HINT = "set GITHUB_TOKEN (and HZ_GITHUB_API for GitHub Enterprise) where the tick runs"


def state_file_write(ctx: PublishContext, job: Job) -> tuple[bool, str]:
    scheme, _, path = job.target.partition(":")
    if scheme != "state":
        raise PublishError(f"'{job.target}' is no state:<path>", hint="write state:<path in the repository>")
    return _through_branch(ctx, job, path)


def pull_create(ctx: PublishContext, job: Job) -> tuple[bool, str]:
    scheme, _, rest = job.target.partition(":")
    parts = rest.split("/", 2)
    if scheme != "github" or len(parts) != 3 or not all(parts):
        raise PublishError(f"'{job.target}' names no file of a GitHub repository",
                           hint="write github:<owner>/<repo>/<path>, e.g. github:acme/site/docs/status.md")  # fmt: skip
    if ctx.forge is None:
        raise PublishError(f"no forge to open a pull request for {job.target} with", hint=FORGE_HINT)
    same_repository(ctx.forge, f"{parts[0]}/{parts[1]}", job.target)
    return _through_branch(ctx, job, parts[2])


def branch_for(draft_key: str, key: str) -> str:
    return f"{PREFIX}{contract_id(draft_key)}/{key.removeprefix('sha256:')[:16]}"


def _through_branch(ctx: PublishContext, job: Job, path: str) -> tuple[bool, str]:
    if (refusal := problem(path, "team-target")) is not None:
        raise PublishError(f"publish path {path!r} {refusal.reason}", hint=refusal.hint)
    branch = branch_for(ctx.draft_key, job.key)
    if ctx.forge is not None and (pull := ctx.forge.pull_for_branch(branch)) is not None:
        if job.marker in pull.body:
            return False, job.text
        raise PublishError(f"pull request #{pull.number} of {branch} is not this publish's (no marker in its body)")
    remote = _remote(ctx)
    ref = f"refs/heads/{branch}"
    wrote = False
    tip = remote.tips([ref])[ref]
    if tip is None:
        tip, wrote = _push(ctx, job, remote, ref, path)
        if tip is None:  # main holds the text already: nothing to change
            return False, job.text
    else:
        remote.bring({ref: tip})
    if _trailer(remote.repo, tip) != job.key:
        raise PublishError(f"branch {branch} exists and is not this publish's (no {TRAILER}: {job.key} trailer)")
    if ctx.forge is not None:  # the branch without its pull request: a crash came between the two
        title = f"hz: publish {ctx.output} of {ctx.title or contract_id(ctx.draft_key)}"
        body = f"The approved `{ctx.output}` ({ctx.draft_key}), published to `{path}`.\n\n{hidden_marker(job.key)}\n"
        ctx.forge.create_pull(branch, base=ctx.base, title=title, body=body)
        wrote = True
    return wrote, job.text


def _push(ctx: PublishContext, job: Job, remote: TeamRemote, ref: str, path: str) -> tuple[str | None, bool]:
    """Push the publish commit as a new branch: (its tip, whether this push made it), or (None, False)
    when `main` already has the text at `path`."""
    base = f"refs/heads/{ctx.base}"
    main = ctx.main or objects.resolve(remote.repo, remote.tracking(base)) or remote.current(base)
    if main is None:
        raise PublishError(f"the remote {remote.label} has no branch {ctx.base} to publish onto")
    repo = remote.repo
    data = job.text.encode("utf-8")
    tree: Any = repo[main].tree
    if _blob_at(repo, tree, path) == data:
        return None, False
    files = {path: data}
    message = f"hz: publish {ctx.output} to {path}\n\n{TRAILER}: {job.key}\nHz-Draft: {ctx.draft_key}\n"
    commit = objects.make_commit(repo, objects.write_tree(repo, tree.id, files), [main], message, datetime.now(UTC))
    pushed = remote.git.push(remote.remote, {ref: commit}, {ref: ZERO})
    if pushed.ok:
        objects.set_ref(repo, remote.tracking(ref), commit)
        return commit, True
    tip = remote.tips([ref])[ref]  # someone pushed it first: theirs is checked like a found one
    if tip is None:
        raise PublishError(f"the remote refused the publish branch {ref.removeprefix('refs/heads/')}",
                           hint="hz tries again at the next tick")  # fmt: skip
    remote.bring({ref: tip})
    return tip, False


def _remote(ctx: PublishContext) -> TeamRemote:
    from hz.review.sync import team_remote

    if ctx.remote is not None:
        return TeamRemote(ctx.root, ctx.remote, ctx.environ)
    return team_remote(ctx.root, ctx.environ) or TeamRemote(ctx.root, "origin", ctx.environ)


def _blob_at(repo: Any, tree: Any, path: str) -> bytes | None:
    """The file at `path` in `tree`; a folder or link there is refused (a publish writes regular files)."""
    try:
        entry = tree[path]
    except KeyError:
        return None
    if entry.filemode not in (objects.BLOB_MODE, 0o100755):
        raise PublishError(f"{path} on main is a folder or a link, not a file hz may publish to")
    return bytes(repo[entry.id].data)


def _trailer(repo: Any, commit: str) -> str | None:
    """The `Hz-Publish` trailer of a commit's message (its last paragraph), or None."""
    message = str(repo[commit].message).strip()
    last = message.rsplit("\n\n", 1)[-1]
    for line in last.splitlines():
        name, sep, value = line.partition(":")
        if sep and name.strip() == TRAILER:
            return value.strip()
    return None
