"""A fake GitHub for tests: a local HTTP server answering GitHub's documented REST shapes for the
endpoints hz uses, backed by a REAL bare git repository (pull requests' head and base are its branches).

Start it (a context manager; or the `fake_forge` fixture of tests/review/conftest.py, a factory):

    with FakeForge(bare_path) as fake:          # 127.0.0.1, a free port, a daemon thread
        env = {**os.environ, **fake.environ}     # HZ_GITHUB_API, GITHUB_TOKEN, GITHUB_REPOSITORY

Construction: `FakeForge(bare, *, owner="team", repo="hz-team", token=TOKEN, login="hz-bot",
web="https://github.com")`. `token` is accepted as `Authorization: Bearer <token>` or `token <token>`
and acts as the user `login` (the author of the pull requests it opens, the merger through the API).

Attributes: `url` (the API base), `environ`, `bare`, `owner`, `repo`, `full_name`, `requests` (every
request answered: `Seen(method, path, status, conditional)`, path with query), `remaining` (the primary
rate limit left; 304s do not spend it), `unrequestable` (a set of logins a review cannot be requested
from: 422, as for a non-collaborator; the author is always refused).

What a reviewer does on the web, done at once on the bare repository with git plumbing (`git merge-tree
--write-tree`, `commit-tree`, `update-ref` with the old value), committer `GitHub <noreply@github.com>`:
- `merge(number, by="login", method="squash"|"merge"|"rebase", message=None, delete_branch=False) -> sha`
  records `merged_by` and `merge_commit_sha`. squash: one commit on the base, author the merger, message
  `<title> (#n)` and then the body of the one commit, or for several commits `* <subject>\\n\\n<body>` of
  each, oldest first (GitHub's default; the draft's trailers stay in the last paragraph only while the
  reviewer added no commit); `message=` replaces the whole message (a reviewer editing it). merge: a merge
  commit `Merge pull request #n from <owner>/<branch>`, then the title. rebase: each commit replayed onto
  the base, authors kept, committer GitHub; `merge_commit_sha` is the last one.
- `edit(number, path, text, by="login", message=None) -> sha`: a reviewer's commit changing one file on
  the head branch (author the reviewer). `edit_and_merge(number, path, text, by, method="squash",
  message=None) -> sha` does both.
- `close(number)`, `delete_branch(branch)`, `open_issue(title, body="") -> number`,
  `open_pull(branch, title, body="", base="main") -> number` (as a person would, not through hz).
Reading the state: `pull(number) -> dict` (the full pull request object), `pulls() -> list[dict]`,
`comments(issue) -> list[dict]`, `count(method=None, path=None) -> int` (requests whose path starts with
`path`, counted at the server).

Faults for the next requests, in order, whatever they ask: `fail(status, times=1, message=None,
headers=None)` (401, 404, 422, 500 ...), `rate_limit_primary(reset_in=30, times=1, status=403)`
(`x-ratelimit-remaining: 0`, `x-ratelimit-reset` now + reset_in; pass `reset=` for an exact header
value), `rate_limit_secondary(retry_after="2", times=1, status=403)` (a `Retry-After`; None for none),
`clear_faults()`. `fail(..., body=...)` answers that JSON instead of `{"message": ...}`.

Endpoints (under /repos/<owner>/<repo>): GET/POST pulls (state, head=owner:branch, base, sort, direction,
per_page, page; list items lack `merged` and `merged_by`, as GitHub's do), GET/PATCH pulls/<n>,
GET/PUT pulls/<n>/merge, GET/POST pulls/<n>/requested_reviewers, GET issues/<n>, GET/POST
issues/<n>/comments, GET/PATCH issues/comments/<id>, GET/POST/PUT issues/<n>/labels, DELETE
git/refs/heads/<branch>; GET /rate_limit. Every GET answer has an ETag and honours `If-None-Match` with
a 304; every answer has `x-ratelimit-*` headers; lists have `Link` headers.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import TracebackType
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from tests.review import fake_forge_git as g

TOKEN = "ghp_fakeForgeToken0123456789abcdefABCDEF"
LIMIT = 5000
DOCS = "https://docs.github.com/rest"


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


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


class FakeForge:
    def __init__(
        self,
        bare: Path,
        *,
        owner: str = "team",
        repo: str = "hz-team",
        token: str = TOKEN,
        login: str = "hz-bot",
        web: str = "https://github.com",
    ) -> None:
        self.bare = Path(bare)
        self.owner, self.repo, self.token, self.login, self.web = owner, repo, token, login, web
        self.full_name = f"{owner}/{repo}"
        self.requests: list[Seen] = []
        self.remaining = LIMIT
        self.unrequestable: set[str] = set()
        self.issues: dict[int, Issue] = {}
        self._comments: dict[int, list[dict[str, Any]]] = {}
        self._faults: list[Fault] = []
        self._ids = iter(range(1_000_001, 10**9))
        self._lock = threading.RLock()
        self._server: ThreadingHTTPServer | None = None
        self.url = ""

    # -- lifecycle

    def start(self) -> FakeForge:
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        threading.Thread(target=self._server.serve_forever, args=(0.05,), name="fake-forge", daemon=True).start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> FakeForge:
        return self.start()

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.stop()

    @property
    def environ(self) -> dict[str, str]:
        return {"HZ_GITHUB_API": self.url, "GITHUB_TOKEN": self.token, "GITHUB_REPOSITORY": self.full_name}

    # -- faults

    def fail(
        self, status: int, times: int = 1, message: str | None = None, headers: dict[str, str] | None = None,
        body: Any = None,
    ) -> None:  # fmt: skip
        with self._lock:
            fault = Fault(status, dict(headers or {}), message or _REASONS.get(status, "Error"), body)
            self._faults += [fault] * times

    def clear_faults(self) -> None:
        with self._lock:
            self._faults.clear()

    def rate_limit_primary(
        self, reset_in: int = 30, times: int = 1, status: int = 403, reset: str | None = None
    ) -> None:
        value = reset if reset is not None else str(int(time.time()) + reset_in)
        headers = {"x-ratelimit-remaining": "0", "x-ratelimit-reset": value}
        self.fail(status, times, "API rate limit exceeded for user ID 1.", headers)

    def rate_limit_secondary(self, retry_after: str | None = "2", times: int = 1, status: int = 403) -> None:
        headers = {} if retry_after is None else {"retry-after": retry_after}
        self.fail(status, times, "You have exceeded a secondary rate limit. Please wait a few minutes.", headers)

    # -- what people do on the web

    def open_issue(self, title: str, body: str = "", by: str | None = None) -> int:
        with self._lock:
            number = len(self.issues) + 1
            self.issues[number] = Issue(number, title, body, by or self.login, created_at=_now(), updated_at=_now())
            return number

    def comment(self, issue: int, body: str, by: str | None = None) -> int:
        """A comment on `issue` as a person would write it on the web; its id."""
        with self._lock:
            self._issue(issue)
            made = self._comment(issue, body, by or self.login)
            self._comments.setdefault(issue, []).append(made)
            return int(made["id"])

    def open_pull(self, branch: str, title: str, body: str = "", base: str = "main", by: str | None = None) -> int:
        with self._lock:
            return self._create_pull({"head": branch, "base": base, "title": title, "body": body}, by or self.login)

    def merge(
        self, number: int, by: str = "reviewer", method: str = "squash", message: str | None = None,
        delete_branch: bool = False,
    ) -> str:  # fmt: skip
        with self._lock:
            issue, pull = self._open_pull(number)
            head = g.rev(self.bare, pull.head)
            base = g.rev(self.bare, pull.base)
            if head is None or base is None:
                raise Answer(422, "Head or base branch is gone")
            sha = self._merged(issue, pull, head, base, by, method, message)
            g.move(self.bare, pull.base, sha, base)
            now = _now()
            pull.merged, pull.merged_by, pull.merged_at, pull.merge_commit_sha = True, by, now, sha
            pull.head_sha, pull.base_sha = head, base
            issue.state, issue.closed_at, issue.updated_at = "closed", now, now
            if delete_branch:
                self.delete_branch(pull.head)
            return sha

    def edit(self, number: int, path: str, text: str, by: str = "reviewer", message: str | None = None) -> str:
        with self._lock:
            _issue, pull = self._open_pull(number)
            head = g.rev(self.bare, pull.head)
            if head is None:
                raise Answer(422, "Head branch is gone")
            tree = g.changed_tree(self.bare, head, path, text)
            sha = g.commit(self.bare, tree, [head], (message or f"Update {path}") + "\n", author=g.user(by))
            g.move(self.bare, pull.head, sha, head)
            pull.head_sha = sha
            return sha

    def edit_and_merge(
        self, number: int, path: str, text: str, by: str = "reviewer", method: str = "squash",
        message: str | None = None,
    ) -> str:  # fmt: skip
        self.edit(number, path, text, by)
        return self.merge(number, by, method, message)

    def close(self, number: int) -> None:
        with self._lock:
            issue = self._issue(number)
            if issue.pull is not None and issue.pull.merged:
                raise Answer(422, "Pull request is merged")
            issue.state = "closed"
            issue.closed_at = issue.updated_at = _now()

    def delete_branch(self, branch: str) -> None:
        with self._lock:
            old = g.rev(self.bare, branch)
            if old is None:
                raise Answer(422, "Reference does not exist")
            g.git(self.bare, "update-ref", "-d", f"refs/heads/{branch}", old)

    # -- reading the state

    def pull(self, number: int) -> dict[str, Any]:
        with self._lock:
            return self._pull_json(self._issue(number), full=True)

    def pulls(self) -> list[dict[str, Any]]:
        with self._lock:
            return [self._pull_json(i, full=True) for i in self.issues.values() if i.pull is not None]

    def comments(self, issue: int) -> list[dict[str, Any]]:
        with self._lock:
            return [dict(c) for c in self._comments.get(issue, [])]

    def count(self, method: str | None = None, path: str | None = None) -> int:
        with self._lock:
            return sum(
                1
                for s in self.requests
                if (method is None or s.method == method) and (path is None or s.path.startswith(path))
            )

    # -- the pieces behind the routes

    def _issue(self, number: int) -> Issue:
        issue = self.issues.get(number)
        if issue is None:
            raise Answer(404, "Not Found")
        return issue

    def _open_pull(self, number: int) -> tuple[Issue, Pull]:
        issue = self._issue(number)
        if issue.pull is None:
            raise Answer(404, "Not Found")
        if issue.state != "open":
            raise Answer(405, "Pull Request is not mergeable")
        return issue, issue.pull

    def _merged(self, issue: Issue, pull: Pull, head: str, base: str, by: str, method: str, message: str | None) -> str:
        shas = g.commits(self.bare, base, head)
        try:
            if method == "rebase":
                tip = base
                for sha in shas:
                    tree = g.replayed_tree(self.bare, tip, sha)
                    subject, body = g.message(self.bare, sha)
                    tip = g.commit(
                        self.bare,
                        tree,
                        [tip],
                        f"{subject}\n\n{body}".rstrip() + "\n",
                        author=g.author_of(self.bare, sha),
                    )
                return tip
            tree = g.merged_tree(self.bare, base, head)
        except g.Conflict as exc:
            raise Answer(405, f"Pull Request is not mergeable: {exc}") from None
        if method == "merge":
            text = message or f"Merge pull request #{issue.number} from {self.owner}/{pull.head}\n\n{issue.title}"
            return g.commit(self.bare, tree, [base, head], text.rstrip() + "\n", author=g.user(by))
        if method != "squash":
            raise Answer(422, f"Invalid merge_method: {method}")
        return g.commit(
            self.bare, tree, [base], (message or self._squash_message(issue, shas)).rstrip() + "\n", author=g.user(by)
        )

    def _squash_message(self, issue: Issue, shas: list[str]) -> str:
        parts = [g.message(self.bare, sha) for sha in shas]
        if len(parts) == 1:
            body = parts[0][1]
        else:
            body = "\n\n".join(f"* {subject}\n\n{text}".rstrip() for subject, text in parts)
        return f"{issue.title} (#{issue.number})\n\n{body}"

    def _create_pull(self, data: dict[str, Any], user: str) -> int:
        missing = [k for k in ("head", "base", "title") if not isinstance(data.get(k), str) or not data.get(k)]
        if missing:
            raise Answer(
                422, "Validation Failed", [{"resource": "PullRequest", "field": missing[0], "code": "missing_field"}]
            )
        head = str(data["head"]).removeprefix(f"{self.owner}:")
        base = str(data["base"])
        head_sha, base_sha = g.rev(self.bare, head), g.rev(self.bare, base)
        for name, sha in (("head", head_sha), ("base", base_sha)):
            if sha is None:
                raise Answer(422, "Validation Failed", [{"resource": "PullRequest", "field": name, "code": "invalid"}])
        assert head_sha is not None and base_sha is not None
        for issue in self.issues.values():
            if issue.pull and issue.state == "open" and issue.pull.head == head and issue.pull.base == base:
                msg = f"A pull request already exists for {self.owner}:{head}."
                raise Answer(422, "Validation Failed", [{"resource": "PullRequest", "code": "custom", "message": msg}])
        if not g.commits(self.bare, base_sha, head_sha):
            msg = f"No commits between {base} and {head}"
            raise Answer(422, "Validation Failed", [{"resource": "PullRequest", "code": "custom", "message": msg}])
        number = len(self.issues) + 1
        body = data.get("body")
        issue = Issue(
            number,
            str(data["title"]),
            body if isinstance(body, str) else "",
            user,
            created_at=_now(),
            updated_at=_now(),
        )
        issue.pull = Pull(head, base, head_sha, base_sha)
        self.issues[number] = issue
        return number

    def _user(self, login: str) -> dict[str, Any]:
        number = int(hashlib.sha256(login.encode()).hexdigest()[:6], 16)
        return {"login": login, "id": number, "type": "User", "site_admin": False, "html_url": f"{self.web}/{login}"}

    def _label(self, name: str) -> dict[str, Any]:
        number = int(hashlib.sha256(name.encode()).hexdigest()[:6], 16)
        return {"id": number, "name": name, "color": "ededed", "default": False, "description": None}

    def _pull_json(self, issue: Issue, *, full: bool) -> dict[str, Any]:
        pull = issue.pull
        if pull is None:
            raise Answer(404, "Not Found")
        live = g.rev(self.bare, pull.head) if issue.state == "open" else None
        head_sha = live or pull.head_sha
        api = f"{self.url}/repos/{self.full_name}"
        repo = {"full_name": self.full_name, "name": self.repo, "owner": self._user(self.owner)}
        data: dict[str, Any] = {
            "url": f"{api}/pulls/{issue.number}",
            "id": 5_000_000 + issue.number,
            "html_url": f"{self.web}/{self.full_name}/pull/{issue.number}",
            "number": issue.number,
            "state": issue.state,
            "locked": False,
            "title": issue.title,
            "user": self._user(issue.user),
            "body": issue.body or None,
            "labels": [self._label(name) for name in issue.labels],
            "created_at": issue.created_at,
            "updated_at": issue.updated_at,
            "closed_at": issue.closed_at,
            "merged_at": pull.merged_at,
            "merge_commit_sha": pull.merge_commit_sha or (head_sha if issue.state == "open" else None),
            "requested_reviewers": [self._user(login) for login in pull.requested],
            "requested_teams": [],
            "head": {
                "label": f"{self.owner}:{pull.head}",
                "ref": pull.head,
                "sha": head_sha,
                "user": self._user(self.owner),
                "repo": repo,
            },
            "base": {
                "label": f"{self.owner}:{pull.base}",
                "ref": pull.base,
                "sha": g.rev(self.bare, pull.base) or pull.base_sha,
                "user": self._user(self.owner),
                "repo": repo,
            },
            "draft": False,
        }
        if full:  # only the single pull request says whether and by whom it was merged
            merged_by = self._user(pull.merged_by) if pull.merged_by else None
            data.update(
                merged=pull.merged,
                merged_by=merged_by,
                mergeable=None if pull.merged else True,
                comments=len(self._comments.get(issue.number, [])),
            )
        return data

    def _issue_json(self, issue: Issue) -> dict[str, Any]:
        data = {
            "id": 7_000_000 + issue.number,
            "number": issue.number,
            "html_url": f"{self.web}/{self.full_name}/issues/{issue.number}",
            "title": issue.title,
            "body": issue.body or None,
            "state": issue.state,
            "user": self._user(issue.user),
            "labels": [self._label(name) for name in issue.labels],
            "created_at": issue.created_at,
            "updated_at": issue.updated_at,
            "closed_at": issue.closed_at,
        }
        if issue.pull is not None:
            data["pull_request"] = {"url": f"{self.url}/repos/{self.full_name}/pulls/{issue.number}"}
        return data

    def _comment(self, issue: int, body: str, user: str) -> dict[str, Any]:
        number = next(self._ids)
        return {
            "id": number,
            "html_url": f"{self.web}/{self.full_name}/issues/{issue}#issuecomment-{number}",
            "issue_url": f"{self.url}/repos/{self.full_name}/issues/{issue}",
            "body": body,
            "user": self._user(user),
            "created_at": _now(),
            "updated_at": _now(),
        }

    # -- routing

    def route(self, method: str, path: str, query: dict[str, list[str]], data: Any, user: str) -> Reply:
        if path == "/rate_limit" and method == "GET":
            core = {
                "limit": LIMIT,
                "remaining": self.remaining,
                "reset": int(time.time()) + 3600,
                "used": LIMIT - self.remaining,
            }
            return 200, {"resources": {"core": core}, "rate": core}, {}
        prefix = f"/repos/{self.full_name}/"
        if not path.startswith(prefix):
            raise Answer(404, "Not Found")
        rest = path[len(prefix) :]
        for pattern, handler in self._routes():
            found = re.fullmatch(pattern, rest)
            if found:
                return handler(method, found, query, data if isinstance(data, dict | list) else {}, user)
        raise Answer(404, "Not Found")

    def _routes(self) -> list[tuple[str, Route]]:
        return [
            (r"pulls", self._r_pulls),
            (r"pulls/(\d+)", self._r_pull),
            (r"pulls/(\d+)/merge", self._r_merge),
            (r"pulls/(\d+)/requested_reviewers", self._r_reviewers),
            (r"issues/(\d+)", self._r_issue),
            (r"issues/(\d+)/comments", self._r_comments),
            (r"issues/comments/(\d+)", self._r_comment),
            (r"issues/(\d+)/labels", self._r_labels),
            (r"git/refs/heads/(.+)", self._r_ref),
        ]

    def _r_pulls(self, method: str, _m: re.Match[str], query: dict[str, list[str]], data: Any, user: str) -> Reply:
        if method == "POST":
            return 201, self._pull_json(self.issues[self._create_pull(data, user)], full=True), {}
        if method != "GET":
            raise Answer(404, "Not Found")
        state = _q(query, "state", "open")
        pulls = [i for i in self.issues.values() if i.pull is not None and (state == "all" or i.state == state)]
        head = _q(query, "head", "")
        if head:
            owner, _, ref = head.partition(":")
            pulls = [i for i in pulls if owner == self.owner and (not ref or (i.pull and i.pull.head == ref))]
        base = _q(query, "base", "")
        if base:
            pulls = [i for i in pulls if i.pull and i.pull.base == base]
        key = "updated_at" if _q(query, "sort", "created") == "updated" else "created_at"
        pulls.sort(key=lambda i: (getattr(i, key), i.number), reverse=_q(query, "direction", "desc") == "desc")
        return 200, [self._pull_json(i, full=False) for i in pulls], {}

    def _r_pull(self, method: str, m: re.Match[str], _q_: dict[str, list[str]], data: Any, _u: str) -> Reply:
        issue = self._issue(int(m.group(1)))
        if issue.pull is None:
            raise Answer(404, "Not Found")
        if method == "PATCH":
            self._patch_pull(issue, data)
        elif method != "GET":
            raise Answer(404, "Not Found")
        return 200, self._pull_json(issue, full=True), {}

    def _patch_pull(self, issue: Issue, data: dict[str, Any]) -> None:
        assert issue.pull is not None
        if "title" in data:
            issue.title = str(data["title"])
        if "body" in data:
            issue.body = str(data["body"] or "")
        if "base" in data:
            if g.rev(self.bare, str(data["base"])) is None:
                raise Answer(
                    422, "Validation Failed", [{"resource": "PullRequest", "field": "base", "code": "invalid"}]
                )
            issue.pull.base = str(data["base"])
        if data.get("state") == "closed" and issue.state == "open":
            if issue.pull.merged:
                raise Answer(
                    422, "Validation Failed", [{"resource": "PullRequest", "code": "custom", "message": "merged"}]
                )
            issue.state, issue.closed_at = "closed", _now()
            issue.pull.head_sha = g.rev(self.bare, issue.pull.head) or issue.pull.head_sha
        elif data.get("state") == "open" and issue.state == "closed":
            if issue.pull.merged or g.rev(self.bare, issue.pull.head) is None:
                raise Answer(
                    422,
                    "Validation Failed",
                    [{"resource": "PullRequest", "code": "custom", "message": "state cannot be changed"}],
                )
            issue.state, issue.closed_at = "open", None
        issue.updated_at = _now()

    def _r_merge(self, method: str, m: re.Match[str], _q_: dict[str, list[str]], data: Any, user: str) -> Reply:
        issue = self._issue(int(m.group(1)))
        if issue.pull is None:
            raise Answer(404, "Not Found")
        if method == "GET":
            return (204, None, {}) if issue.pull.merged else (404, {"message": "Not Found"}, {})
        if method != "PUT":
            raise Answer(404, "Not Found")
        if data.get("sha") and data["sha"] != g.rev(self.bare, issue.pull.head):
            raise Answer(409, "Head branch was modified. Review and try the merge again.")
        title, text = data.get("commit_title"), data.get("commit_message")
        message = None if title is None and text is None else f"{title or issue.title}\n\n{text or ''}"
        sha = self.merge(issue.number, user, str(data.get("merge_method") or "merge"), message)
        return 200, {"sha": sha, "merged": True, "message": "Pull Request successfully merged"}, {}

    def _r_reviewers(self, method: str, m: re.Match[str], _q_: dict[str, list[str]], data: Any, _u: str) -> Reply:
        issue = self._issue(int(m.group(1)))
        if issue.pull is None:
            raise Answer(404, "Not Found")
        if method == "GET":
            return 200, {"users": [self._user(u) for u in issue.pull.requested], "teams": []}, {}
        if method != "POST":
            raise Answer(404, "Not Found")
        logins = [str(r) for r in data.get("reviewers") or []]
        if issue.user in logins:
            raise Answer(422, "Review cannot be requested from pull request author.")
        if self.unrequestable.intersection(logins):
            raise Answer(422, f"Reviews may only be requested from collaborators of {self.full_name}.")
        issue.pull.requested += [login for login in logins if login not in issue.pull.requested]
        return 201, self._pull_json(issue, full=False), {}

    def _r_issue(self, method: str, m: re.Match[str], _q_: dict[str, list[str]], _d: Any, _u: str) -> Reply:
        if method != "GET":
            raise Answer(404, "Not Found")
        return 200, self._issue_json(self._issue(int(m.group(1)))), {}

    def _r_comments(self, method: str, m: re.Match[str], _q_: dict[str, list[str]], data: Any, user: str) -> Reply:
        number = int(m.group(1))
        self._issue(number)
        if method == "POST":
            if not isinstance(data.get("body"), str) or not data["body"]:
                raise Answer(
                    422, "Validation Failed", [{"resource": "IssueComment", "field": "body", "code": "missing_field"}]
                )
            comment = self._comment(number, data["body"], user)
            self._comments.setdefault(number, []).append(comment)
            return 201, comment, {}
        if method != "GET":
            raise Answer(404, "Not Found")
        return 200, list(self._comments.get(number, [])), {}

    def _r_comment(self, method: str, m: re.Match[str], _q_: dict[str, list[str]], data: Any, _u: str) -> Reply:
        wanted = int(m.group(1))
        comment = next((c for cs in self._comments.values() for c in cs if c["id"] == wanted), None)
        if comment is None:
            raise Answer(404, "Not Found")
        if method == "PATCH" and isinstance(data.get("body"), str):
            comment.update(body=data["body"], updated_at=_now())
        elif method != "GET":
            raise Answer(404, "Not Found")
        return 200, comment, {}

    def _r_labels(self, method: str, m: re.Match[str], _q_: dict[str, list[str]], data: Any, _u: str) -> Reply:
        issue = self._issue(int(m.group(1)))
        names = data if isinstance(data, list) else data.get("labels") or []
        if method == "PUT":
            issue.labels = []
        if method in ("POST", "PUT"):
            issue.labels += [str(n) for n in names if str(n) not in issue.labels]
            issue.updated_at = _now()
        elif method != "GET":
            raise Answer(404, "Not Found")
        return 200, [self._label(n) for n in issue.labels], {}

    def _r_ref(self, method: str, m: re.Match[str], _q_: dict[str, list[str]], _d: Any, _u: str) -> Reply:
        if method != "DELETE":
            raise Answer(404, "Not Found")
        self.delete_branch(unquote(m.group(1)))
        return 204, None, {}

    # -- one request, start to end (called from the server's threads)

    def answer(
        self, method: str, target: str, headers: dict[str, str], raw: bytes
    ) -> tuple[int, dict[str, str], bytes]:
        parts = urlsplit(target)
        conditional = "if-none-match" in headers
        with self._lock:
            status, out_headers, body = self._answer(method, parts.path, parse_qs(parts.query), headers, raw, target)
            self.requests.append(Seen(method, target, status, conditional))
            return status, out_headers, body

    def _answer(
        self, method: str, path: str, query: dict[str, list[str]], headers: dict[str, str], raw: bytes, target: str
    ) -> tuple[int, dict[str, str], bytes]:
        auth = headers.get("authorization", "")
        if auth not in (f"Bearer {self.token}", f"token {self.token}"):
            return self._json(401, {"message": "Bad credentials", "documentation_url": "https://docs.github.com/rest"})
        if self._faults:
            fault = self._faults.pop(0)
            shown = fault.body if fault.body is not None else {"message": fault.message, "documentation_url": DOCS}
            status, out, body = self._json(fault.status, shown)
            out.update(fault.headers)
            return status, out, body
        try:
            data = json.loads(raw) if raw else {}
        except ValueError:
            return self._json(400, {"message": "Problems parsing JSON"})
        try:
            status, value, extra = self.route(method, path, query, data, self.login)
        except Answer as answer:
            return self._json(answer.status, answer.body)
        if method == "GET" and isinstance(value, list):
            value, extra = self._page(value, query, path)
        out_status, out, body = self._json(status, value)
        out.update(extra)
        if method == "GET" and status == 200:
            etag = 'W/"' + hashlib.sha256(body).hexdigest()[:32] + '"'
            out["etag"] = etag
            wanted = [t.strip() for t in headers.get("if-none-match", "").split(",")]
            if etag in wanted:
                self.remaining += 1  # a 304 is free: give back what _json took
                out["x-ratelimit-remaining"] = str(self.remaining)
                return 304, {k: v for k, v in out.items() if k != "content-type"}, b""
        return out_status, out, body

    def _page(self, items: list[Any], query: dict[str, list[str]], path: str) -> tuple[list[Any], dict[str, str]]:
        per_page = max(1, min(100, int(_q(query, "per_page", "30") or 30)))
        page = max(1, int(_q(query, "page", "1") or 1))
        last = max(1, -(-len(items) // per_page))
        chunk = items[(page - 1) * per_page : page * per_page]
        links = []
        for rel, number in (("prev", page - 1), ("next", page + 1), ("first", 1), ("last", last)):
            if 1 <= number <= last and number != page:
                params = {k: v[-1] for k, v in query.items() if k != "page"} | {"page": str(number)}
                qs = "&".join(f"{k}={v}" for k, v in params.items())
                links.append(f'<{self.url}{path}?{qs}>; rel="{rel}"')
        return chunk, ({"link": ", ".join(links)} if links else {})

    def _json(self, status: int, value: Any) -> tuple[int, dict[str, str], bytes]:
        self.remaining = max(0, self.remaining - 1)
        headers = {
            "x-ratelimit-limit": str(LIMIT),
            "x-ratelimit-remaining": str(self.remaining),
            "x-ratelimit-reset": str(int(time.time()) + 3600),
            "x-ratelimit-used": str(LIMIT - self.remaining),
            "x-ratelimit-resource": "core",
            "x-github-api-version-selected": "2022-11-28",
        }
        if value is None:
            return status, headers, b""
        headers["content-type"] = "application/json; charset=utf-8"
        return status, headers, json.dumps(value).encode()


_REASONS = {401: "Bad credentials", 403: "Forbidden", 404: "Not Found", 409: "Conflict", 422: "Validation Failed",
            429: "Too Many Requests", 500: "Server Error", 502: "Bad Gateway"}  # fmt: skip


def _q(query: dict[str, list[str]], name: str, default: str) -> str:
    values = query.get(name)
    return values[-1] if values else default


def _handler(fake: FakeForge) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def _serve(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            raw = self.rfile.read(length) if length else b""
            headers = {k.lower(): v for k, v in self.headers.items()}
            status, out, body = fake.answer(self.command, self.path, headers, raw)
            self.send_response(status)
            for name, value in out.items():
                self.send_header(name, value)
            if status != 304 and status != 204:
                self.send_header("content-length", str(len(body)))
            self.end_headers()
            if body and status not in (204, 304):
                self.wfile.write(body)

        do_GET = do_POST = do_PATCH = do_PUT = do_DELETE = _serve

        def log_message(self, format: str, *args: Any) -> None:
            pass

    return Handler


def serve(bare: Path, **options: Any) -> Iterator[FakeForge]:
    """A started fake forge for `bare`, stopped afterwards (for a `yield from` in a fixture)."""
    fake = FakeForge(bare, **options).start()
    try:
        yield fake
    finally:
        fake.stop()
