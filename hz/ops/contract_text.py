"""The texts of one Heinzelmännchen's contract: every version and every amendment, each with its diff.

The spine holds only fingerprints; the texts live in the agent's folder (`hz.heinzel.versions`). A
version's diff is against the version before it, an amendment's against the version it amends, as
unified diffs of the Markdown, so a head shows what changed without computing anything itself. A text
that cannot be read (a damaged copy) is None with the reason, not an error for the whole page.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from typing_extensions import TypedDict

from hz.errors import HzError
from hz.ops import SCHEMA_VERSION
from hz.ops.context import Context, documented

MAX_DIFF_LINES = 2000  # a diff longer than this is cut: a page of a contract is never that long


@documented
@dataclass(frozen=True, kw_only=True)
class ContractRequest:
    """One Heinzelmännchen's contract texts, by name or id."""

    name: str
    """The agent's name or id."""


@documented
class VersionText(TypedDict):
    version: int
    approved: bool
    text: str | None
    """The Markdown as approved (None: the copy could not be read; `problem` says why)."""
    diff: str | None
    """A unified diff against the version before it (None for version 1)."""
    problem: str | None


@documented
class AmendmentText(TypedDict):
    amendment_id: str
    status: str
    base_version: int | None
    text: str | None
    diff: str | None
    """A unified diff against the version it amends."""
    problem: str | None


@documented
class ContractResult(TypedDict):
    schema_version: int
    agent: str
    """The agent's id."""
    versions: list[VersionText]
    amendments: list[AmendmentText]


def contract_text(ctx: Context, request: ContractRequest) -> ContractResult:
    from hz.heinzel.lifecycle import resolve
    from hz.heinzel.versions import amendment_path, read_version
    from hz.session.store import Store

    with Store.from_environ(ctx.environ) as store:
        row = resolve(store, request.name)
        folder = store.agent_dir(str(row["id"]))
        versions = [dict(v) for v in store.index.versions(str(row["id"]))]
        amendments = [dict(a) for a in store.index.amendments(str(row["id"]))]
    texts: dict[int, str | None] = {}
    shown: list[VersionText] = []
    for v in versions:
        number = int(v["version"])
        text, problem = _read(partial(read_version, folder, number))
        texts[number] = text
        previous = texts.get(number - 1)
        diff = _diff(previous, text, f"v{number - 1}", f"v{number}") if number > 1 else None
        shown.append({"version": number, "approved": bool(v["approved"]), "text": text, "diff": diff,
                      "problem": problem})  # fmt: skip
    return {
        "schema_version": SCHEMA_VERSION,
        "agent": str(row["id"]),
        "versions": shown,
        "amendments": [_amendment(a, amendment_path(folder, str(a["amendment_id"])), texts) for a in amendments],
    }


def _amendment(row: dict[str, object], path: Path, texts: dict[int, str | None]) -> AmendmentText:
    from hz.textfile import read_text_file

    reading = partial(read_text_file, path, hint="the amendment's copy in hz's home is damaged")
    text, problem = _read(reading) if path.exists() else (None, "no longer kept")
    base = row.get("base_version")
    before = texts.get(int(base)) if isinstance(base, int) else None
    return {
        "amendment_id": str(row["amendment_id"]),
        "status": str(row["status"]),
        "base_version": base if isinstance(base, int) else None,
        "text": text,
        "diff": _diff(before, text, f"v{base}", str(row["amendment_id"])),
        "problem": problem,
    }


def _read(reading: Callable[[], str]) -> tuple[str | None, str | None]:
    try:
        return reading(), None
    except HzError as error:
        return None, error.message


def _diff(before: str | None, after: str | None, old: str, new: str) -> str | None:
    if before is None or after is None:
        return None
    lines = list(difflib.unified_diff(before.splitlines(), after.splitlines(), old, new, lineterm=""))
    if len(lines) > MAX_DIFF_LINES:
        lines = [*lines[:MAX_DIFF_LINES], f"… {len(lines) - MAX_DIFF_LINES} more lines"]
    return "\n".join(lines)
