"""Source URIs whose scheme exists but which its adapter can never read, told the way an author fixes them.

`feed://host/x.xml` reads as a feed file at the absolute path `//host/x.xml`, and `git:https://…` as a
local folder named `https:`; without this check the author hears "reaches outside the repository" or
"no git repository at …/https:". Validation reports these as HZC022 and the adapters refuse them with
the same words, so the message is right wherever it is first met.
"""

from __future__ import annotations

from dataclasses import dataclass

CODE = "HZC022"
_REMOTE_PREFIXES = ("http://", "https://", "ssh://", "git://", "file://", "git@")


@dataclass(frozen=True)
class ShapeProblem:
    message: str  # follows the URI: "<uri> <message>"
    hint: str


def shape_problem(uri: str) -> ShapeProblem | None:
    """Why `uri` can never be read by its scheme's adapter, or None when its shape is fine."""
    scheme, _, target = uri.partition(":")
    target = target.strip()
    if scheme == "feed":
        return _feed(target)
    if scheme == "git":
        return _git(target)
    return None


def refuse_shape(uri: str) -> None:
    """SourceError, in validation's words, for a URI its adapter can never read (before any read)."""
    from hz.sources.base import SourceError

    problem = shape_problem(uri)
    if problem is not None:
        raise SourceError("bad-source", f"{uri} {problem.message}", hint=problem.hint)


def _feed(target: str) -> ShapeProblem | None:
    if target.startswith("//"):
        return ShapeProblem(
            "has no protocol: a feed on the web is read over http or https",
            f"write feed:https:{target} (feed:<path> reads a feed file of the repository instead)",
        )
    scheme, separator, _ = target.partition("://")
    if separator and scheme not in ("http", "https"):
        return ShapeProblem(
            f"uses {scheme}://, which hz does not fetch feeds over",
            "use an http:// or https:// address, or feed:<path> for a feed file in the repository",
        )
    return None


def _git(target: str) -> ShapeProblem | None:
    if target.startswith((*_REMOTE_PREFIXES, "//")):
        return ShapeProblem(
            "names a remote repository; git: reads history already on this machine and never clones",
            "use git:. for this repository, or clone the other one and name its folder, such as git:../other",
        )
    return None
