"""`file:<path or glob>`: files of the repository, as canonical text per path.

Paths are relative to the repository root (an absolute path must lie inside it). Nothing outside the
root is ever read: `..` is refused, and so is any match whose real path (symlinks followed) leaves the
root. `.git/` is never matched. Facets: `text` (path -> canonical text; a file that is not UTF-8 is
represented by its byte fingerprint) and `paths` (the sorted matched paths).
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath
from typing import Any

from hz.canonical import fingerprint_bytes
from hz.sources.base import FetchContext, Fetched, SourceError, SourceSpec, no_query
from hz.sources.canonical import canonical_text
from hz.sources.window import Window

REMOTE = False
FACETS = ("text", "paths")
_GLOB_CHARS = frozenset("*?[")


def fetch(spec: SourceSpec, ctx: FetchContext) -> Fetched:
    no_query(spec)
    if ctx.root is None:
        raise SourceError("bad-source", f"{spec.uri} needs a repository", hint="run hz inside the repository")
    root = ctx.root.resolve()
    pattern = _relative(spec, root)
    files = _matches(spec, root, pattern)
    return Fetched({path: _text(root / path) for path in files})


def build(spec: SourceSpec, records: Any, window: Window) -> dict[str, Any]:
    return {"text": dict(sorted(records.items())), "paths": sorted(records)}


def _relative(spec: SourceSpec, root: Path) -> str:
    raw = spec.target.strip()
    if not raw:
        raise SourceError("bad-source", f"{spec.uri} names no path", hint="write file:<path> or file:<glob>")
    path = Path(raw)
    if path.is_absolute():
        try:
            path = path.relative_to(root)
        except ValueError:
            raise _outside(spec) from None
    if ".." in PurePosixPath(path.as_posix()).parts:
        raise _outside(spec)
    return path.as_posix()


def _matches(spec: SourceSpec, root: Path, pattern: str) -> list[str]:
    if _GLOB_CHARS.isdisjoint(pattern):
        candidate = root / pattern
        if not candidate.exists():
            raise SourceError("not-found", f"{spec.uri}: no such file in the repository")
        _inside(spec, root, candidate)
        if not candidate.is_file():
            raise SourceError("bad-source", f"{spec.uri} is not a file", hint="use a glob such as dir/*.md")
        return [pattern]
    found: list[str] = []
    for candidate in root.glob(pattern):
        relative = candidate.relative_to(root)
        if relative.parts and relative.parts[0] == ".git":
            continue
        _inside(spec, root, candidate)
        if candidate.is_file():
            found.append(relative.as_posix())
    return sorted(found)


def _inside(spec: SourceSpec, root: Path, candidate: Path) -> None:
    real = candidate.resolve()
    if real != root and root not in real.parents:
        raise _outside(spec)


def _outside(spec: SourceSpec) -> SourceError:
    return SourceError(
        "outside-repository",
        f"{spec.uri} reaches outside the repository",
        hint="file: sources read only files inside the repository root (no '..', no symlinks out)",
    )


def _text(path: Path) -> str:
    data = path.read_bytes()
    try:
        return canonical_text(data.decode("utf-8"))
    except UnicodeDecodeError:
        return f"binary {fingerprint_bytes(data)}"
