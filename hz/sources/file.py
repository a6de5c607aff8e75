"""`file:<path or glob>`: files of the repository, as canonical text per path.

Paths are relative to the repository root and obey the repository's path rule (`hz.repo_paths`): no
absolute path, no `..`, nothing in `.git`, no link that leads out of the repository or into `.git`, and
only regular files of at most `MAX_FILE_BYTES`. A single path that breaks the rule is an error. A glob
reads every file it names that keeps the rule and skips the others by name: one planted link, FIFO or
huge file never fails the whole input, and never reaches the model either. `.git` is never matched. A
glob's files together stay within `MAX_FILE_BYTES`; the ones past it are skipped by name too. Of the
skipped files the first `MAX_NAMED` are named, the rest counted. A glob never reads a file git ignores
(`hz.gitignored`: a member's `.env`, `node_modules`): it passes one by as git does, and names a link to
one; a single path may name an ignored file, but not reach one through a link.

Facets: `text` (path -> canonical text; a file that is not UTF-8 is represented by its byte fingerprint),
`paths` (the sorted paths read) and, only when a glob skipped something, `skipped` (path -> why), so an
input that skips nothing reads and fingerprints as it always did. A name that is not UTF-8 is carried
escaped (`\\xNN` per byte, `hz.sources.canonical.escaped_name`); of two files whose names read the same
that way, the second in path order is skipped, as `<name> (another file)`.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from hz.canonical import fingerprint_bytes
from hz.gitignored import ignored
from hz.repo_paths import MAX_FILE_BYTES, PathRefused, Refusal, check, problem, read_regular, walk
from hz.sources.base import FetchContext, Fetched, SourceError, SourceSpec, no_query
from hz.sources.canonical import canonical_text, escaped_name
from hz.sources.fileglob import is_glob, matching
from hz.sources.window import Window

REMOTE = False
FACETS = ("text", "paths", "skipped")
SKIPPED = "skipped"  # a record {"skipped": why} stands for a file the glob named but did not read


def fetch(spec: SourceSpec, ctx: FetchContext) -> Fetched:
    no_query(spec)
    if ctx.root is None:
        raise SourceError("bad-source", f"{spec.uri} needs a repository", hint="run hz inside the repository")
    pattern = spec.target
    refusal = problem(pattern, "input")
    if refusal is not None:
        raise _refused(spec, refusal)
    if is_glob(pattern):
        return Fetched(_glob(ctx.root, pattern))
    return Fetched({escaped_name(pattern): _one(spec, ctx.root, pattern)})


def build(spec: SourceSpec, records: Any, window: Window) -> dict[str, Any]:
    texts = {path: text for path, text in sorted(records.items()) if isinstance(text, str)}
    skipped = {path: r[SKIPPED] for path, r in sorted(records.items()) if not isinstance(r, str)}
    facets: dict[str, Any] = {"text": texts, "paths": sorted(texts)}
    return {**facets, SKIPPED: skipped} if skipped else facets


def _one(spec: SourceSpec, root: Path, path: str) -> str:
    try:
        real = check(root, path, "input")
    except PathRefused as refused:
        raise _refused(spec, refused.refusal) from None
    if not real.exists():
        raise SourceError("not-found", f"{spec.uri}: no such file in the repository")
    linked = _inside(root, real)
    if linked != path and ignored(root, [linked]):  # the path is the author's choice; a link's end is not
        raise SourceError("bad-source", f"{spec.uri}: {path} {LINKED_IGNORED.reason}", hint=LINKED_IGNORED.hint)
    data = read_regular(real, root=root)
    if isinstance(data, Refusal):
        raise SourceError("bad-source", f"{spec.uri}: {path} {data.reason}", hint=data.hint)
    return _text(data)


def _glob(root: Path, pattern: str) -> dict[str, Any]:
    """Path -> text for each file the glob names and the rule keeps; path -> {"skipped": why} for the rest.

    The files are read in path order and together stay within `MAX_FILE_BYTES`, the bound of one file:
    the input goes whole into one prompt, so a glob over many big files (a planted folder of them under
    an innocent glob) must not make hz hold, or send, more than one big file would.
    """
    records: dict[str, Any] = {}
    left = MAX_FILE_BYTES
    named, unnamed = 0, list[str]()  # skipped files: the first MAX_NAMED named, the rest counted
    found = {path: _found(root, path) for path in matching(root, pattern)}
    ends = {path: _inside(root, real) for path, real in found.items() if isinstance(real, Path)}
    local = ignored(root, [*found, *ends.values()])
    for path, real in found.items():
        if real is None or path in local:
            continue  # a link to nothing, or a file git ignores here, names no file of the repository
        if ends.get(path) in local:
            real = IGNORED
        name = escaped_name(path)
        if name in records:  # a literal `\xe9` in one name, the byte in another: the first keeps the name
            name, real = f"{name} (another file)", SAME_NAME
        data = real if isinstance(real, Refusal) else _over(real, left) or read_regular(real, root=root)
        if isinstance(data, bytes) and len(data) > left:  # it grew since it was looked at
            data = _past_total()
        if isinstance(data, bytes):
            left -= len(data)
        if isinstance(data, Refusal):
            named += 1
            if named > MAX_NAMED:
                unnamed.append(name)
                continue
        records[name] = {SKIPPED: data.reason} if isinstance(data, Refusal) else _text(data)
    if unnamed:
        records[unnamed[0]] = {SKIPPED: f"and {len(unnamed) - 1} files after it were skipped too, none read"}
    return records


def _found(root: Path, path: str) -> Path | Refusal | None:
    """Where a path the glob names leads by the rule (None: a link to nothing)."""
    real = walk(root, path, follow=True)
    if isinstance(real, Path) and not real.exists():
        return None
    if isinstance(real, Path) and real.is_dir():
        return Refusal("is a link to a folder, which a glob never enters", "name the folder itself in the glob")
    return real


def _inside(root: Path, real: Path) -> str:
    """A link-free path of the repository, relative to its root (as git names it)."""
    return real.relative_to(os.path.realpath(root)).as_posix()


def _over(real: Path, left: int) -> Refusal | None:
    """The refusal of a file that fits the bound of one file but not what the glob has left."""
    try:
        size = os.lstat(real).st_size
    except OSError:
        return None  # read_regular names the problem
    return _past_total() if left < size <= MAX_FILE_BYTES else None


def _past_total() -> Refusal:
    return Refusal(
        f"would take the glob past {MAX_FILE_BYTES // 1024} KiB for all its files together (read in path order)",
        "narrow the glob, or split the input",
    )


MAX_NAMED = 20  # skipped files named one by one; the rest are counted, so a planted folder stays one line
IGNORED = Refusal(
    "links to a file git ignores here (a member's local file, such as .env), which a glob never reads",
    "commit the file, or name it on its own",
)
SAME_NAME = Refusal(
    "has a name that is not UTF-8 and reads, escaped, as the name of a file before it",
    "rename one of the two files",
)
LINKED_IGNORED = Refusal(
    "links to a file git ignores here (a member's local file, such as .env), which hz never reads through a link",
    "name the file itself, or commit it",
)


def _refused(spec: SourceSpec, refusal: Refusal) -> SourceError:
    return SourceError("outside-repository", f"{spec.uri}: the path {refusal.reason}", hint=refusal.hint)


def _text(data: bytes) -> str:
    try:
        return canonical_text(data.decode("utf-8"))
    except UnicodeDecodeError:
        return f"binary {fingerprint_bytes(data)}"
