"""The title and body of a draft's pull request, and the hidden marker that names the draft in it.

The body lists the contract's Done-when items as a checklist for the reviewer and ends with the draft
key in an HTML comment, `<!-- hz-draft: KEY -->`, which GitHub does not show. The key is receipt-grade
(an id, checked here), and the text that comes from the contract is kept from writing a marker of its
own: a Done-when item holding `<!-- hz-draft: other -->` would otherwise name another draft.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

DRAFT_MARKER = "hz-draft"
# a key is an id (`hz-<contract>@v1@<slot>@<asset>`): no whitespace, and no `<` or `>`, so never a `-->`
_KEY = re.compile(r"[^\s<>]{1,200}")
_MARKER = re.compile(rf"<!-- {DRAFT_MARKER}: ({_KEY.pattern}) -->")
_SPACE = re.compile(r"\s+")
TITLE_MAX = 256  # GitHub accepts longer titles, but nobody reads past this


def marker(key: str, kind: str = DRAFT_MARKER) -> str:
    """`<!-- kind: key -->`; ValueError for a key that is not an id (a caller's bug, not a user's)."""
    if not _KEY.fullmatch(key):
        raise ValueError(f"not a key to put in a marker: {key!r}")
    return f"<!-- {kind}: {key} -->"


def draft_key_in(body: str) -> str | None:
    """The draft key of the last hz-draft marker in a pull request's body, or None."""
    found = _MARKER.findall(body or "")
    return found[-1] if found else None


def pull_text(title: str, done_when: Sequence[str], key: str, slot: str) -> tuple[str, str]:
    """The pull request's title and body for the draft `key` of a contract titled `title` for `slot`."""
    heading = _one_line(f"{_one_line(title) or 'hz draft'} ({_one_line(slot)})")[:TITLE_MAX]
    lines = ["A draft by hz for review: edit it on this branch, then merge to approve or close to reject.", ""]
    items = [_one_line(item) for item in done_when]
    if any(items):
        lines += ["Done when:", "", *(f"- [ ] {item}" for item in items if item), ""]
    lines.append(marker(key))
    return heading, "\n".join(lines) + "\n"


def _one_line(text: str) -> str:
    """`text` on one line with no HTML comment opening or closing in it (see the module's docstring)."""
    flat = _SPACE.sub(" ", text).strip()
    return flat.replace("<!--", "&lt;!--").replace("-->", "--&gt;")
