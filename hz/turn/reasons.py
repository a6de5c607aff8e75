"""The words a turn's end records: short, and with no address in them, so recording them never fails.

A failure's text often comes from somebody else (git, a server, a CLI), and the spine refuses any
event holding something shaped like an e-mail address (`hz.session.vocabulary`). If the reason itself
were refused, the turn could not end and would stay `running`: so each address-shaped word is replaced
by a placeholder, and the text is cut to the field's bound, before it is recorded.
"""

from __future__ import annotations

import re

from hz.addresses import looks_like_address

ADDRESS = "<address>"
ERROR_CHARS = 2000  # the bound of a finished turn's `error` (vocabulary `Short`)
REPORT_CHARS = 1000  # the bound of its `report` (vocabulary `Sentence`)
_SPACE = re.compile(r"(\s+)")


def without_addresses(text: str) -> str:
    """`text` with every whitespace-separated word that holds an address replaced by `<address>`.

    An address never spans white space, so looking word by word finds every one, and each word is
    looked at once (linear in the text's length, like the check itself).
    """
    parts = _SPACE.split(text)
    return "".join(ADDRESS if index % 2 == 0 and looks_like_address(part) else part for index, part in enumerate(parts))


def recordable(text: str, limit: int) -> str:
    """`text` without addresses, cut to `limit` characters (an ellipsis marks the cut).

    Cut before the look too, so a huge text costs no more than its first part; cutting the result again
    cannot make an address appear, since a word that starts with one holds one.
    """
    clean = without_addresses(text[: limit + 1])
    return clean if len(clean) <= limit else clean[: limit - 1] + "…"
