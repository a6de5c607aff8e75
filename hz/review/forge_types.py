"""What the forge adapter promises its callers: a pull request as hz reads it, the operations, the error.

Kept apart from the HTTP code so that the callers (branches, approvals, publishes) import the shapes
without loading an HTTP client: an idle tick with no forge never imports httpx.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

from hz.errors import HzError


class ForgeError(HzError):
    """The forge refused or failed a request. The message never holds the token (it is scrubbed).

    `status` is the HTTP status when the forge answered (None when it could not be reached), so a caller
    can tell "refused" (422) from "gone" (404) without reading the text."""

    def __init__(self, message: str, *, hint: str | None = None, status: int | None = None) -> None:
        super().__init__(message, hint=hint)
        self.status = status


@dataclass(frozen=True)
class PullRequest:
    number: int
    url: str  # the page people open (`html_url`)
    state: Literal["open", "closed"]
    merged: bool
    merged_by: str | None  # the login of who merged it
    merge_commit: str | None  # the commit the merge made on the base branch; None unless merged
    head: str  # the head branch's name
    body: str
    # reviewers the forge would not take (not collaborators, the author): asked for, refused, reported
    unrequested: tuple[str, ...] = ()


class Forge(Protocol):
    def upsert_pull(
        self, branch: str, *, base: str, title: str, body: str, labels: Sequence[str], reviewers: Sequence[str]
    ) -> PullRequest:
        """The open pull request of `branch`, updated to this title and body, or a new one."""
        ...

    def pull_for_branch(self, branch: str) -> PullRequest | None:
        """The newest pull request whose head is `branch`, in any state; None when there is none."""
        ...

    def close_pull(self, number: int) -> None: ...

    def closer(self, number: int) -> str | None:
        """The login of who closed pull request `number` unmerged; None when the forge does not say."""
        ...

    def find_comment(self, issue: int, marker: str) -> int | None:
        """The id of a comment on `issue` (an issue or a pull request) whose body holds `marker`."""
        ...

    def add_comment(self, issue: int, body: str) -> int: ...

    def create_pull(self, branch: str, *, base: str, title: str, body: str) -> PullRequest: ...
