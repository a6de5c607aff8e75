"""OpenProse item and facet names made into hz identifiers, one for one.

OpenProse lets a facet be called `pkg-core`, `2FA coverage` or `Größe`; hz names inputs, outputs and
facets with identifiers (`^[a-z][a-z0-9_]*$`, at most 64 characters) because they appear in YAML keys,
`input.facet` wake names and `contract:…#facet` URIs. The readable form is kept where it is unambiguous
(`pkg-core` becomes `pkg_core`); wherever two names of one file would meet in the same identifier, or
the readable form had to be cut short, a short hash of the original name is added, so no two names of a
file ever become one.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections import Counter
from collections.abc import Iterable

IDENT = re.compile(r"^[a-z][a-z0-9_]*$")
MAX_LENGTH = 64
_NOT_IDENT = re.compile(r"[^a-z0-9]+")
_HASH_LENGTH = 8
# Latin letters that have no decomposition into a base letter and a mark
_SPELLED = str.maketrans({"ß": "ss", "æ": "ae", "œ": "oe", "ø": "o", "ł": "l", "đ": "d", "þ": "th", "ı": "i"})


def is_identifier(name: str) -> bool:
    return bool(IDENT.match(name)) and len(name) <= MAX_LENGTH


def readable(name: str) -> str:
    """The identifier a person would write for `name`: accents dropped, every other run of letters hz does
    not take (dashes, spaces, dots, other scripts) one underscore, a leading digit prefixed."""
    decomposed = unicodedata.normalize("NFKD", name.lower().translate(_SPELLED))
    ascii_only = "".join(c for c in decomposed if not unicodedata.combining(c)).lower()
    out = _NOT_IDENT.sub("_", ascii_only).strip("_")
    if not out:
        return "name"
    return out if out[0].isalpha() else "n_" + out


def _hashed(name: str, base: str, length: int = _HASH_LENGTH) -> str:
    digest = hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:length]
    return f"{base[: MAX_LENGTH - length - 1].rstrip('_')}_{digest}"


def identifiers(names: Iterable[str]) -> dict[str, str]:
    """Each distinct name and its identifier; injective: distinct names get distinct identifiers.

    A name that already is an identifier keeps it. Another name gets its readable form when no other name
    of the set claims that form too (and it fits in 64 characters), else the form with a hash suffix.
    """
    distinct = list(dict.fromkeys(names))
    kept = {name for name in distinct if is_identifier(name)}
    wanted = {name: readable(name) for name in distinct if name not in kept}
    claims = Counter(wanted.values())
    out = {name: name for name in kept}
    taken = set(kept)
    for name, form in wanted.items():
        plain = claims[form] == 1 and form not in kept and len(form) <= MAX_LENGTH
        out[name] = form if plain else _hashed(name, form)
        length = _HASH_LENGTH
        while out[name] in taken:  # a hash suffix equal to a name written that way: lengthen it
            length += 4
            out[name] = _hashed(name, form, length)
        taken.add(out[name])
    return out
