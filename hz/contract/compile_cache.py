"""Compile results kept in a file between processes: what lets an Actions run adopt 1,000 contracts cheaply.

Every GitHub Actions run of the tick starts from an empty `$HZ_HOME` and adopts every team contract on
main; compiling them (YAML, Markdown, validation, fingerprints) is two thirds of what that costs. The
generated tick workflow therefore names a folder in `HZ_COMPILE_CACHE` and keeps it between runs with the
Actions cache, keyed by a hash of `workflows/` (main's contracts) and of the pinned hz. A tick inside
`kept_in` looks each compile up there first and writes the file back when it compiled something new.

What makes a hit correct does not rest on the Actions key:
- an entry is found by a hash of everything a compile depends on (the text with its defaults applied,
  the namespace), never by a file name or a commit;
- the file is for one hz code only: its first line holds a fingerprint of hz's own source files, where
  they are installed, the interpreter, the time zone database and the versions of the libraries a
  compile uses, and a file of another code is read as empty;
- each entry is validated when it is used (`hz.contract.plain.from_plain`); one that does not validate is
  compiled again, and a line that does not parse is dropped, never a crash.
The file is as trusted as the workflow runs that write it: GitHub keeps caches per branch, and the ones a
run on main reads were written by runs on main, whose token can push to hz/state anyway
(docs/decisions.md, "Issue 22: the compile cache"); a file of another user, or one others may write, is
not read. It holds the entries a run that ended well used, no more: it stays the size of main's contracts
(and the versions their history still counts), not of every text ever seen.
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import re
from collections.abc import Iterator, Mapping
from contextvars import ContextVar
from pathlib import Path
from typing import Any

ENV = "HZ_COMPILE_CACHE"
FILE = "compiled.jsonl"
FORMAT = "hz-compiled/1"
# Far above 1,000 contracts (~4 KB each): a larger file is not read, and lines past the last entry that
# counts are not looked at (parsing costs ~25 ms a MB and as much again in memory, and a line of junk
# costs its parse however short it is).
MAX_BYTES = 64 * 1024 * 1024
MAX_ENTRIES = 100_000
_LIBRARIES = ("pydantic", "pydantic-core", "ruamel.yaml", "markdown-it-py", "rfc8785", "croniter", "orjson", "tzdata")


class Kept:
    """The file's entries by key, what this block used or added, and how often it hit and missed. (A plain
    class: every tick imports this module, and an idle one imports no `dataclasses`.)"""

    def __init__(
        self, folder: Path, code: str, entries: dict[str, Any], lines: dict[str, bytes] | None = None,
        changed: bool = False,
    ) -> None:  # fmt: skip
        self.folder = folder
        self.code = code  # the fingerprint of the code that reads (and writes) the file
        self.entries = entries  # key -> the plain data of its result
        # key -> its line (as read, or as recorded here), one for each entry: orjson reads 1,024 levels but
        # writes 254, so data read from the file is written back as read, never encoded again
        self.lines: dict[str, bytes] = lines or {}
        self.used: dict[str, bytes] = {}  # key -> its line, for the file written back
        self.hits = self.misses = 0
        self.changed = changed  # an entry added or dropped, or the file was of another code


_ACTIVE: ContextVar[Kept | None] = ContextVar("hz_compile_cache", default=None)


@contextlib.contextmanager
def kept_in(environ: Mapping[str, str]) -> Iterator[Kept | None]:
    """Compiles inside look up and add to `$HZ_COMPILE_CACHE/compiled.jsonl` (nothing when it is unset);
    the file is written back at the end when something changed. A block inside another shares it.

    Only a block that ends well and compiled something drops the entries it did not use: the Actions
    cache saves a key once, so a file pruned by a run that failed half way would cost every later run
    with the same contracts the compiles that run never got to."""
    folder = environ.get(ENV, "")
    active = _ACTIVE.get()
    code = "" if active is not None or not folder else code_fingerprint()
    if not code:  # unset, inside another block, or an hz of no files to fingerprint (nothing to trust)
        yield active
        return
    kept = _read(Path(folder), code)
    token = _ACTIVE.set(kept)
    whole = False
    try:
        yield kept
        whole = bool(kept.used)
    finally:
        _ACTIVE.reset(token)
        if not whole:  # cut short, or compiled nothing: what it did not get to is not known unused
            for key in kept.entries.keys() - kept.used.keys():
                kept.used[key] = kept.lines[key]
        if kept.changed or kept.used.keys() != kept.entries.keys():
            _write(kept)


def key_of(text: str, namespace: str, defaults: str | None) -> str:
    """What a compile depends on, hashed: the text, the namespace and the defaults (as `repr`), each with its
    length first (no two different triples run together into the same bytes)."""
    digest = hashlib.sha256()
    for part in (namespace, "-" if defaults is None else f"+{defaults}", text):
        encoded = part.encode("utf-8", "surrogatepass")
        digest.update(len(encoded).to_bytes(8, "big") + encoded)
    return digest.hexdigest()


def lookup(key: str, path: Path) -> Any | None:
    """The kept result for `key` labelled `path` (a `LoadResult`), None outside a block or on a miss."""
    kept = _ACTIVE.get()
    if kept is None:
        return None
    plain = kept.entries.get(key)
    if plain is None:
        kept.misses += 1
        return None
    from hz.contract.plain import PlainInvalid, from_plain

    try:
        result = from_plain(plain, path)
    except PlainInvalid:  # damaged, or written by a hand: compiled again, and the file rewritten
        del kept.entries[key], kept.lines[key]
        kept.changed = True
        kept.misses += 1
        return None
    kept.used[key] = kept.lines[key]
    kept.hits += 1
    return result


def record(key: str, result: Any) -> None:
    """Keep a fresh compile's result (inside a block; nothing outside). One that JSON cannot hold (a lone
    surrogate in a text read from no file) is left out: it is compiled again next time, nothing worse."""
    kept = _ACTIVE.get()
    if kept is None:
        return
    from hz.contract.plain import to_plain

    plain = to_plain(result)
    try:
        kept.used[key] = kept.lines[key] = _line(key, plain)
    except (TypeError, ValueError):  # orjson's encode error is a TypeError
        return
    kept.entries[key] = plain  # found again by a later compile of this block
    kept.changed = True


def _line(key: str, plain: Any) -> bytes:
    import orjson

    return orjson.dumps([key, plain])


def code_fingerprint() -> str:
    """hz's files, where they are, the interpreter and the libraries' versions: a change of any may change
    what a compile gives. Empty when hz has no files to read (imported from a zip archive): no fingerprint
    then tells one version from the next."""
    import sys
    import unicodedata
    from importlib import metadata

    import hz

    files = _installed_record() or _sources()
    if files is None:
        return ""
    digest = hashlib.sha256(FORMAT.encode())
    digest.update(files)
    # Where hz is installed: hints name its files (the JSON Schema). The interpreter: its Unicode data
    # normalizes every text (NFC).
    location = str(Path(hz.__file__).resolve().parent)
    digest.update(f"{location}\0{sys.version}\0{unicodedata.unidata_version}\0".encode("utf-8", "surrogateescape"))
    digest.update(_zones())
    for library in _LIBRARIES:
        try:
            digest.update(f"{library}=={metadata.version(library)}\0".encode())
        except metadata.PackageNotFoundError:
            digest.update(f"{library}: none\0".encode())
    return digest.hexdigest()


def _zones() -> bytes:
    """Where the time zone database is looked up, and each place's version (the first line of its
    `tzdata.zi`): a schedule's zone is valid when that database knows it, and a runner image's database
    gains zones. Only a valid entry is validated again when used; a refusal would outlive the update."""
    import zoneinfo

    found = []
    for place in zoneinfo.TZPATH:
        try:
            with open(Path(place) / "tzdata.zi", "rb") as handle:
                found.append(f"{place}\0".encode("utf-8", "surrogateescape") + handle.readline(128))
        except OSError:
            found.append(f"{place}\0-".encode("utf-8", "surrogateescape"))
    return b"\0".join(found) + b"\0"


def _installed_record() -> bytes | None:
    """The RECORD pip wrote when it installed hz from a wheel (an Actions run's install): every file of the
    package with its hash, so one small read stands for reading them all. None for an editable install
    (a checkout's: its RECORD names no module) or when the hz imported is not the one installed."""
    from importlib import metadata

    import hz

    try:
        found = metadata.distribution("hz")
        record = found.read_text("RECORD")
        installed = Path(str(found.locate_file("hz/__init__.py")))
    except (metadata.PackageNotFoundError, OSError, ValueError):
        return None
    if not record or "hz/__init__.py," not in record or installed.resolve() != Path(hz.__file__).resolve():
        return None
    return record.encode("utf-8", "surrogateescape")


def _sources() -> bytes | None:
    """Every source file of the imported hz, named and hashed (a checkout's hz, as the tests run it)."""
    import hz

    digest = hashlib.sha256()
    package = Path(hz.__file__).parent
    if not (package / "__init__.py").is_file():  # inside an archive: no file to read
        return None
    for source in sorted(package.rglob("*.py")):
        try:  # not a regular file: an editor's lock (`.#x.py`, a link to nowhere), a FIFO never waited on
            content = source.read_bytes() if source.is_file() else b"\0-"
        except OSError:
            content = b"\0-"
        digest.update(str(source.relative_to(package)).encode("utf-8", "surrogateescape") + b"\0" + content + b"\0")
    return digest.digest()


def _read(folder: Path, code: str) -> Kept:
    import orjson

    from hz.fsio import read_own

    # a file another user put in a folder they share (a self-hosted runner's /tmp) is their word, not ours
    data = read_own(folder / FILE, MAX_BYTES, mine=True)
    header = _header(code) + b"\n"
    if not data or not data.startswith(header):
        return Kept(folder, code, {}, changed=bool(data))
    entries: dict[str, Any] = {}
    read: dict[str, bytes] = {}
    # one line at a time, empty ones skipped by the scanner: a file of millions of lines is never a list
    lines = re.compile(rb"[^\n]+").finditer(data, len(header))
    dropped = False
    for found in itertools.islice(lines, MAX_ENTRIES):
        line = found.group()
        try:
            key, plain = orjson.loads(line)
        except (orjson.JSONDecodeError, TypeError, ValueError):
            dropped = True  # a line cut short or written by hand: that one entry is compiled again
            continue
        if isinstance(key, str) and isinstance(plain, dict):
            entries[key], read[key] = plain, line
        else:
            dropped = True
    dropped |= next(lines, None) is not None  # lines past the last that counts: the file is rewritten
    return Kept(folder, code, entries, lines=read, changed=dropped)


def _header(code: str) -> bytes:
    import orjson

    return orjson.dumps({"format": FORMAT, "code": code})


def _write(kept: Kept) -> None:
    """The entries this block used, in one atomic replace: a file of 0600 in the folder, made 0700 when
    missing. A folder that exists keeps its mode (HZ_COMPILE_CACHE may name one others use: the workspace,
    /tmp). Nothing is fsynced: a file a crash cut short is read line by line, each line checked. A folder
    that cannot be written costs the next run its compiles, nothing else: the tick never fails on it."""
    import os
    import tempfile

    from hz.errors import HzError
    from hz.fsio import FILE_MODE, private_dir

    lines = [_header(kept.code), *(line for _, line in sorted(kept.used.items()))]
    with contextlib.suppress(OSError, HzError):
        if not kept.folder.is_dir():
            private_dir(kept.folder)
        fd, temporary = tempfile.mkstemp(prefix=f".{FILE}.", suffix=".tmp", dir=kept.folder)
        try:
            os.fchmod(fd, FILE_MODE)
            with os.fdopen(fd, "wb") as handle:
                handle.write(b"\n".join(lines) + b"\n")
            os.replace(temporary, kept.folder / FILE)  # a link or a FIFO in its place is replaced, not followed
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
            raise


def active() -> bool:
    """Whether compiles here are looked up in a file (inside `kept_in` with `HZ_COMPILE_CACHE` set)."""
    return _ACTIVE.get() is not None
