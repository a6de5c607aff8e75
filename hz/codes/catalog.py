"""The whole reference, and looking an entry up the way `hz explain` is asked: by code or kind name."""

from __future__ import annotations

import difflib

from hz.codes.contract_codes import CODES as CONTRACT_CODES
from hz.codes.entry import Code, Kind
from hz.codes.event_kinds import KINDS
from hz.codes.state_codes import CODES as STATE_CODES

__all__ = ["CODES", "KINDS", "Entry", "closest", "find"]

CODES: tuple[Code, ...] = CONTRACT_CODES + STATE_CODES
Entry = Code | Kind


def find(word: str) -> list[Entry]:
    """The entries `word` names, any case: one code, or every store's event kind of that name."""
    wanted = word.strip().lower()
    codes: list[Entry] = [code for code in CODES if code.code.lower() == wanted]
    return codes or [kind for kind in KINDS if kind.name == wanted]


def closest(word: str, count: int = 3) -> list[str]:
    """The known codes and kind names nearest to `word`, for an unknown one."""
    names = [code.code for code in CODES] + sorted({kind.name for kind in KINDS})
    upper = word.strip().upper()
    if upper.startswith("HZ") and len(upper) >= 4:  # HZC11 or HZS2: the same family, closest number first
        family = [name for name in names if name.startswith(upper[:3])]
        digits = "".join(ch for ch in upper[3:] if ch.isdigit())
        if family and digits:
            return sorted(family, key=lambda name: abs(int(name[3:]) - int(digits)))[:count]
    lowered = {name.lower(): name for name in names}
    return [lowered[name] for name in difflib.get_close_matches(word.strip().lower(), list(lowered), count, 0.5)]
