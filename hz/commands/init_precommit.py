"""`hz init`'s entry in `.pre-commit-config.yaml`: created, or appended to the team's own file.

The team's file is theirs: hz only ever appends its entry after the last line, so every line already
there stays byte for byte. It does so only where an append is sure to land in the `repos:` list (the
list is the file's last key, in block style); any other shape is left alone with a note, and the
result is parsed again before it is written.
"""

from __future__ import annotations

import os
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hz.commands.init_files import PRE_COMMIT_ENTRY, PRE_COMMIT_HEADER, PRE_COMMIT_HOOK_IDS

NAME = ".pre-commit-config.yaml"
_HINT = "add hz's hooks by hand: see `hz init`'s entry in the README's team guide"


@dataclass(frozen=True)
class Outcome:
    verb: str  # created | updated | kept
    note: str | None = None  # why a file was kept without hz's hooks


def add_hooks(root: Path) -> Outcome:
    """Create the config with hz's hooks, append them to one without, or keep it as it is."""
    from hz.commands.init import create_new
    from hz.textfile import UnreadableFile, read_text_file, replace_text_file

    path = root / NAME
    if not os.path.lexists(path):
        return Outcome("created" if create_new(path, PRE_COMMIT_HEADER + PRE_COMMIT_ENTRY) else "kept")
    if path.is_symlink():  # appending would copy what the link points at into the repository
        return Outcome("kept", f"{NAME} is a link; {_HINT}")
    try:
        text = read_text_file(path, hint=_HINT)
    except UnreadableFile as exc:
        return Outcome("kept", f"{exc.message}; {_HINT}")
    wanted = appended(text)
    if wanted is None:
        return Outcome("kept")
    if isinstance(wanted, Unsupported):
        return Outcome("kept", f"{NAME}: {wanted.why}; {_HINT}")
    replace_text_file(path, wanted, mode=os.stat(path).st_mode & 0o777, hint=_HINT)
    return Outcome("updated")


@dataclass(frozen=True)
class Unsupported:
    why: str


def appended(text: str) -> str | Unsupported | None:
    """`text` with hz's entry appended; None when it already lists hz's hooks."""
    from ruamel.yaml.comments import CommentedSeq

    document = _load(text)
    if isinstance(document, Unsupported):
        return document
    if document is None:  # empty, or only comments
        head = text if not text or text.endswith("\n") else text + "\n"
        return _checked(head + PRE_COMMIT_HEADER + PRE_COMMIT_ENTRY)
    if not isinstance(document, dict) or "repos" not in document:
        return Unsupported("it has no top-level `repos:` list")
    repos = document["repos"]
    if _has_hooks(repos):
        return None
    if list(document)[-1] != "repos":
        return Unsupported("`repos:` is not its last key, so an appended entry would not land in it")
    if repos is None:
        dash = 2
    elif isinstance(repos, CommentedSeq) and repos and not repos.fa.flow_style():
        line = repos.lc.item(0)[0]
        dash = text.splitlines()[line].index("-")
    else:
        return Unsupported("`repos:` is not a block list")
    head = text if text.endswith("\n") else text + "\n"
    return _checked(head + textwrap.indent(textwrap.dedent(PRE_COMMIT_ENTRY), " " * dash))


def _load(text: str) -> Any:
    from ruamel.yaml import YAML
    from ruamel.yaml.error import YAMLError

    try:
        return YAML(typ="rt").load(text)
    except YAMLError as exc:
        return Unsupported(f"not YAML hz can read ({type(exc).__name__})")


def _has_hooks(repos: Any) -> bool:
    if not isinstance(repos, list):
        return False
    hooks = [h for r in repos if isinstance(r, dict) for h in (r.get("hooks") or []) if isinstance(h, dict)]
    return any(h.get("id") in PRE_COMMIT_HOOK_IDS for h in hooks)


def _checked(text: str) -> str | Unsupported:
    """`text` when it parses and lists hz's hooks: the last guard before the team's file is replaced."""
    document = _load(text)
    if isinstance(document, dict) and _has_hooks(document.get("repos")):
        return text
    return Unsupported("appending hz's entry would not give a valid list of repositories")
