"""The fake GitHub's records (issues, pull requests, faults, requests seen) and its error answer."""

from __future__ import annotations

import re
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

TOKEN_PREFIX = "ghp_fakeForge"  # every fake's token starts so; the rest is its own (fresh_token)
LIMIT = 5000
DOCS = "https://docs.github.com/rest"


def fresh_token() -> str:
    """A token no other fake forge has: a client another test left behind, still asking an old address
    that this fake now holds, is refused (401) before it can take a queued fault or hostile answer."""
    return TOKEN_PREFIX + secrets.token_hex(14)[:27]  # 40 characters in all, as a classic GitHub token


Reply = tuple[int, Any, dict[str, str]]  # status, JSON value (None: no body), extra headers
Route = Callable[[str, "re.Match[str]", dict[str, list[str]], Any, str], Reply]


@dataclass(frozen=True)
class Seen:
    method: str
    path: str
    status: int
    conditional: bool  # the request carried If-None-Match


@dataclass
class Fault:
    status: int
    headers: dict[str, str]
    message: str
    body: Any = None  # the answer's JSON instead of {"message": ...}


@dataclass
class Issue:
    number: int
    title: str
    body: str
    user: str
    state: str = "open"
    labels: list[str] = field(default_factory=list)
    created_at: str = ""
    updated_at: str = ""
    closed_at: str | None = None
    closed_by: str | None = None  # the login of who closed it (GitHub's issue answer names them)
    pull: Pull | None = None


@dataclass
class Pull:
    head: str
    base: str
    head_sha: str
    base_sha: str
    merged: bool = False
    merged_by: str | None = None
    merged_at: str | None = None
    merge_commit_sha: str | None = None
    requested: list[str] = field(default_factory=list)


class Answer(Exception):
    """An error answer, raised from deep in a route."""

    def __init__(self, status: int, message: str, errors: list[dict[str, Any]] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.body: dict[str, Any] = {"message": message, "documentation_url": "https://docs.github.com/rest"}
        if errors is not None:
            self.body["errors"] = errors


def now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


REASONS = {401: "Bad credentials", 403: "Forbidden", 404: "Not Found", 409: "Conflict", 422: "Validation Failed",
            429: "Too Many Requests", 500: "Server Error", 502: "Bad Gateway"}  # fmt: skip
