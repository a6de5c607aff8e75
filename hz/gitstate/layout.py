"""Where things live on `hz/state` and on lease refs.

Layout of the orphan branch (documented in docs/decisions.md):

    events/<hz id>/<xx>/<kind>-<h>.json

`h` is the first 24 hex digits of sha256("<kind>\\n<key>") and `xx` its first two, so the path is a
function of the event's identity alone: an event pushed twice (a retry after a lost reply, a crash
between push and clean-up) lands on the same path once. `xx` fans an agent's events out over at most
256 folders, which keeps every folder under ~1,000 entries up to a quarter million events per agent;
`events/` itself has one entry per team Heinzelmännchen. Each file holds exactly one line.
"""

from __future__ import annotations

import hashlib
import re

STATE_BRANCH = "hz/state"
STATE_REF = "refs/heads/hz/state"
LEASE_PREFIX = "refs/hz/lease/"
LEASE_FILE = "lease.json"
MAX_LINE_BYTES = 4096
ZERO = "0" * 40
"""The object id git gives a ref that does not exist (the old side of a creation, the new side of a deletion)."""

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
