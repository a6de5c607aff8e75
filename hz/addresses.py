"""Whether a text holds something shaped like an e-mail address, in time linear in its length.

One shape for the spine (`hz.session.vocabulary`) and the lint of `hz/state` (`hz.gitstate.lint_text`):
a local part, `@`, and a domain with a dot and an ending of two letters or more. Searched as one pattern,
the shape backtracks through every start of the local part: 100,000 characters without an `@` took half
a minute, on a spine event before its length checks ran, or in the server's hook on a pushed commit's
author line. Here each `@` is tried once: one local character before it is enough, and the domain is
matched forward from it, stopping at the next `@`.
"""

from __future__ import annotations

import re

_LOCAL = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._%+-")
_DOMAIN = re.compile(r"[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}")


def looks_like_address(value: str) -> bool:
    at = value.find("@", 1)
    while at != -1:
        if value[at - 1] in _LOCAL and _DOMAIN.match(value, at + 1):
            return True
        at = value.find("@", at + 1)
    return False
