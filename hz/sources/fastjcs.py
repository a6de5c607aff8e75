"""The `hz.canonical.fingerprint` of large source values, computed faster with identical results.

RFC 8785 (the pure-Python `rfc8785` package) costs about a microsecond per JSON node, and a 10,000-commit
window has a hundred thousand. For values whose JSON holds only ASCII text without escapes, integers
and no floats, orjson with sorted keys writes byte-for-byte the RFC 8785 form: keys sort the same
(ASCII code order equals UTF-16 code-unit order), strings need no escaping, and integers print alike.
Anything else (non-ASCII, an escape, a float, an integer beyond 2^53) takes the shared helper itself. A
property test holds the two equal on arbitrary JSON.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any

from hz.canonical import PREFIX
from hz.canonical import fingerprint as reference

_STRINGS = re.compile(rb'"[^"]*"')
_LITERALS = re.compile(rb"true|false|null")
_FLOAT_MARKS = re.compile(rb"[.eE]")


def fingerprint(value: Any) -> str:
    fast = _fast_bytes(value)
    if fast is None:
        return reference(value)
    return PREFIX + hashlib.sha256(fast).hexdigest()


def _fast_bytes(value: Any) -> bytes | None:
    import orjson

    try:
        data = orjson.dumps(value, option=orjson.OPT_SORT_KEYS | orjson.OPT_STRICT_INTEGER)
    except TypeError:
        return None  # non-str keys, 64-bit integers and the like: the reference decides
    if not data.isascii() or b"\\" in data:
        return None
    if _FLOAT_MARKS.search(_LITERALS.sub(b"", _STRINGS.sub(b"", data))):
        return None
    return data
