"""The pull request of each team draft branch: opened or updated after the tick's push, one per branch.

After the tick's one push lands a draft branch (`hz/draft/<contract>/<output>`), hz asks the forge
(hz.review.forge) for a pull request of it: opened the first time, updated when a newer draft moved the
branch (the same request, never a second). Title and body come from the contract (its title, its Done-when
items as a checklist, the draft key in a hidden marker: `pull_text`); labels `hz-draft`; reviewers the
contract's maintainers, their handles (`@name`) as GitHub logins (`name`).

What is asked is kept under `$HZ_HOME/gitstate/<key>/pulls/` (private, one file per branch, written
atomically) until the forge answers, so a forge that fails now is asked again by the next tick; the
branch stays on the remote either way. Without a forge nothing is kept: the branches alone carry the review.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Mapping, Set
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from hz.errors import HzError
from hz.fsio import atomic_write, private_dir

LABELS = ("hz-draft",)
_LOGIN = re.compile(r"^@?([A-Za-z0-9](?:[A-Za-z0-9-]{0,38}))$")
_SAFE = re.compile(r"[^A-Za-z0-9_-]")


@dataclass(frozen=True)
class PullAsk:
    """What the forge is asked for one draft branch."""

    branch: str
    base: str
    title: str
    body: str
    reviewers: tuple[str, ...]
    commit: str  # the draft commit the branch carries: an ask for an older one is stale

    def file_name(self) -> str:
        return _SAFE.sub("_", self.branch) + ".json"


def done_when(body: str) -> list[str]:
    """The items of the contract's `### Done when` section, as written (checkbox marks dropped)."""
    from hz.contract.sections import parse_body

    parsed = parse_body(body)
    section = next((s for s in parsed.sections if s.name == "done when"), None)
    if section is None:
        return []
    items = []
    for line in section.text.splitlines():
        stripped = line.strip()
        if stripped[:2] in ("- ", "* "):
            item = stripped[2:].strip()
            items.append(re.sub(r"^\[[ xX]\]\s*", "", item))
    return [item for item in items if item]


def logins(handles: Iterable[str]) -> tuple[str, ...]:
    """GitHub logins of the handles (`@omar` -> `omar`); a handle that is no login is left out."""
    found = (_LOGIN.match(str(handle).strip()) for handle in handles)
    return tuple(dict.fromkeys(match.group(1) for match in found if match))


def ask_for(plan: Any, branch: str, commit: str, key: str, slot: str, base: str) -> PullAsk:
    """The pull request a team contract's draft branch asks for (`plan`: its hz.turn.plan.Plan)."""
    from hz.review.forge_text import pull_text

    hz = plan.contract.frontmatter.hz
    title, body = pull_text(str(getattr(hz, "title", None) or plan.name), done_when(plan.body), key, slot)
    return PullAsk(branch, base, title, body, logins(str(m) for m in hz.maintainers), commit)


class PullBook:
    """The asks not yet answered by the forge, one file per branch under `folder`."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def put(self, ask: PullAsk) -> None:
        folder = private_dir(self.folder)
        atomic_write(folder / ask.file_name(), json.dumps(asdict(ask)), mode=0o600)

    def asks(self) -> list[PullAsk]:
        found: list[PullAsk] = []
        try:
            names = sorted(os.listdir(self.folder))
        except OSError:
            return []
        for name in names:
            try:
                raw = json.loads((self.folder / name).read_text(encoding="utf-8"))
                found.append(PullAsk(**{**raw, "reviewers": tuple(raw["reviewers"])}))
            except (OSError, ValueError, TypeError, KeyError):
                (self.folder / name).unlink(missing_ok=True)  # a damaged ask: the next draft asks again
        return found

    def done(self, ask: PullAsk) -> None:
        (self.folder / ask.file_name()).unlink(missing_ok=True)


def open_pulls(
    forge: Any, book: PullBook, tips: Mapping[str, str | None], waiting: Set[str] = frozenset()
) -> tuple[dict[str, str], list[str]]:
    """Ask the forge for the pull request of every kept ask whose branch carries its draft on the remote
    (`tips`: branch -> its commit there now); an ask whose commit still waits to be pushed (`waiting`)
    stays, one whose branch moved on or went is dropped. Returns (branch -> the pull request's URL,
    errors); an ask the forge failed stays for the next tick."""
    urls: dict[str, str] = {}
    errors: list[str] = []
    for ask in book.asks():
        if ask.commit in waiting:
            continue
        if tips.get(ask.branch) != ask.commit:  # merged, deleted or moved on: a newer ask (or none) holds
            book.done(ask)
            continue
        try:
            pull = forge.upsert_pull(ask.branch, base=ask.base, title=ask.title, body=ask.body, labels=LABELS,
                                     reviewers=ask.reviewers)  # fmt: skip
        except HzError as exc:
            errors.append(f"the pull request of {ask.branch} waits for the next tick: {exc.message}")
            continue
        book.done(ask)
        urls[ask.branch] = pull.url
    return urls, errors
