"""Where things live on `hz/state` and on lease refs.

Layout of the orphan branch (documented in docs/decisions.md):

    events/<hz id>/<xx>/<kind>-<h>.json

`h` is the first 24 hex digits of sha256("<kind>\\n<key>") and `xx` its first two, so the path is a
function of the event's identity alone: an event pushed twice (a retry after a lost reply, a crash
between push and clean-up) lands on the same path once. `xx` fans an agent's events out over at most
256 folders, which keeps every folder under ~1,000 entries up to a quarter million events per agent;
`events/` itself has one entry per team Heinzelmännchen. Each file holds exactly one line.

The tip holds only live work; closed work older than the archive horizon is moved out by an archive step
(`hz state compact`, hz.gitstate.archive) and stays in the branch's history, where it was added:

    archive/<yyyy-mm>

one small file per period (the month of the events' `ts`), one line per archive step that moved events
of that period: `<parent commit> <horizon> <count> sha256:<digest of the moved (path, blob) list>`. The
step's commit says `hz-state: archive N events`, deletes exactly the files its lines count and appends
exactly those lines (hz.gitstate.archive_lint checks both, so the index proves what each period held).
An event older than the newest horizon can never be added again (HZS027): a re-push of an archived event
is refused by the same rule that keeps its path unique on the tip.

Closed work moves off the tip after a day (`hz state compact --keep`), long before the horizon (a week and a
day), so an event the horizon does not yet refuse may have moved. Its identity stays on the tip in

    archive/<yyyy-mm-dd>

one file per day (of the events' `ts`) between the horizon and the cut: the sorted lines `<r>`, the first 16
hex digits of sha256 of each moved event's path. That is ~17 B an event where its file cost ~200, and it is
enough to refuse the event's return (HZS027) and to tell a reader that a draft which left the tip had a fate
(a pending draft never moves). A step that moves the horizon deletes the day files behind it.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from dataclasses import dataclass

STATE_BRANCH = "hz/state"
STATE_REF = "refs/heads/hz/state"
LEASE_PREFIX = "refs/hz/lease/"
LEASE_FILE = "lease.json"
MAX_LINE_BYTES = 4096
ZERO = "0" * 40
"""The object id git gives a ref that does not exist (the old side of a creation, the new side of a deletion)."""

ARCHIVE_DIR = "archive"
_PERIOD = r"20[0-9]{2}-(?:0[1-9]|1[0-2])"
PERIOD_NAME = re.compile(_PERIOD)
_PERIOD_PATH = re.compile(rf"^archive/(?P<period>{_PERIOD})$")
_DAY = rf"{_PERIOD}-(?:0[1-9]|[12][0-9]|3[01])"
DAY_NAME = re.compile(_DAY)
_DAY_PATH = re.compile(rf"^archive/(?P<day>{_DAY})$")
MARK_HEX = 16
DAY_MARKS_MOST = 2_000_000  # a day file larger than this many marks is not one hz wrote (a lint bound)
_INDEX_LINE = re.compile(
    r"(?P<parent>[0-9a-f]{40}|[0-9a-f]{64}) (?P<horizon>20[0-9]{2}-[0-9]{2}-[0-9]{2}T00:00:00Z) "
    r"(?P<count>[1-9][0-9]{0,8}) (?P<digest>sha256:[0-9a-f]{64})"
)
INDEX_LINE_MAX = 200


_EVENT_PATH = re.compile(
    r"^events/(?P<id>hz-[0-9A-HJKMNP-TV-Z]{26})/(?P<fan>[0-9a-f]{2})/(?P<kind>[a-z]+\.[a-z]+)-(?P<h>[0-9a-f]{24})\.json$"
)


def event_digest(kind: str, key: str) -> str:
    return hashlib.sha256(f"{kind}\n{key}".encode()).hexdigest()[:24]


def event_path(hz_id: str, kind: str, key: str) -> str:
    digest = event_digest(kind, key)
    return f"events/{hz_id}/{digest[:2]}/{kind}-{digest}.json"


def is_event_path(path: str) -> bool:
    return _EVENT_PATH.match(path) is not None


def lease_ref(lease_id: str) -> str:
    return LEASE_PREFIX + lease_id


def period_of(ts: str) -> str:
    """The archive period of an event's time (`2026-03-05T…Z` -> `2026-03`)."""
    return ts[:7]


def period_path(period: str) -> str:
    return f"{ARCHIVE_DIR}/{period}"


def day_path(day: str) -> str:
    return f"{ARCHIVE_DIR}/{day}"


def day_of_path(path: str) -> str | None:
    """The day a file of recently moved identities is named for (None: no such file)."""
    match = _DAY_PATH.match(path)
    return match["day"] if match is not None else None


def is_archive_path(path: str) -> bool:
    """A file of `archive/`: a period's index or a day's moved identities."""
    return period_of_path(path) is not None or day_of_path(path) is not None


def moved_mark(path: str) -> str:
    """What a day file keeps of a moved event: the first 16 hex digits of sha256 of its path."""
    return hashlib.sha256(path.encode()).hexdigest()[:MARK_HEX]


def render_marks(marks: Iterable[str]) -> bytes:
    return "".join(f"{mark}\n" for mark in sorted(set(marks))).encode()


def shaped_marks(data: bytes) -> bool:
    """Fixed-width records of lower-case hex, a newline ending each: the checks of `parse_marks` that cost
    no Python per line (order and uniqueness aside)."""
    count, rest = divmod(len(data), MARK_HEX + 1)
    if not count or rest or count > DAY_MARKS_MOST or data[MARK_HEX :: MARK_HEX + 1] != b"\n" * count:
        return False
    return not data.translate(None, b"0123456789abcdef\n")


class Marks:
    """The marks of a tip's day files, looked up in their bytes. A push asks about the few events it adds;
    building a set of a busy week's ~35,000 marks for that cost more than the hook's whole reading."""

    __slots__ = ("_days",)

    def __init__(self, days: Iterable[bytes] = ()) -> None:
        self._days = tuple(data for data in days if shaped_marks(data))

    def __bool__(self) -> bool:
        return bool(self._days)

    def __len__(self) -> int:
        return sum(len(data) // (MARK_HEX + 1) for data in self._days)

    def __contains__(self, mark: object) -> bool:
        if not isinstance(mark, str) or len(mark) != MARK_HEX:
            return False
        needle, width = mark.encode() + b"\n", MARK_HEX + 1
        for data in self._days:
            at = data.find(needle)
            while at != -1 and at % width:  # only a whole record counts
                at = data.find(needle, at + 1)
            if at != -1:
                return True
        return False


def parse_marks(data: bytes) -> frozenset[str] | None:
    """The marks of a day file; None when it is not exactly what hz writes (sorted, unique, one per line).

    The hook reads a week of day files on every push that adds events (~35,000 marks for a busy team), so
    the checks are whole-buffer operations, not a regular expression per line: fixed-width records, a
    newline ending each, nothing but lower-case hex besides."""
    if not shaped_marks(data):
        return None
    count = len(data) // (MARK_HEX + 1)
    lines = data.decode().split("\n")
    lines.pop()  # after the last newline
    found = frozenset(lines)
    if len(lines) != count or len(found) != count or lines != sorted(lines):
        return None  # a newline inside a record, a mark twice, or out of order
    return found


def period_of_path(path: str) -> str | None:
    """The period an index file is named for (None: no index file)."""
    match = _PERIOD_PATH.match(path)
    return match["period"] if match is not None else None


@dataclass(frozen=True)
class IndexLine:
    """One archive step's line in a period's index: the commit it moved events out of (its parent), the
    horizon it moved them behind, how many of that period it moved and the digest of their (path, blob) list."""

    parent: str
    horizon: str
    count: int
    digest: str

    def render(self) -> bytes:
        return f"{self.parent} {self.horizon} {self.count} {self.digest}\n".encode()


def parse_index(data: bytes) -> list[IndexLine] | None:
    """The lines of a period's index file; None when any line is not one hz writes."""
    if not data.endswith(b"\n") or len(data) > INDEX_LINE_MAX * 100_000:
        return None
    found: list[IndexLine] = []
    for line in data[:-1].split(b"\n"):
        match = _INDEX_LINE.fullmatch(line.decode("ascii", "replace"))
        if match is None:
            return None
        found.append(IndexLine(match["parent"], match["horizon"], int(match["count"]), match["digest"]))
    return found


def moved_digest(moved: Iterable[tuple[str, str]]) -> str:
    """The digest of a set of archived event files, (path, blob id) each: sorted lines `<path> <blob>`."""
    text = "".join(f"{path} {blob}\n" for path, blob in sorted(moved))
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()
