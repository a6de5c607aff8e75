"""`contract:[<ns>/]<name>[#<facet>]` — another contract's output, as approved on `main` or as last drafted.

The upstream contract is found by `hz.contract.refs.resolve_reference`, the function validation uses;
the output read is the first (by name) whose `facets` hold the requested facet (or its first output
when no facet is named), and its target must be `state:<path>`. A target with `{slot…}` placeholders
matches every path of that shape; the greatest such path in sort order is read, which is the newest for
the ISO-style dates these templates use (`%G-W%V`, `%Y-%m-%d`).

- `stage: published` reads the file from the tip of `main` (else `master`): approved truth only. Where
  the repository keeps team state (`[state]`), that is the remote's `main` as the tick last fetched it
  (`hz.review.sync`), so a merge on the forge counts with no `git pull`.
- `stage: draft` reads a team contract's pending draft from the newest `hz/draft/…` branch (newest tip
  commit, then name), the member's own or the remote's as fetched, whose file differs from `main`.
- A personal contract drafts and approves in the working tree, so both stages read it there: the
  greatest matching file whose first line is a draft tag (`draft`, tag line left out) or is not one
  (`published`).

Facets are split by headings: a `## <facet>` or `#### <facet>` line (the name compared with case,
blanks and hyphens folded to `_`) starts a facet, which runs to the next facet heading. A facet the file
lacks is reported as not found rather than read as empty.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from hz.repo_paths import fill_slot
from hz.sources.base import FetchContext, Fetched, SourceError, SourceSpec, no_query
from hz.sources.canonical import canonical_text
from hz.sources.window import Window

REMOTE = False
FACETS: tuple[str, ...] = ()  # whatever the upstream output declares
_HEADING = re.compile(r"^(#{2}|#{4})\s+(.+?)\s*#*\s*$")
_PLACEHOLDER = re.compile(r"\{slot(?::[^}]*)?\}")


def fetch(spec: SourceSpec, ctx: FetchContext) -> Fetched:
    no_query(spec)
    import pygit2

    if ctx.root is None:
        raise SourceError("bad-source", f"{spec.uri} needs a repository", hint="run hz inside the repository")
    qualified, facet, path_template, facets, scope = _target(spec, ctx)
    if scope == "personal":
        text, where = _read_worktree(ctx.root, spec, path_template, draft=spec.stage == "draft")
    else:
        repo = pygit2.Repository(str(ctx.root))
        try:
            text, where = _read(repo, spec, path_template, _fetched(ctx), Upstream(qualified, ctx.slot))
        finally:
            repo.free()
    split = split_facets(text, facets)
    wanted = (facet,) if facet else facets
    missing = [f for f in wanted if f not in split]
    if missing:
        raise SourceError("not-found", f"{spec.uri}: {where} has no '## {missing[0]}' section")
    return Fetched({f: split[f] for f in wanted}, cursor=where)


def build(spec: SourceSpec, records: Any, window: Window) -> dict[str, Any]:
    return dict(records)


def split_facets(text: str, facets: tuple[str, ...]) -> dict[str, str]:
    """Facet name -> canonical text under its `##`/`####` heading."""
    names = {_fold(f): f for f in facets}
    found: dict[str, list[str]] = {}
    current: str | None = None
    for line in canonical_text(text).split("\n"):
        heading = _HEADING.match(line)
        if heading and _fold(heading.group(2)) in names:
            current = names[_fold(heading.group(2))]
            found.setdefault(current, [])
            continue
        if current is not None:
            found[current].append(line)
    return {name: canonical_text("\n".join(lines)) for name, lines in found.items()}


def _fold(name: str) -> str:
    return re.sub(r"[\s-]+", "_", name.strip().strip("`").lower())


def _target(spec: SourceSpec, ctx: FetchContext) -> tuple[str, str | None, str, tuple[str, ...], str]:
    """(qualified name, facet, target path template, its facets, scope) of the upstream output read.

    The reference is resolved by `hz.contract.refs`, the function validation uses (HZC202)."""
    from hz.contract.project import compile_repository
    from hz.contract.refs import BadReference, check_facet, resolve_reference

    compiled = compile_repository(ctx.root, ctx.environ, now=ctx.now)
    try:
        reference, qualified = resolve_reference(
            spec.uri, [(c.qualified_name, c.layer) for c in compiled.contracts], compiled.overridden
        )
    except BadReference as problem:
        code = "bad-source" if problem.kind == "form" else "not-found"
        raise SourceError(code, problem.message, hint=problem.hint) from None  # the message names the URI
    upstream = next(c for c in compiled.contracts if c.qualified_name == qualified)
    if upstream.contract is None:
        raise SourceError(
            "bad-source",
            f"{spec.uri}: the contract {qualified} does not compile",
            hint=f"hz workflow validate {upstream.path}",
        )
    facet = reference.facet or None
    try:
        check_facet(reference, qualified, upstream.contract)
    except BadReference as problem:
        raise SourceError("not-found", f"{spec.uri}: {problem.message}", hint=problem.hint) from None
    outputs = upstream.contract.frontmatter.hz.outputs
    name, output = next((n, o) for n, o in sorted(outputs.items()) if facet is None or facet in o.facets)
    target = str(output.target)
    if not target.startswith("state:"):
        raise SourceError("bad-source", f"{spec.uri}: output {name} of {qualified} is not a state: target")
    scope = str(upstream.contract.frontmatter.hz.scope)
    return qualified, facet, target.removeprefix("state:").lstrip("/"), tuple(output.facets), scope


def _fetched(ctx: FetchContext) -> tuple[str | None, str | None]:
    """(hz's copy of the remote's main as the tick's fetch left it, hz's prefix of the remote's branches),
    both None without `[state]`: then the member's own `main` is the approved truth, as for a lone user."""
    from hz.review.sync import MAIN_REFS, team_remote

    assert ctx.root is not None
    remote = team_remote(ctx.root, ctx.environ)
    if remote is None:
        return None, None
    copies = [remote.tracking(ref) for ref in MAIN_REFS]
    return next((copy for copy in copies if copy in remote.repo.references), None), remote.tracking("refs/heads/")


@dataclass(frozen=True)
class Upstream:
    """The contract a `contract:` input reads, and the reader's slot (to name the path it waits for)."""

    name: str
    slot: datetime


def _read(
    repo: Any, spec: SourceSpec, template: str, fetched: tuple[str | None, str | None], upstream: Upstream
) -> tuple[str, str]:
    copy, remote_heads = fetched
    main = repo.references[copy].peel() if copy is not None else _main(repo)
    if spec.stage == "draft":
        return _read_draft(repo, spec, template, main, remote_heads)
    path = None if main is None else _newest(main.tree, template)
    if path is None:  # nothing approved yet: the reader waits for its upstream (hz.tick.agentwork)
        where = "the repository has no main branch" if main is None else f"nothing on main at {template} yet"
        if main is not None and "{slot" in template:  # named as of the reader's slot, never as a template
            where = f"nothing on main at {fill_slot(template, upstream.slot)} (nor another slot of it) yet"
        message = f"{spec.uri}: waiting for an approved {upstream.name}: {where}"
        raise SourceError("not-found", message, waiting_for=upstream.name)
    return _blob_text(repo, main.tree, path), f"main:{path}"


def _read_draft(repo: Any, spec: SourceSpec, template: str, main: Any, remote_heads: str | None) -> tuple[str, str]:
    """The newest draft branch holding the target, the member's own and the remote's as last fetched."""
    prefixes = ["refs/heads/", *([remote_heads] if remote_heads else [])]
    candidates = []
    for ref in repo.references:
        prefix = next((p for p in prefixes if ref.startswith(p + "hz/draft/")), None)
        if prefix is None:
            continue
        tip = repo.references[ref].peel()
        path = _newest(tip.tree, template, differs_from=main.tree if main is not None else None)
        if path is not None:
            candidates.append((tip.commit_time, ref.removeprefix(prefix), tip, path))
    if not candidates:
        raise SourceError("not-found", f"{spec.uri}: no draft branch holds {template}")
    _, branch, tip, path = max(candidates, key=lambda c: (c[0], c[1]))
    return _blob_text(repo, tip.tree, path), f"{branch}:{path}"


def _read_worktree(root: Path, spec: SourceSpec, template: str, *, draft: bool) -> tuple[str, str]:
    from hz.repo_paths import Refusal, read_file
    from hz.review.drafts import Tag

    pattern, directory = _pattern(template)
    base = root / directory if directory else root
    found: list[tuple[str, str]] = []
    for path in sorted(base.rglob("*")) if base.is_dir() else []:
        relative = path.relative_to(root).as_posix()
        if not path.is_file() or path.is_symlink() or not pattern.match(relative):
            continue
        data = read_file(root, relative)  # the path rule: no folder linked into .git or out, bounded
        if isinstance(data, Refusal):
            continue
        text = data.decode("utf-8", errors="replace")
        first, _, rest = text.partition("\n")
        tagged = Tag.parse(first) is not None
        if tagged == draft:
            found.append((relative, rest if draft else text))
    if not found:
        what = "draft" if draft else "approved file"
        raise SourceError("not-found", f"{spec.uri}: no {what} in the working tree at {template}")
    relative, text = max(found)
    return text, f"worktree:{relative}"


def target_pattern(template: str) -> re.Pattern[str]:
    """The regular expression of every path a `state:` target's template names (one per slot)."""
    return _pattern(template)[0]


def _pattern(template: str) -> tuple[re.Pattern[str], str]:
    """The regular expression of a target's paths, and the literal directory they all live under."""
    pieces = _PLACEHOLDER.split(template)
    return re.compile("^" + "[^/]+".join(re.escape(p) for p in pieces) + "$"), pieces[0].rpartition("/")[0]


def _main(repo: Any) -> Any:
    for name in ("refs/heads/main", "refs/heads/master"):
        if name in repo.references:
            return repo.references[name].peel()
    return None


def _newest(tree: Any, template: str, differs_from: Any = None) -> str | None:
    pattern, directory = _pattern(template)
    paths = [p for p in _paths(tree, directory) if pattern.match(p)]
    if differs_from is not None:
        paths = [p for p in paths if _blob_id(differs_from, p) != _blob_id(tree, p)]
    return max(paths) if paths else None


def _paths(tree: Any, directory: str) -> list[str]:
    """Blob paths under `directory` (the whole tree when empty)."""
    try:
        start = tree / directory if directory else tree
    except KeyError:
        return []
    out: list[str] = []
    stack = [(start, f"{directory}/" if directory else "")]
    while stack:
        node, prefix = stack.pop()
        for entry in node:
            if entry.type_str == "tree":
                stack.append((entry, f"{prefix}{entry.name}/"))
            elif entry.type_str == "blob":
                out.append(f"{prefix}{entry.name}")
    return out


def _blob_id(tree: Any, path: str) -> Any:
    try:
        return (tree / path).id
    except KeyError:
        return None


def _blob_text(repo: Any, tree: Any, path: str) -> str:
    from hz.repo_paths import MAX_FILE_BYTES

    blob = repo[(tree / path).id]
    if blob.size > MAX_FILE_BYTES:  # committed by anyone on the team; it goes whole into a prompt
        raise SourceError("bad-source", f"{path} is larger than {MAX_FILE_BYTES // 1024} KiB", hint="split the output")
    data: bytes = blob.data
    return data.decode("utf-8", errors="replace")
