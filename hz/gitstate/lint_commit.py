"""The shape of one commit on `hz/state`: exactly what hz's writer makes, and a tree in the layout.

The commit is read as its raw object, not through pygit2's parsed view, because the parsed view hides
what a hand-made commit can smuggle: extra headers (`x-secret`, `gpgsig`, `mergetag`, `encoding`), a
NUL byte in the message, a second author line. hz writes exactly

    tree <id>
    parent <id>                      (none on the root commit)
    author hz <hz> <seconds> +0000
    committer hz <hz> <seconds> +0000

    hz-state: N events

and nothing else passes. The tree is walked level by level against the layout (`events/<hz id>/<xx>/
<kind>-<digest>.json`), so a folder named with a sentence or an empty folder (which `git mktree`
can make and a diff never shows) is refused; subtrees the parent commit already had are not walked again.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from hz.addresses import looks_like_address
from hz.diagnostic import Diagnostic

if TYPE_CHECKING:
    from hz.gitstate.odb import Commit, Objects, Tree

SIGNATURE = re.compile(rb"hz <hz> [0-9]{1,12} \+0000")
MESSAGE = re.compile(rb"hz-state: (?:1 event|(?:[2-9]|[1-9][0-9]{1,5}) events)\n")
ARCHIVE = re.compile(rb"hz-state: archive (?:1 event|(?:[2-9]|[1-9][0-9]{1,8}) events)\n")
"""An archive step's message (hz.gitstate.archive_lint checks the step itself)."""
ORDER = (b"tree", b"parent", b"author", b"committer")
BLOB_MODE = 0o100644
TREE_MODE = 0o040000
# the name each level of the tree may hold, and whether entries there are folders (True) or files
LEVELS: tuple[tuple[re.Pattern[bytes], bool], ...] = (
    (re.compile(rb"events|archive"), True),
    (re.compile(rb"hz-[0-9A-HJKMNP-TV-Z]{26}"), True),
    (re.compile(rb"[0-9a-f]{2}"), True),
    (re.compile(rb"[a-z]+\.[a-z]+-[0-9a-f]{24}\.json"), False),
)


@dataclass(frozen=True)
class RawCommit:
    headers: tuple[tuple[bytes, bytes], ...]  # (name, value) in order; continuation lines joined with \n
    message: bytes

    @classmethod
    def parse(cls, data: bytes) -> RawCommit:
        head, _, message = data.partition(b"\n\n")
        headers: list[tuple[bytes, bytes]] = []
        for line in head.split(b"\n"):
            if line.startswith(b" ") and headers:
                name, value = headers[-1]
                headers[-1] = (name, value + b"\n" + line[1:])
            else:
                name, _, value = line.partition(b" ")
                headers.append((name, value))
        return cls(tuple(headers), message)

    def names(self) -> tuple[bytes, ...]:
        return tuple(name for name, _ in self.headers)

    def values(self, name: bytes) -> list[bytes]:
        return [value for key, value in self.headers if key == name]


def _diag(code: str, where: str, message: str, hint: str) -> Diagnostic:
    return Diagnostic("<commit>", 1, 1, code, "error", where, message, hint)


def commit_findings(commit: Commit) -> list[Diagnostic]:
    """Everything wrong with the commit object itself (its headers, signatures and message)."""
    where = commit.oid[:12]
    raw = RawCommit.parse(commit.raw)
    found: list[Diagnostic] = []
    if len(raw.values(b"parent")) > 1:
        found.append(_diag("HZS012", where, "a merge commit", "hz/state grows by fast-forwards only"))
    if extra := [name for name in raw.names() if name not in ORDER]:
        shown = ", ".join(sorted({name.decode("ascii", "replace") for name in extra}))
        found.append(
            _diag(
                "HZS012",
                where,
                f"commit header {shown} is not hz's",
                "hz writes tree, parent, author and committer only",
            )
        )
    elif raw.names() != _expected_order(raw):
        found.append(
            _diag(
                "HZS012", where, "commit headers out of hz's order", "hz writes tree, parent, author and committer only"
            )
        )
    if not MESSAGE.fullmatch(raw.message) and not ARCHIVE.fullmatch(raw.message):
        found.append(_diag("HZS012", where, "commit message is free text", "hz writes 'hz-state: N events'"))
    found.extend(_signature_findings(raw, where))
    return found


def said_count(commit: Commit) -> int | None:
    """How many events the message of an hz-shaped commit says it adds (None: not hz's message)."""
    message = RawCommit.parse(commit.raw).message
    return int(message.split()[1]) if MESSAGE.fullmatch(message) else None


def _expected_order(raw: RawCommit) -> tuple[bytes, ...]:
    return (b"tree",) + (b"parent",) * len(raw.values(b"parent")) + (b"author", b"committer")


def _signature_findings(raw: RawCommit, where: str) -> list[Diagnostic]:
    signatures = raw.values(b"author") + raw.values(b"committer")
    if any(looks_like_address(sig.decode("utf-8", "replace")) for sig in signatures):
        return [_diag("HZS010", where, "commit signed with an e-mail address", "hz signs its commits as 'hz <hz>'")]
    if len(signatures) != 2 or not all(SIGNATURE.fullmatch(sig) for sig in signatures):
        return [
            _diag(
                "HZS012",
                where,
                "author or committer is not hz's own signature",
                "hz signs its commits as 'hz <hz>' in UTC; a member's name on hz/state is personal data",
            )
        ]
    return []


def tree_findings(objects: Objects, tree: Tree, base: Tree | None, where: str) -> list[Diagnostic]:
    """Every entry of `tree` outside the layout, skipping subtrees `base` (the parent's tree) already had."""
    return _walk(objects, tree, base, 0, "", where)


def _walk(objects: Objects, tree: Tree, base: Tree | None, depth: int, prefix: str, where: str) -> list[Diagnostic]:
    if depth == 1 and prefix == "archive/":
        return _index_findings(tree, where)
    pattern, folders = LEVELS[depth]
    found: list[Diagnostic] = []
    if len(tree) == 0 and depth > 0:  # an empty root holds nothing; an empty folder holds its name
        hint = "hz/state holds events only"
        return [Diagnostic(prefix.rstrip("/"), 1, 1, "HZS001", "error", where, "an empty folder", hint)]
    if folders:  # the subtrees to walk (those the parent did not have as they are), and the parent's beside them
        walked = [e for e in tree if e.mode == TREE_MODE and pattern.fullmatch(e.name)]
        pairs = [(e, base.get(e.name) if base is not None else None) for e in walked]
        walked = [e for e, old in pairs if old is None or old.oid != e.oid]
        olds = [old for e, old in pairs if old is not None and old.oid != e.oid and old.mode == TREE_MODE]
        objects.trees([e.oid for e in walked] + [old.oid for old in olds])
    for entry in tree:
        path = prefix + entry.text
        mode = TREE_MODE if folders else BLOB_MODE
        if not pattern.fullmatch(entry.name) or entry.mode != mode:
            what = "folder" if entry.mode == TREE_MODE else "file"
            hint = "hz/state holds only events/<hz id>/<xx>/<kind>-<digest>.json, plain files"
            found.append(Diagnostic(path, 1, 1, "HZS001", "error", where, f"a {what} outside the layout", hint))
            continue
        if not folders:
            continue
        old = base.get(entry.name) if base is not None else None
        if old is not None and old.oid == entry.oid:
            continue  # the parent commit had this very subtree, already linted
        sub_base = objects.tree(old.oid) if old is not None and old.mode == TREE_MODE else None
        subtree = objects.tree(entry.oid)
        if subtree is None:
            raise KeyError(f"tree {entry.oid[:12]} is missing")  # the hook refuses what it cannot read
        found.extend(_walk(objects, subtree, sub_base, depth + 1, path + "/", where))
    return found


def _index_findings(tree: Tree, where: str) -> list[Diagnostic]:
    """The archive's folder holds plain files: one index per period (`archive/<yyyy-mm>`) and the moved
    identities of recent days (`archive/<yyyy-mm-dd>`), nothing else."""
    from hz.gitstate.layout import DAY_NAME, PERIOD_NAME

    hint = ("archive/ holds an index file per period, archive/<yyyy-mm>, and one per recent day, "
            "archive/<yyyy-mm-dd>, written by `hz state compact`")  # fmt: skip
    if len(tree) == 0:
        return [Diagnostic("archive", 1, 1, "HZS001", "error", where, "an empty folder", hint)]
    return [
        Diagnostic(f"archive/{entry.text}", 1, 1, "HZS001", "error", where, "a file outside the layout", hint)
        for entry in tree
        if not (PERIOD_NAME.fullmatch(entry.text) or DAY_NAME.fullmatch(entry.text)) or entry.mode != BLOB_MODE
    ]
