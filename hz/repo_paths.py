"""The one rule for the paths a contract names in its repository: output targets and `file:` inputs.

Validation (HZC021, before any paid step), the act step (right before it writes) and the `file:` source
(before it reads) all ask this module, so a path validation accepts is a path the act step writes and
the source reads. A path is refused when it

- is empty, absolute, or written with NUL, a backslash, a control or an invisible formatting character;
- has a `..`, `.` or empty part (a path names its file one way: from the repository root, down);
- names `.git` in any spelling a file system may take for it (`.GIT`, `.git.`, `git~1`): the repository's
  config holds credentials and hooks, and a file written there runs commands;
- reaches, on disk, through a link out of the repository or into `.git`;
- as a target, passes through any link at all (a draft lands in the file the target names, never
  somewhere a link was planted to), or is an existing thing that is not a regular file;
- as a target, is a `.gitmodules` or `.gitattributes` (they steer git: submodule URLs and update
  commands, filter, diff and merge drivers), or for a team contract lies under `.github/` (a workflow
  drafted onto a pushed branch runs in Actions before anyone approves it).

Reading follows the same rule: regular files only, never a FIFO or a device, opened without blocking and
without following a last link, and never more than `MAX_FILE_BYTES`.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import stat
import unicodedata
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

from hz.errors import HzError

# A `file:` input goes whole into the prompt: 1 MiB of text is about 250,000 tokens, five times a turn's
# default token cap (50,000) and beyond most models' context, so a bigger file is data or a build
# artefact, not a document; the bound also caps what a hostile file can make hz hold in memory.
MAX_FILE_BYTES = 1 << 20

Role = Literal["input", "target", "team-target"]

# A fixed slot to fill `{slot}` placeholders with when a target is checked before any slot exists; the
# verdict never depends on the slot, since strftime turns directives into digits, names and separators.
SAMPLE_SLOT = datetime(2026, 1, 5, 8, 0, tzinfo=UTC)
_SLOT_RE = re.compile(r"\{slot(?::(?P<fmt>[^}]*))?\}")
_FORBIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})
_GIT_NAMES = frozenset({".git", "git~1"})
_GIT_STEERING = frozenset({".gitmodules", ".gitattributes", "gitmod~1", "gitatt~1"})
PATH_SCHEMES = frozenset({"file", "state"})  # the target schemes that name a file of the repository


@dataclass(frozen=True)
class Refusal:
    """Why a path is refused (words that follow the path) and what to write instead."""

    reason: str
    hint: str


class PathRefused(HzError):
    """A path the rule refuses; the message names the path and the reason."""

    def __init__(self, path: str, refusal: Refusal) -> None:
        super().__init__(f"{path!r} {refusal.reason}", hint=refusal.hint)
        self.path = path
        self.refusal = refusal


_INSIDE = "name a file inside the repository, relative to its root, such as docs/notes.md"


def fill_slot(target: str, slot: datetime) -> str:
    """Fill `{slot}` / `{slot:<strftime>}` placeholders of an output target."""

    def fill(match: re.Match[str]) -> str:
        fmt = match["fmt"]
        return slot.strftime(fmt) if fmt else slot.strftime("%Y-%m-%dT%H%MZ")

    return _SLOT_RE.sub(fill, target)


def folded(name: str) -> str:
    """A name as a case-insensitive file system compares it: folded, without trailing dots and spaces,
    without an NTFS stream suffix (`.git::$INDEX_ALLOCATION` is `.git` on Windows). Upper-cased first,
    as NTFS compares, where the dotless `ı` is `I`: `.gıt` is `.git` there, yet `casefold` keeps the `ı`."""
    return name.partition(":")[0].upper().casefold().rstrip(". ")


def is_git_name(name: str) -> bool:
    return folded(name) in _GIT_NAMES


def problem(path: str, role: Role) -> Refusal | None:
    """What is wrong with `path` as written, before looking at the disk; None when nothing is."""
    if not path:
        return Refusal("is empty", _INSIDE)
    if path.startswith("/") or re.match(r"^[A-Za-z]:", path):
        return Refusal("is absolute; hz reads and writes only inside the repository", _INSIDE)
    if "\\" in path or any(unicodedata.category(c) in _FORBIDDEN_CATEGORIES for c in path):
        return Refusal(
            "holds a backslash, a NUL, a control or an invisible character", "write the path with '/' and visible text"
        )
    names = path.split("/")
    if any(is_git_name(n) for n in names):
        return Refusal("names .git, which hz never reads or writes", "name a file outside .git")
    if ".." in names:
        return Refusal("goes up with '..'", _INSIDE)
    if any(n in ("", ".") for n in names):
        return Refusal("has an empty or '.' part", "write each folder once, separated by one '/'")
    return _target_problem(names, role) if role != "input" else None


def _target_problem(names: list[str], role: Role) -> Refusal | None:
    if any(folded(n) in _GIT_STEERING for n in names):
        return Refusal(
            "is a git control file (.gitmodules, .gitattributes) that changes what git runs; hz never drafts one",
            "edit it by hand in a reviewed change",
        )
    if role == "team-target" and folded(names[0]) == ".github":
        return Refusal(
            "is under .github/, where a drafted workflow would run in Actions before anyone approves it",
            "draft somewhere else; change .github/ by hand in a reviewed pull request",
        )
    return None


def target_problem(uri: str, role: Role, root: Path | None = None, slot: datetime = SAMPLE_SLOT) -> Refusal | None:
    """The problem of a `file:`/`state:` output target with its slot filled in (others are not paths)."""
    scheme, _, rest = fill_slot(uri, slot).partition(":")
    return verdict(rest, role, root) if scheme in PATH_SCHEMES else None


def verdict(path: str, role: Role, root: Path | None = None) -> Refusal | None:
    """Why the rule refuses `path` (as written, and on disk when there is a `root`), or None."""
    found = resolve(root, path, role) if root is not None else problem(path, role)
    return found if isinstance(found, Refusal) else None


def check(root: Path, path: str, role: Role) -> Path:
    """The real path of `path` under `root`, with no link left in it; PathRefused when the rule refuses it."""
    found = resolve(root, path, role)
    if isinstance(found, Refusal):
        raise PathRefused(path, found)
    return found


def resolve(root: Path, path: str, role: Role) -> Path | Refusal:
    """The real, link-free path of `path` under `root`, or why the rule refuses it."""
    refusal = problem(path, role)
    if refusal is not None:
        return refusal
    found = walk(root, path, follow=role == "input")
    if isinstance(found, Refusal) or role == "input":
        return found
    return _not_a_file(found) or found


def walk(root: Path, path: str, *, follow: bool) -> Path | Refusal:
    """Follow `path` part by part from the real root; every link must stay inside and outside .git."""
    base = Path(os.path.realpath(root))
    here = base
    names = path.split("/")
    for index, name in enumerate(names):
        here = here / name
        shown = "/".join(names[: index + 1])
        try:
            mode = os.lstat(here).st_mode
        except FileNotFoundError:
            return here.joinpath(*names[index + 1 :])  # the rest is yet to be created: nothing to follow
        except OSError as exc:
            return Refusal(f"cannot be looked at ({exc.strerror})", "check the file's permissions")
        if stat.S_ISLNK(mode):
            if not follow:
                return Refusal(f"passes through the link {shown}", "name the file itself, not a link to it")
            try:
                real = Path(os.path.realpath(here))
            except OSError as exc:  # the link changed while it was followed (realpath reads it twice)
                return Refusal(f"changed while hz followed the link {shown} ({exc.strerror})", "try again")
            refusal = _link_problem(base, real, shown)
            if refusal is not None:
                return refusal
            here = real
        elif index < len(names) - 1 and not stat.S_ISDIR(mode):
            return Refusal(f"goes through {shown}, which is not a folder", _INSIDE)
    return here


def _link_problem(base: Path, real: Path, shown: str) -> Refusal | None:
    if real != base and not real.is_relative_to(base):
        return Refusal(f"leads out of the repository through the link {shown}", "remove the link, or copy the file in")
    if any(is_git_name(n) for n in real.relative_to(base).parts):
        return Refusal(f"leads into .git through the link {shown}", "remove the link; hz never reads .git")
    return None


def _not_a_file(real: Path) -> Refusal | None:
    """Why an existing target is no file to draft over: not a regular one, or more than hz keeps to put
    back when the draft is rejected (`MAX_FILE_BYTES`)."""
    try:
        info = os.lstat(real)
    except FileNotFoundError:
        return None
    except OSError as exc:
        return Refusal(f"cannot be looked at ({exc.strerror})", "check the file's permissions")
    if not stat.S_ISREG(info.st_mode):
        return Refusal(f"is {kind_of(info.st_mode)}, not a regular file", _INSIDE)
    if info.st_size > MAX_FILE_BYTES:
        return Refusal(
            f"is larger than {MAX_FILE_BYTES // 1024} KiB, more than hz keeps to put back if the draft is rejected",
            "draft into a smaller or a new file",
        )
    return None


def kind_of(mode: int) -> str:
    """A file type in words, for messages."""
    kinds = [
        (stat.S_ISDIR, "a folder"),
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISLNK, "a link"),
    ]
    return next((words for test, words in kinds if test(mode)), "not a file")


def write_file(root: Path, path: str, data: bytes, mode: int) -> None:
    """Replace the repository file `path` with `data` atomically, never through a link.

    The rule was checked just before (`check`), but a folder can be swapped for a link between that
    check and the write (a `git checkout` of a hostile branch running meanwhile). So the write never
    names a path: each folder is opened from the one before it with `O_NOFOLLOW` (made when missing),
    the temporary file is created in the last one with `O_EXCL | O_NOFOLLOW`, and renamed over the
    file's name there. A folder that became a link fails the write (PathRefused); a last part that
    became a link is replaced by the file, never written through.
    """
    names = path.split("/")
    folder = os.open(os.path.realpath(root), os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        for index, name in enumerate(names[:-1]):
            inner = _enter(folder, name, "/".join(names[: index + 1]), path)
            os.close(folder)
            folder = inner
        _replace_in(folder, names[-1], data, mode)
    except OSError as exc:  # the folder was removed meanwhile, the disk is full, …
        raise PathRefused(
            path, Refusal(f"cannot be written ({exc.strerror})", "check the folder, then try again")
        ) from None
    finally:
        os.close(folder)


def remove_file(root: Path, path: str) -> None:
    """Remove the repository file `path`, reached as `write_file` reaches it: never through a link."""
    names = path.split("/")
    folder = os.open(os.path.realpath(root), os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        for index, name in enumerate(names[:-1]):
            try:
                inner = os.open(name, _FOLDER, dir_fd=folder)
            except OSError as exc:
                shown = "/".join(names[: index + 1])
                refusal = Refusal(f"cannot be removed: {shown} is no longer a plain folder ({exc.strerror})", _INSIDE)
                raise PathRefused(path, refusal) from None
            os.close(folder)
            folder = inner
        os.unlink(names[-1], dir_fd=folder)
    finally:
        os.close(folder)


def _enter(parent: int, name: str, shown: str, path: str) -> int:
    """The folder `name` of the open folder `parent`, opened without following a link; made when missing."""
    try:
        with contextlib.suppress(FileExistsError):
            os.mkdir(name, 0o777, dir_fd=parent)  # the user's umask decides, as for any folder they make
        return os.open(name, _FOLDER, dir_fd=parent)
    except OSError as exc:
        refusal = Refusal(f"cannot be written: {shown} is no longer a plain folder ({exc.strerror})", _INSIDE)
        raise PathRefused(path, refusal) from None


def _replace_in(folder: int, name: str, data: bytes, mode: int) -> None:
    temporary = f".{name}.{os.urandom(6).hex()}.tmp"
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, mode, dir_fd=folder)
    try:
        with os.fdopen(fd, "wb") as handle:
            os.fchmod(handle.fileno(), mode)  # the mode exactly, whatever the umask
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, name, src_dir_fd=folder, dst_dir_fd=folder)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary, dir_fd=folder)
        raise
    os.fsync(folder)


def read_file(root: Path, path: str, limit: int = MAX_FILE_BYTES) -> bytes | Refusal:
    """The bytes of the repository's file `path` as the rule reads an input: through links only while
    they stay inside the repository and out of `.git`, a regular file, at most `limit` bytes.

    For the files hz reads on its own account (a contract, `hz.toml`, the playbook): a committed link
    must not turn one into `.git/config`, a file elsewhere on the machine, a FIFO or `/dev/zero`.
    """
    found = resolve(root, path, "input")
    return found if isinstance(found, Refusal) else read_regular(found, limit, root=root)


def read_regular(real: Path, limit: int = MAX_FILE_BYTES, *, root: Path | None = None) -> bytes | Refusal:
    """The bytes of a regular file at a link-free path, at most `limit` of them.

    The type is checked before opening (opening a device can have effects), the open never blocks (a
    FIFO swapped in meanwhile cannot hang hz) and never follows a last link, and the open file is
    checked again, so what is read is the regular file that was looked at. With the repository `root`
    (`real` lies under its real path), each folder is opened from the one before without following a
    link: a folder swapped for a link into `.git` after the rule was checked fails the read.
    """
    try:
        before = os.lstat(real)
        if not stat.S_ISREG(before.st_mode):
            return Refusal(
                f"is {kind_of(before.st_mode)}, not a regular file",
                "hz reads regular files only, never a FIFO, device or folder",
            )
        if before.st_size > limit:
            return _too_large(limit)
        fd = open_below(root, real) if root is not None else os.open(real, _READ)
    except OSError as exc:
        return Refusal(f"cannot be read ({exc.strerror})", "check the file's permissions")
    with os.fdopen(fd, "rb") as handle:
        opened = os.fstat(handle.fileno())
        if not stat.S_ISREG(opened.st_mode) or (opened.st_dev, opened.st_ino) != (before.st_dev, before.st_ino):
            return Refusal("changed while hz read it", "try again once nothing rewrites the file")
        data = handle.read(limit + 1)
    return _too_large(limit) if len(data) > limit else data


_READ = os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC
_FOLDER = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def open_below(root: Path, real: Path) -> int:
    """`real` opened for reading from the real root down, no part of it followed as a link (OSError)."""
    base = os.path.realpath(root)
    if not real.is_relative_to(base):  # a caller's slip: never a crash, never a read outside
        raise OSError(errno.EXDEV, "not below the repository's real path")
    names = real.relative_to(base).parts
    if not names:
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR))  # the root itself
    folder = os.open(base, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        for name in names[:-1]:
            inner = os.open(name, _FOLDER, dir_fd=folder)
            os.close(folder)
            folder = inner
        return os.open(names[-1], _READ, dir_fd=folder)
    finally:
        os.close(folder)


def _too_large(limit: int) -> Refusal:
    return Refusal(f"is larger than {limit // 1024} KiB", "split the file, or point the input at a smaller one")
