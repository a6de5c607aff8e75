"""HZC024: bidi overrides and control characters in a contract's text (its title, description, any string).

A title reaches a pull request's title, the graph page and every listing. A right-to-left override
(U+202E) makes `report.md‮txt.exe` read as something else than it is, and a control character (a
bell, an escape sequence, a NUL) does things to a terminal. Neither is ever needed in a contract: the
frontmatter's strings and keys are checked after parsing, where YAML's escapes (`"\\u202e"`) have
already become the characters they spell. Tabs and line ends stay allowed (a folded description).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterator
from typing import Any

from hz.contract.validate import dotted
from hz.diagnostic import Diagnostic

CODE = "HZC024"
HINT = "delete the character: text in a contract reads as it is stored, left to right, with no control codes"
Loc = tuple[str | int, ...]

BIDI = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
"""Arabic letter mark, the LTR/RTL marks, embeddings, overrides and isolates: what reorders text."""
ALLOWED_CONTROLS = frozenset("\t\n\r")


def forbidden(char: str) -> bool:
    """A bidi control, or a control character other than a tab or a line end (C0, DEL, C1)."""
    return char in BIDI or (unicodedata.category(char) == "Cc" and char not in ALLOWED_CONTROLS)


# The same set as one character class: the controls (category Cc is exactly C0 and DEL through C1) less a
# tab and the line ends, and the bidi controls. A search in C, where `forbidden` per character was a
# Python call for every character of every string of every contract compiled (a test holds the two equal
# over every code point).
FORBIDDEN = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f" + "".join(sorted(BIDI)) + "]")


def first_forbidden(text: str) -> tuple[int, str] | None:
    """(index, character) of the first forbidden character in `text`, or None."""
    found = FORBIDDEN.search(text)
    return None if found is None else (found.start(), found.group())


def describe(char: str) -> str:
    name = unicodedata.name(char, "")
    code = f"U+{ord(char):04X}"
    return f"{name.lower()} ({code})" if name else f"control character {code}"


def text_diagnostics(data: Any, *, path: str, locate: Callable[[Loc], tuple[int, int]]) -> list[Diagnostic]:
    """One HZC024 error per string (key or value) of the frontmatter holding a forbidden character."""
    found: list[Diagnostic] = []
    for loc, text in _strings(data, ()):
        hit = first_forbidden(text)
        if hit is None:
            continue
        line, column = locate(loc)
        where = dotted(loc)
        message = f"{where} holds {describe(hit[1])} at character {hit[0] + 1}"
        found.append(Diagnostic(path, line, column, CODE, "error", where, message, HINT))
    return found


def _strings(node: Any, loc: Loc) -> Iterator[tuple[Loc, str]]:
    if isinstance(node, str):
        yield loc, node
    elif isinstance(node, dict):
        for key, child in node.items():
            if isinstance(key, str):
                yield (*loc, key), key
            yield from _strings(child, (*loc, key))
    elif isinstance(node, list):
        for index, child in enumerate(node):
            yield from _strings(child, (*loc, index))
