"""The small query language of `git:` inputs.

Terms are separated by blanks; each is one of
    path:<glob>     commits that changed a matching path (fnmatch, `*` crosses `/`); several: any of them
    author:<text>   commits whose author name or e-mail contains the text (case-insensitive); several: any
    branch:<name>   walk this branch instead of HEAD; `merged` lists the merges on its first-parent line
    <facet>         a bare facet name (`commits`, `merged`, `authors`, `tags`) keeps only those facets
Anything else is an error that names the term, so a typo never silently widens the input.
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass

from hz.sources.base import SourceError

FACETS = ("commits", "merged", "authors", "tags")


@dataclass(frozen=True)
class GitQuery:
    paths: tuple[str, ...] = ()
    authors: tuple[str, ...] = ()
    branch: str | None = None
    facets: tuple[str, ...] = ()

    def wants_path(self, path: str) -> bool:
        return any(fnmatch.fnmatchcase(path, pattern) for pattern in self.paths)

    def wants_author(self, name: str, email: str) -> bool:
        if not self.authors:
            return True
        who = f"{name} <{email}>".lower()
        return any(a.lower() in who for a in self.authors)


def parse(query: str | None, uri: str) -> GitQuery:
    paths: list[str] = []
    authors: list[str] = []
    branch: str | None = None
    facets: list[str] = []
    for term in (query or "").split():
        key, sep, value = term.partition(":")
        if sep and key == "path" and value:
            paths.append(value.strip("/"))
        elif sep and key == "author" and value:
            authors.append(value)
        elif sep and key == "branch" and value:
            if branch is not None and branch != value:
                raise _bad(uri, term, "only one branch: term")
            branch = value
        elif not sep and term in FACETS:
            facets.append(term)
        else:
            raise _bad(uri, term, "known terms: path:<glob>, author:<text>, branch:<name>, " + ", ".join(FACETS))
    return GitQuery(tuple(paths), tuple(authors), branch, tuple(dict.fromkeys(facets)))


def _bad(uri: str, term: str, hint: str) -> SourceError:
    return SourceError("bad-source", f"{uri}: cannot read the query term {term!r}", hint=hint)
