"""The forge operations on GitHub's REST API: one pull request per draft branch, its state and merger,
closing it, and comments found again by a hidden marker.

An unchanged draft costs one conditional GET per upsert (a 304, free of the rate limit): the title, the
body, the labels and the reviewers are written only when they differ. The list of pull requests does not
say who merged one (GitHub's list items lack `merged` and `merged_by`), so the state of a merged pull
request is read from the pull request itself.
"""

from __future__ import annotations

import logging
import weakref
from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import quote

from hz.review.forge_http import Reply, Transport
from hz.review.forge_types import ForgeError, PullRequest
from hz.secrets import secrets_of

log = logging.getLogger(__name__)
API_VERSION = "2022-11-28"
USER_AGENT = "hz-forge/1"


class GitHubForge:
    """The `Forge` of one GitHub repository (`owner/name`)."""

    def __init__(self, transport: Transport) -> None:
        self.http = transport
        self.repo = transport.repo
        self.owner = self.repo.split("/", 1)[0]
        # the client's connections close with the adapter even when a caller never calls close()
        self._closer = weakref.finalize(self, transport.client.close)

    @classmethod
    def connect(cls, base: str, repo: str, token: str, environ: Mapping[str, str], **options: Any) -> GitHubForge:
        """The adapter with its own HTTP client; `options` go to `Transport` (sleep, clock, max_wait_s)."""
        from hz.http.client import limits_from, new_client

        headers = {
            "Authorization": f"Bearer {token}",
            "Accept": "application/vnd.github+json",
            "X-GitHub-Api-Version": API_VERSION,
            "User-Agent": USER_AGENT,
        }
        options.setdefault("limits", limits_from(environ))
        return cls(Transport(new_client(headers), base, repo, token, secrets_of(environ), **options))

    def close(self) -> None:
        self._closer()

    def __enter__(self) -> GitHubForge:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- pull requests

    def upsert_pull(
        self, branch: str, *, base: str, title: str, body: str, labels: Sequence[str], reviewers: Sequence[str]
    ) -> PullRequest:
        found = self._listed(branch, "open")
        if found is None:
            data = self._create(branch, base=base, title=title, body=body)
            changed = True
        else:
            changes = {k: v for k, v in (("title", title), ("body", body)) if (found.get(k) or "") != v}
            if _inner(found, "base", "ref") != base:
                changes["base"] = base
            patch = self._repo(f"pulls/{_number(found)}")
            data = _object(self.http.send("PATCH", patch, changes)) if changes else found
            changed = bool(changes)
        number = _number(data)
        self._label(number, data, labels)
        refused = self._request_reviewers(number, data, reviewers) if changed else ()
        return _pull(data, unrequested=refused)

    def pull_for_branch(self, branch: str) -> PullRequest | None:
        found = self._listed(branch, "all")
        return None if found is None else self.pull(_number(found))

    def pull(self, number: int) -> PullRequest | None:
        """Pull request `number` with its merger, None when GitHub has none of that number."""
        reply = self.http.get(self._repo(f"pulls/{int(number)}"), missing_ok=True)
        return None if reply.status == 404 else _pull(_object(reply))

    def closer(self, number: int) -> str | None:
        """The login of who closed issue or pull request `number` (GitHub names them on the issue only)."""
        reply = self.http.get(self._repo(f"issues/{int(number)}"), missing_ok=True)
        return None if reply.status == 404 else _inner(_object(reply), "closed_by", "login")

    def close_pull(self, number: int) -> None:
        self.http.send("PATCH", self._repo(f"pulls/{int(number)}"), {"state": "closed"})

    def create_pull(self, branch: str, *, base: str, title: str, body: str) -> PullRequest:
        return _pull(self._create(branch, base=base, title=title, body=body))

    def _create(self, branch: str, *, base: str, title: str, body: str) -> dict[str, Any]:
        payload = {"title": title, "head": branch, "base": base, "body": body}
        return _object(self.http.send("POST", self._repo("pulls"), payload))

    def _listed(self, branch: str, state: str) -> dict[str, Any] | None:
        """The newest pull request in `state` whose head is `branch` of this repository, as listed."""
        head = quote(f"{self.owner}:{branch}", safe=":/")
        path = self._repo(f"pulls?state={state}&head={head}&sort=created&direction=desc&per_page=100")
        listed = self.http.get(path).data
        if not isinstance(listed, list):
            raise ForgeError(f"GitHub answered the pull requests of {self.repo} with something that is not a list")
        items = [i for i in listed if isinstance(i, dict) and _head(i) == branch]
        return max(items, key=_number, default=None)

    def _label(self, number: int, data: dict[str, Any], labels: Sequence[str]) -> None:
        have = {label.get("name") for label in data.get("labels") or [] if isinstance(label, dict)}
        missing = [label for label in dict.fromkeys(labels) if label not in have]
        if missing:
            self.http.send("POST", self._repo(f"issues/{number}/labels"), {"labels": missing})

    def _request_reviewers(self, number: int, data: dict[str, Any], reviewers: Sequence[str]) -> tuple[str, ...]:
        """Ask `reviewers` not yet asked; the ones GitHub refuses (422: not a collaborator, the author) are
        returned and logged, not raised: the pull request stands without them."""
        asked = {user.get("login") for user in data.get("requested_reviewers") or [] if isinstance(user, dict)}
        author = _inner(data, "user", "login")
        wanted = [r for r in dict.fromkeys(reviewers) if r not in asked and r != author]
        if not wanted:
            return ()
        path = self._repo(f"pulls/{number}/requested_reviewers")
        if self._ask(path, wanted):
            return ()
        refused = tuple(r for r in wanted if len(wanted) == 1 or not self._ask(path, [r]))
        for login in refused:
            log.warning("GitHub would not request a review of pull request #%d from %s", number, login)
        return refused

    def _ask(self, path: str, logins: list[str]) -> bool:
        try:
            self.http.send("POST", path, {"reviewers": logins})
        except ForgeError as exc:
            if exc.status == 422:
                return False
            raise
        return True

    # -- comments

    def find_comment(self, issue: int, marker: str) -> int | None:
        for comment in self.http.pages(self._repo(f"issues/{int(issue)}/comments?per_page=100")):
            if isinstance(comment, dict) and marker in str(comment.get("body") or ""):
                return _id(comment)
        return None

    def add_comment(self, issue: int, body: str) -> int:
        reply = self.http.send("POST", self._repo(f"issues/{int(issue)}/comments"), {"body": body})
        return _id(_object(reply))

    def _repo(self, rest: str) -> str:
        return f"repos/{self.repo}/{rest}"


def _object(reply: Reply) -> dict[str, Any]:
    if not isinstance(reply.data, dict):
        raise ForgeError("GitHub answered with something that is not an object", status=reply.status)
    return reply.data


def _number(data: dict[str, Any]) -> int:
    number = data.get("number")
    if isinstance(number, bool) or not isinstance(number, int):
        raise ForgeError("GitHub answered with a pull request that has no number")
    return number


def _id(data: dict[str, Any]) -> int:
    found = data.get("id")
    if isinstance(found, bool) or not isinstance(found, int):
        raise ForgeError("GitHub answered with a comment that has no id")
    return found


def _inner(data: dict[str, Any], key: str, field: str) -> str | None:
    """`data[key][field]` as text (`head.ref`, `user.login`), None when the answer lacks it."""
    inner = data.get(key)
    value = inner.get(field) if isinstance(inner, dict) else None
    return str(value) if value is not None else None


def _head(data: dict[str, Any]) -> str:
    return _inner(data, "head", "ref") or ""


def _pull(data: Any, unrequested: tuple[str, ...] = ()) -> PullRequest:
    """A PullRequest from a pull request object, full or as listed (which lacks `merged` and `merged_by`)."""
    if not isinstance(data, dict):
        raise ForgeError("GitHub answered with something that is not a pull request")
    merged = bool(data.get("merged", data.get("merged_at") is not None))
    return PullRequest(
        number=_number(data),
        url=str(data.get("html_url") or ""),
        state="open" if data.get("state") == "open" else "closed",
        merged=merged,
        merged_by=_inner(data, "merged_by", "login") if merged else None,
        merge_commit=str(data["merge_commit_sha"]) if merged and data.get("merge_commit_sha") else None,
        head=_head(data),
        body=str(data.get("body") or ""),
        unrequested=unrequested,
    )
