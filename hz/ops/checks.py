"""Checks of free text a person passes to an operation, the same for every head (the CLI's callbacks in
hz.cli.params call these too, so a bad value is a usage error there and a clear error elsewhere).

A sentence (an amendment's why, a retry's hint) is kept on the agent's spine, whose field for it holds one
line of at most SENTENCE_MAX characters (`Sentence` in hz.session.payload_types; a test keeps the two equal).
"""

from __future__ import annotations

import unicodedata

from hz.errors import HzError

SENTENCE_MAX = 1000


def sentence_problem(value: str) -> str | None:
    """Why `value` is not one line of 1 to SENTENCE_MAX characters free of control characters (None: it is)."""
    if not value.strip():
        return "is empty; say in a few words what you mean"
    if len(value) > SENTENCE_MAX:
        return f"is {len(value)} characters long; one sentence is at most {SENTENCE_MAX}"
    control = next((c for c in value if unicodedata.category(c) == "Cc"), None)
    if control is not None:
        return f"holds the control character {control!r}; write one plain line"
    return None


def check_sentence(value: str, what: str) -> str:
    problem = sentence_problem(value)
    if problem is not None:
        raise HzError(f"{what} {problem}")
    return value
