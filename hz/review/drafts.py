"""Drafts placed in the user's own working tree, found again by their key.

A personal contract's `file:` or `state:` output is drafted in place: the file gets the draft's text
under a first line, the tag, naming the agent, the contract version and the placement key. The user
approves by editing the text and deleting the tag line, or rejects with `hz reject`. Before writing,
the tag is looked up by key, so a draft is never placed twice. Nothing here writes to the spine: the
engine records what these functions report.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Literal

from hz.canonical import fingerprint_bytes
from hz.errors import HzError
from hz.fsio import atomic_write
from hz.repo_paths import PATH_SCHEMES, PathRefused, Refusal, check, fill_slot, read_regular, remove_file, write_file

TAG_MARK = "🧝 DRAFT"
_TAG_RE = re.compile(
    r"^🧝 DRAFT \((?P<name>[^ ]+) v(?P<version>\d+)\): edit, then delete this line to approve · (?P<key>\S+)$"
)

DraftState = Literal["pending", "approved", "rejected", "superseded"]


class DraftTargetError(HzError):
    """An output target that hz cannot draft into (unknown scheme, or a path outside the repository)."""


@dataclass(frozen=True)
class Tag:
    name: str
    version: int
    key: str

    def line(self) -> str:
        return f"{TAG_MARK} ({self.name} v{self.version}): edit, then delete this line to approve · {self.key}"

    @classmethod
    def parse(cls, line: str) -> Tag | None:
        match = _TAG_RE.match(line.rstrip("\r\n"))
        if match is None:
            return None
        return cls(match["name"], int(match["version"]), match["key"])


def expand_target(target: str, slot: datetime) -> str:
    """Fill `{slot}` / `{slot:<strftime>}` placeholders of an output target."""
    return fill_slot(target, slot)


def target_path(root: Path, target: str, slot: datetime, *, team: bool = False) -> Path:
    """The working-tree file of a `file:` or `state:` target, by the repository's path rule.

    Asked right before a draft is written (a link may have been planted since validation): a target
    that leaves the repository, enters `.git` or passes through a link is refused and nothing is written.
    """
    scheme, _, rest = expand_target(target, slot).partition(":")
    if scheme not in PATH_SCHEMES or not rest:
        raise DraftTargetError(f"cannot draft into {target!r}", hint="use a file: or state: target")
    try:
        return check(root, rest, "team-target" if team else "target")
    except PathRefused as refused:
        raise DraftTargetError(f"the target {target!r} {refused.refusal.reason}", hint=refused.hint) from None


def read_tag(path: Path, root: Path | None = None) -> Tag | None:
    try:
        text = _text(path, root)
    except UnicodeDecodeError:
        return None
    return None if text is None else Tag.parse(text.split("\n", 1)[0])


def _text(path: Path, root: Path | None) -> str | None:
    """The text of a placed draft's file, None when there is none. With the repository `root`, read by
    the path rule (bounded, no folder followed as a link): a folder swapped for a link into `.git` since
    the target was checked must not hand `.git`'s files to the approval (and so to the model)."""
    if root is None:
        try:
            return path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return None
    data = read_regular(path, root=root)
    if isinstance(data, Refusal):
        if not os.path.lexists(path):
            return None
        raise DraftTargetError(f"{path} {data.reason}", hint=data.hint)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:  # someone wrote other bytes there: not hz's draft, and not a crash
        raise DraftTargetError(f"{path} is not UTF-8 text (byte {exc.start})", hint=_NOT_TEXT_HINT) from None


_NOT_TEXT_HINT = "put the draft back, or move the file aside; hz drafts shows what waits"


def _write(path: Path, text: str, root: Path | None) -> None:
    if root is None:
        atomic_write(path, text, mode=0o644)
    else:  # never through a link, whatever changed since the check (`write_file`)
        write_file(root, path.relative_to(os.path.realpath(root)).as_posix(), text.encode("utf-8"), 0o644)


def draft_hash(text: str) -> str:
    return fingerprint_bytes(text.encode("utf-8"))


def find_placed(path: Path, key: str, root: Path | None = None) -> str | None:
    """The hash of the draft placed under `key` at `path`, or None when no such tag is there."""
    tag = read_tag(path, root)
    if tag is None or tag.key != key:
        return None
    body = (_text(path, root) or "").split("\n", 1)
    return draft_hash(body[1] if len(body) > 1 else "")


def place(path: Path, tag: Tag, text: str) -> str:
    """Write the draft under its tag, replacing the file atomically; returns the draft's hash."""
    body = text if text.endswith("\n") else text + "\n"
    atomic_write(path, tag.line() + "\n" + body, mode=0o644)
    return draft_hash(body)


def place_in(root: Path, relative: str, tag: Tag, text: str) -> str:
    """`place` for the act step: the file `relative` of the repository `root`, written without ever
    following a link, however the folders changed since the path rule was checked (`write_file`)."""
    body = text if text.endswith("\n") else text + "\n"
    write_file(root, relative, (tag.line() + "\n" + body).encode("utf-8"), 0o644)
    return draft_hash(body)


@dataclass(frozen=True)
class Observation:
    state: DraftState
    approved_text: str | None = None


def observe(path: Path, key: str, root: Path | None = None) -> Observation:
    """What became of the draft placed under `key`: still pending, approved (tag gone), or rejected (file gone)."""
    text = _text(path, root)
    if text is None:
        return Observation("rejected")
    tag = read_tag(path, root)
    if tag is None:
        return Observation("approved", text)
    if tag.key == key:
        return Observation("pending")
    return Observation("superseded")


def strip_tag(path: Path, key: str, root: Path | None = None) -> str:
    """Approve as is: delete the tag line of the draft placed under `key`; returns the approved text."""
    text = _text(path, root)
    tag = None if text is None else Tag.parse(text.split("\n", 1)[0])
    if text is None or tag is None or tag.key != key:
        raise HzError(f"no pending draft {key} in {path}", hint="hz drafts lists the drafts that wait")
    approved = text.split("\n", 1)[1]
    _write(path, approved, root)
    return approved


def withdraw(path: Path, key: str, previous: str | None, root: Path | None = None) -> None:
    """Reject: put back what the file held before the draft, or remove a file the draft created."""
    tag = read_tag(path, root)
    if tag is None or tag.key != key:
        raise HzError(f"no pending draft {key} in {path}", hint="hz drafts lists the drafts that wait")
    if previous is not None:
        _write(path, previous, root)
    elif root is None:
        path.unlink()
    else:  # never through a folder swapped for a link since the check
        remove_file(root, path.relative_to(os.path.realpath(root)).as_posix())


def approve_draft(key: str, *, environ: Mapping[str, str], now: datetime) -> int:
    """The seam `hz approve` calls for a draft item (see `hz.review.decide`)."""
    from hz.review.decide import approve

    return approve(key, environ=environ, now=now)
