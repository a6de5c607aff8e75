"""Canonical JSON (RFC 8785) and the `sha256:` fingerprints every part of hz shares.

One helper, so a contract, a source facet and an event hash the same way on every machine.
"""

from __future__ import annotations

import hashlib
from typing import Any

import rfc8785

PREFIX = "sha256:"


def canonical_json(value: Any) -> bytes:
    """RFC 8785 bytes of a JSON-compatible value (dicts with str keys, lists, str, int, float, bool, None)."""
    return bytes(rfc8785.dumps(value))


def fingerprint(value: Any) -> str:
    """`sha256:<hex>` of the RFC 8785 form of `value`."""
    return PREFIX + hashlib.sha256(canonical_json(value)).hexdigest()


def fingerprint_bytes(data: bytes) -> str:
    """`sha256:<hex>` of raw bytes (file contents, spine lines)."""
    return PREFIX + hashlib.sha256(data).hexdigest()
