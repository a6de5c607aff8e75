"""Schema migration of frontmatter: pure functions from schema N to N+1, applied before validation.

`hz.schema` is read first. A contract written for an older schema is lifted step by step to the
newest one this hz reads, so its fingerprints are computed over the migrated model and survive the
migration. A schema newer than ours is HZC003: this hz cannot know what it means.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from typing import Any

from hz.contract.model import SCHEMA_VERSION

Migration = Callable[[dict[str, Any]], dict[str, Any]]

# MIGRATIONS[n] lifts schema n to n + 1. Schema 1 is the first, so there is nothing to lift yet; the
# next schema adds `migrate_1_to_2` here and bumps SCHEMA_VERSION in hz.contract.model.
MIGRATIONS: dict[int, Migration] = {}


class SchemaTooNew(Exception):
    def __init__(self, found: int, newest: int = SCHEMA_VERSION) -> None:
        shown = str(found) if found < 10**6 else f"a number of {len(str(found)):,} digits"
        super().__init__(f"hz.schema is {shown}, but this hz reads schema {newest} at most")
        self.found = found


def schema_of(data: dict[str, Any]) -> int | None:
    """The declared `hz.schema`, or None when it is missing or not a whole number (validation says so)."""
    hz = data.get("hz")
    value = hz.get("schema") if isinstance(hz, dict) else None
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**31:
        return int(value)  # `schema: 1.0` is schema 1 to the model as well
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def migrate(
    data: dict[str, Any], *, migrations: Mapping[int, Migration] = MIGRATIONS, newest: int = SCHEMA_VERSION
) -> dict[str, Any]:
    """`data` lifted to the newest schema; the input is never modified. Raises SchemaTooNew."""
    found = schema_of(data)
    if found is None or found == newest or found < 1:
        return data
    if found > newest:
        raise SchemaTooNew(found, newest)
    out = copy.deepcopy(data)
    for version in range(found, newest):
        out = migrations[version](out)
        out["hz"]["schema"] = version + 1
    return out
