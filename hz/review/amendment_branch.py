"""An agent's amendment of a team contract on its review branch, `hz/draft/<contract id>/contract`.

What the branch holds: the contract file's own text, changed. An agent reads and proposes its contract
self-contained, the directory's `_defaults.yaml` merged into the frontmatter (`hz.heinzel.adopt`); put
on the branch as it is, the pull request would show every default as an addition. So `file_text`
takes the file on main and changes only what the agent changed: its body, and the frontmatter keys
whose value differs from what the agent was shown (a key left as the defaults made it stays as the
file has it, or absent). An unchanged frontmatter keeps the file's own lines, comments and quoting.

When its review is over (`settled`): main holds the amendment (the branch's tip merged, or its text
at the contract's path on main: merge, rebase, squash, edited on the branch and then merged). Then the
tick's one push deletes the branch (`hz.review.draft_push.decided`). A branch whose pull request was
closed, or that main overtook with another change of the file, stays for a person to close: deleting
it would end a review someone may still be having. A review branch carries no `draft.placed` on
hz/state, so nothing is recorded there for it.
"""

from __future__ import annotations

import io
from collections.abc import Mapping
from pathlib import Path
from typing import Any

OUTPUT = "contract"  # the output name of an amendment's branch


def file_text(root: Path, rev: str, path: str, proposed: str) -> str:
    """`proposed` (self-contained) written as the file at `path` of `rev` changed; `proposed` itself when
    that file or its frontmatter cannot be read (the branch then shows the whole text)."""
    from hz.contract import text as texts
    from hz.contract.yamlload import YamlProblem, load_mapping

    own_text, defaults = _at(root, rev, path)
    if own_text is None:
        return proposed
    own, new = texts.split_frontmatter(texts.normalize(own_text)), texts.split_frontmatter(texts.normalize(proposed))
    if own is None or new is None:
        return proposed
    try:
        own_front, new_front = load_mapping(own.yaml), load_mapping(new.yaml)
    except YamlProblem:
        return proposed
    shown = _shown(dict(own_front), defaults)
    normal = texts.normalize(own_text)
    if _plain(new_front) == _plain(shown) and normal.endswith(own.body):  # the body alone changed:
        return normal[: len(normal) - len(own.body)] + new.body  # the file's own frontmatter lines stay
    return _join(_dump(_unmerged(dict(own_front), shown, dict(new_front))), new.body)


def _join(frontmatter: str, body: str) -> str:
    return f"---\n{frontmatter if frontmatter.endswith(chr(10)) else frontmatter + chr(10)}---\n{body}"


def _shown(own: dict[str, Any], defaults: Mapping[str, Any] | None) -> dict[str, Any]:
    from hz.contract.load import apply_defaults

    return apply_defaults(own, defaults)


def _unmerged(own: dict[str, Any], shown: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
    """The file's frontmatter with the agent's changes: per key (and per key of `hz:`), the agent's value
    where it differs from what it was shown, else the file's own (absent stays absent)."""
    out: dict[str, Any] = {}
    for key, value in new.items():
        if key == "hz" and isinstance(value, dict) and isinstance(shown.get("hz"), dict):
            own_hz = own.get("hz")
            out["hz"] = _unmerged(own_hz if isinstance(own_hz, dict) else {}, dict(shown["hz"]), dict(value))
        elif key in shown and _plain(shown[key]) == _plain(value):
            if key in own:
                out[key] = own[key]
        else:
            out[key] = value
    return out


def _plain(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


def _dump(data: Mapping[str, Any]) -> str:
    from ruamel.yaml import YAML

    yaml = YAML(typ="safe", pure=True)
    yaml.default_flow_style = False
    yaml.sort_base_mapping_type_on_output = False  # type: ignore[assignment]
    out = io.StringIO()
    yaml.dump(_plain(data), out)
    return out.getvalue()


def _at(root: Path, rev: str, path: str) -> tuple[str | None, Mapping[str, Any] | None]:
    """The file's text at `rev` and the `hz:` defaults of its folder there (None when unreadable)."""
    import pygit2

    from hz.heinzel.main_versions import DEFAULTS, parse_defaults

    repo = pygit2.Repository(str(root))
    try:
        tree: Any = repo.revparse_single(rev).peel(pygit2.Commit).tree
        blob = _blob(repo, tree, path)
        folder = path.rpartition("/")[0]
        defaults = _blob(repo, tree, f"{folder}/{DEFAULTS}" if folder else DEFAULTS)
        text = None if blob is None else blob.decode("utf-8")
        return text, None if defaults is None else parse_defaults(defaults)
    except (KeyError, ValueError, UnicodeDecodeError, pygit2.GitError):
        return None, None
    finally:
        repo.free()


def _blob(repo: Any, tree: Any, path: str) -> bytes | None:
    try:
        entry = tree[path]
    except KeyError:
        return None
    found = repo[entry.id]
    return bytes(found.data) if found.type_str == "blob" else None


def settled(remote: Any, main: str | None, branch: Any) -> bool:
    """Is the review of this amendment branch (a `hz.review.sync.DraftBranch`) over, as `main` stands?
    Only an amendment branch opens the repository (`remote.repo`): the idle tick's other branches cost
    nothing here."""
    if main is None or branch.output != OUTPUT or getattr(branch, "slug", ""):  # a keyed branch is a draft's
        return False
    import pygit2

    repo = remote.repo
    try:
        tip, head = repo[branch.commit], repo[main]
        if tip.id == head.id or repo.descendant_of(head.id, tip.id):
            return True  # merged, or fast-forwarded
        base_id = repo.merge_base(tip.id, head.id)
        if base_id is None:
            return False
        base = repo[base_id]
        changed = [d.delta.new_file.path for d in repo.diff(base.tree, tip.tree)]
        if not changed:
            return False
        # its text is on main: squashed, rebased, or merged after edits on the branch
        return [_entry(head.tree, path) for path in changed] == [_entry(tip.tree, path) for path in changed]
    except (KeyError, ValueError, pygit2.GitError):
        return False


def _entry(tree: Any, path: str) -> str | None:
    try:
        return str(tree[path].id)
    except KeyError:
        return None


def any_settled(remote: Any, view: Any) -> bool:
    """Whether some amendment branch in the tick's view is to be deleted (work for an idle tick)."""
    if view is None:
        return False
    return any(settled(remote, view.main, branch) for branch in view.drafts.values())
