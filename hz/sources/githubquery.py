"""The query of `github:` inputs, applied locally to what the REST API lists.

Terms separated by blanks, all of which must hold (a key given twice means either value):
    is:open | is:closed | is:merged | is:unmerged | is:draft
    label:<name>    author:<login>    base:<branch>    topic:<repository topic>
An unknown term is an error naming it, so a typo never silently widens the input.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from hz.sources.base import SourceError

_IS = ("open", "closed", "merged", "unmerged", "draft")
_KEYS = ("is", "label", "author", "base", "topic")


@dataclass(frozen=True)
class GithubQuery:
    states: tuple[str, ...] = ()
    labels: tuple[str, ...] = ()
    authors: tuple[str, ...] = ()
    bases: tuple[str, ...] = ()
    topics: tuple[str, ...] = ()

    def keeps(self, record: dict[str, Any]) -> bool:
        if self.states and not any(_is(record, s) for s in self.states):
            return False
        if self.labels and not set(self.labels) & set(record.get("labels", ())):
            return False
        if self.authors and record.get("author", "").lower() not in {a.lower() for a in self.authors}:
            return False
        return not self.bases or record.get("base") in self.bases

    def keeps_repo(self, topics: Iterable[str]) -> bool:
        return not self.topics or bool(set(self.topics) & set(topics))


def _is(record: dict[str, Any], state: str) -> bool:
    if state == "merged":
        return "merged" in record
    if state == "unmerged":
        return "merged" not in record
    if state == "draft":
        return bool(record.get("draft"))
    return record.get("state") == state


def parse(query: str | None, uri: str) -> GithubQuery:
    found: dict[str, list[str]] = {k: [] for k in _KEYS}
    for term in (query or "").split():
        key, sep, value = term.partition(":")
        if not sep or key not in found or not value or (key == "is" and value not in _IS):
            raise SourceError(
                "bad-source",
                f"{uri}: cannot read the query term {term!r}",
                hint="known terms: is:open|closed|merged|unmerged|draft, label:, author:, base:, topic:",
            )
        found[key].append(value)
    return GithubQuery(*(tuple(found[k]) for k in _KEYS))
