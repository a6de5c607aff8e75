"""The exact shapes of the strings an event may hold: keys, slots, asset refs, input names.

A key is `<hz id>@<occasion>` and the occasion has one of the forms hz.turn.causes mints (a slot, an
input's fingerprint, a request, a draft, …); anything else, a sentence spelled with dashes included,
does not match. Names an author chooses (an input, an output, a path) can only be held to a bounded,
blank-free alphabet here; the state lint compares them with the contracts on `main` when it can
(hz.gitstate.lint_contracts).
"""

from __future__ import annotations

import functools
import re
from datetime import UTC, datetime

ULID = "[0-9A-HJKMNP-TV-Z]{26}"
LOWER_ULID = "[0-9a-hjkmnp-tv-z]{26}"
HASH = "sha256:[0-9a-f]{64}"
SLOT = "20[0-9]{2}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}(?::[0-9]{2})?Z"
"""A slot as keys spell it: UTC to the minute (`2026-10-30T15:00Z`), or to the second as leases do.
ASCII digits only: `\\d` would also match other scripts' digits (found by tests/gitstate/test_lint_property.py)."""
IDENT = "[a-z][a-z0-9_]{0,63}"
"""An input or output name, as contracts declare them (hz.contract.model.Ident)."""
PREFIXES = "(?:t|rq|am)"
"""The prefixes hz gives minted ids: a turn (`t-`, in older receipts), a chat request (`rq-`), an amendment
(`am-`). Only these: a free prefix was eight letters anyone could choose (issue 20, finding 8)."""
REQUEST = f"(?:{PREFIXES}-)?(?:{ULID}|{LOWER_ULID})"
"""A minted id (a turn, a chat request `rq-<ulid>`)."""
_SEGMENT = "[A-Za-z0-9_~+-][A-Za-z0-9._~+-]{0,63}"
ASSET = f"[a-z][a-z0-9+-]{{0,15}}:{_SEGMENT}(?:/{_SEGMENT}){{0,7}}"
"""`<scheme>:<path>`: at most eight segments of at most 64 characters, none starting with a dot. The
scheme has no dot, so `<slot>@<scheme>:` in a draft key never reads as an address (`00Z@a.bb`)."""
DRAFT = f"v[1-9][0-9]{{0,5}}@{SLOT}@{ASSET}"
"""The occasion of placing a draft: `v<contract version>@<slot>@<asset>`."""

OCCASIONS = {  # in the order `occasion` tries them: the fixed words first, so `discovered:<hash>` is no input
    "slot": SLOT,
    "discovered": f"discovered:{HASH}",
    "created": "created",
    "version": "v[1-9][0-9]{0,5}",
    "retry": f"retry:{REQUEST}:{REQUEST}",
    "stale": f"stale:{IDENT}:{SLOT}",
    "approval": f"approval:hz-{ULID}@{DRAFT}",
    "draft": DRAFT,
    "publish": f"publish-{HASH}",  # a dash, which no input name holds: never read as `<input>:<hash>`
    "request": REQUEST,
    "input": f"{IDENT}:{HASH}",
}
KEY = f"hz-{ULID}@(?:{'|'.join(OCCASIONS.values())})"

KEY_PATTERN = f"^{KEY}$"
ASSET_PATTERN = f"^{ASSET}$"
SLUG_PATTERN = f"^{IDENT}$"
MACHINE = "m-[0-9a-f]{8}"
"""A machine's id: random, made once per $HZ_HOME (hz.gitstate.identity), never the host's name."""

TOKEN_MAX = 2**31 - 1
"""The largest fencing token. Far below 2**53, so every JSON reader keeps it exact (a token that
reached 2**53 would read back rounded); it also fits a signed 32-bit integer. A chain starts at 1 and
grows by one per take-over, so even one take-over a minute takes 4,000 years to get there."""

MAX_KEY = 400
MAX_ASSET = 200

_OCCASION = {name: re.compile(pattern) for name, pattern in OCCASIONS.items()}


@functools.lru_cache(maxsize=4096)  # the lint asks about each key of an event several times
def occasion(key: str) -> tuple[str, str]:
    """The form of a key's occasion and the occasion itself: `("input", "prs:sha256:…")`.

    ("", occasion) when it has none of the forms (the model's pattern refuses such a key first).
    """
    rest = key.split("@", 1)[1] if "@" in key else ""
    for name, pattern in _OCCASION.items():
        if pattern.fullmatch(rest):
            return name, rest
    return "", rest


def slot_time(text: str) -> datetime | None:
    """The moment a slot names, or None for one of the right shape that is no time (`2026-13-40T…`)."""
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00")).astimezone(UTC)
    except ValueError:
        return None
