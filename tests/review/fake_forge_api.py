"""The fake GitHub's HTTP side: the routes, GitHub's documented response shapes, and each answer's
headers (ETag and 304, rate-limit counters, Link pages); faults and the token are checked here first."""

from __future__ import annotations

import hashlib
import json
import re
import time
from collections.abc import Mapping
from http.server import BaseHTTPRequestHandler
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, unquote, urlsplit

from tests.review import fake_forge_git as g
from tests.review.fake_forge_model import DOCS, LIMIT, TOKEN_PREFIX, Answer, Issue, Reply, Route, Seen, now

if TYPE_CHECKING:
    from tests.review.fake_forge import FakeForge


class Api:
    def __init__(self, fake: FakeForge) -> None:
        self.fake = fake

    def _user(self, login: str) -> dict[str, Any]:
        number = int(hashlib.sha256(login.encode()).hexdigest()[:6], 16)
        return {
            "login": login,
            "id": number,
            "type": "User",
            "site_admin": False,
            "html_url": f"{self.fake.web}/{login}",
        }

    def _label(self, name: str) -> dict[str, Any]:
        number = int(hashlib.sha256(name.encode()).hexdigest()[:6], 16)
        return {"id": number, "name": name, "color": "ededed", "default": False, "description": None}

    def pull_json(self, issue: Issue, *, full: bool) -> dict[str, Any]:
        pull = issue.pull
        if pull is None:
            raise Answer(404, "Not Found")
        live = g.rev(self.fake.bare, pull.head) if issue.state == "open" else None
        head_sha = live or pull.head_sha
        api = f"{self.fake.url}/repos/{self.fake.full_name}"
        repo = {"full_name": self.fake.full_name, "name": self.fake.repo, "owner": self._user(self.fake.owner)}
        data: dict[str, Any] = {
            "url": f"{api}/pulls/{issue.number}",
            "id": 5_000_000 + issue.number,
            "html_url": f"{self.fake.web}/{self.fake.full_name}/pull/{issue.number}",
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
                "label": f"{self.fake.owner}:{pull.head}",
                "ref": pull.head,
                "sha": head_sha,
                "user": self._user(self.fake.owner),
                "repo": repo,
            },
            "base": {
                "label": f"{self.fake.owner}:{pull.base}",
                "ref": pull.base,
                "sha": g.rev(self.fake.bare, pull.base) or pull.base_sha,
                "user": self._user(self.fake.owner),
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
                comments=len(self.fake.threads.get(issue.number, [])),
            )
        return data

    def _issue_json(self, issue: Issue) -> dict[str, Any]:
        data = {
            "id": 7_000_000 + issue.number,
            "number": issue.number,
            "html_url": f"{self.fake.web}/{self.fake.full_name}/issues/{issue.number}",
            "title": issue.title,
            "body": issue.body or None,
            "state": issue.state,
            "user": self._user(issue.user),
            "labels": [self._label(name) for name in issue.labels],
            "created_at": issue.created_at,
            "updated_at": issue.updated_at,
            "closed_at": issue.closed_at,
            "closed_by": self._user(issue.closed_by) if issue.closed_by and issue.state == "closed" else None,
        }
        if issue.pull is not None:
            data["pull_request"] = {"url": f"{self.fake.url}/repos/{self.fake.full_name}/pulls/{issue.number}"}
        return data

    def comment_json(self, issue: int, body: str, user: str) -> dict[str, Any]:
        number = next(self.fake.ids)
        return {
            "id": number,
            "html_url": f"{self.fake.web}/{self.fake.full_name}/issues/{issue}#issuecomment-{number}",
            "issue_url": f"{self.fake.url}/repos/{self.fake.full_name}/issues/{issue}",
            "body": body,
            "user": self._user(user),
            "created_at": now(),
            "updated_at": now(),
        }

    # -- routing

    def route(self, method: str, path: str, query: dict[str, list[str]], data: Any, user: str) -> Reply:
        if path == "/rate_limit" and method == "GET":
            core = {
                "limit": LIMIT,
                "remaining": self.fake.remaining,
                "reset": int(time.time()) + 3600,
                "used": LIMIT - self.fake.remaining,
            }
            return 200, {"resources": {"core": core}, "rate": core}, {}
        prefix = f"/repos/{self.fake.full_name}/"
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
            return 201, self.pull_json(self.fake.issues[self.fake.create_pull(data, user)], full=True), {}
        if method != "GET":
            raise Answer(404, "Not Found")
        state = _q(query, "state", "open")
        pulls = [i for i in self.fake.issues.values() if i.pull is not None and (state == "all" or i.state == state)]
        head = _q(query, "head", "")
        if head:
            owner, _, ref = head.partition(":")
            pulls = [i for i in pulls if owner == self.fake.owner and (not ref or (i.pull and i.pull.head == ref))]
        base = _q(query, "base", "")
        if base:
            pulls = [i for i in pulls if i.pull and i.pull.base == base]
        key = "updated_at" if _q(query, "sort", "created") == "updated" else "created_at"
        pulls.sort(key=lambda i: (getattr(i, key), i.number), reverse=_q(query, "direction", "desc") == "desc")
        return 200, [self.pull_json(i, full=False) for i in pulls], {}

    def _r_pull(self, method: str, m: re.Match[str], _q_: dict[str, list[str]], data: Any, user: str) -> Reply:
        issue = self.fake.find_issue(int(m.group(1)))
        if issue.pull is None:
            raise Answer(404, "Not Found")
        if method == "PATCH":
            self._patch_pull(issue, data, user)
        elif method != "GET":
            raise Answer(404, "Not Found")
        return 200, self.pull_json(issue, full=True), {}

    def _patch_pull(self, issue: Issue, data: dict[str, Any], user: str) -> None:
        assert issue.pull is not None
        if "title" in data:
            issue.title = str(data["title"])
        if "body" in data:
            issue.body = str(data["body"] or "")
        if "base" in data:
            if g.rev(self.fake.bare, str(data["base"])) is None:
                raise Answer(
                    422, "Validation Failed", [{"resource": "PullRequest", "field": "base", "code": "invalid"}]
                )
            issue.pull.base = str(data["base"])
        if data.get("state") == "closed" and issue.state == "open":
            if issue.pull.merged:
                raise Answer(
                    422, "Validation Failed", [{"resource": "PullRequest", "code": "custom", "message": "merged"}]
                )
            issue.state, issue.closed_at, issue.closed_by = "closed", now(), user
            issue.pull.head_sha = g.rev(self.fake.bare, issue.pull.head) or issue.pull.head_sha
        elif data.get("state") == "open" and issue.state == "closed":
            if issue.pull.merged or g.rev(self.fake.bare, issue.pull.head) is None:
                raise Answer(
                    422,
                    "Validation Failed",
                    [{"resource": "PullRequest", "code": "custom", "message": "state cannot be changed"}],
                )
            issue.state, issue.closed_at = "open", None
        issue.updated_at = now()

    def _r_merge(self, method: str, m: re.Match[str], _q_: dict[str, list[str]], data: Any, user: str) -> Reply:
        issue = self.fake.find_issue(int(m.group(1)))
        if issue.pull is None:
            raise Answer(404, "Not Found")
        if method == "GET":
            return (204, None, {}) if issue.pull.merged else (404, {"message": "Not Found"}, {})
        if method != "PUT":
            raise Answer(404, "Not Found")
        if data.get("sha") and data["sha"] != g.rev(self.fake.bare, issue.pull.head):
            raise Answer(409, "Head branch was modified. Review and try the merge again.")
        title, text = data.get("commit_title"), data.get("commit_message")
        message = None if title is None and text is None else f"{title or issue.title}\n\n{text or ''}"
        sha = self.fake.merge(issue.number, user, str(data.get("merge_method") or "merge"), message)
        return 200, {"sha": sha, "merged": True, "message": "Pull Request successfully merged"}, {}

    def _r_reviewers(self, method: str, m: re.Match[str], _q_: dict[str, list[str]], data: Any, _u: str) -> Reply:
        issue = self.fake.find_issue(int(m.group(1)))
        if issue.pull is None:
            raise Answer(404, "Not Found")
        if method == "GET":
            return 200, {"users": [self._user(u) for u in issue.pull.requested], "teams": []}, {}
        if method != "POST":
            raise Answer(404, "Not Found")
        logins = [str(r) for r in data.get("reviewers") or []]
        if issue.user in logins:
            raise Answer(422, "Review cannot be requested from pull request author.")
        if self.fake.unrequestable.intersection(logins):
            raise Answer(422, f"Reviews may only be requested from collaborators of {self.fake.full_name}.")
        issue.pull.requested += [login for login in logins if login not in issue.pull.requested]
        return 201, self.pull_json(issue, full=False), {}

    def _r_issue(self, method: str, m: re.Match[str], _q_: dict[str, list[str]], _d: Any, _u: str) -> Reply:
        if method != "GET":
            raise Answer(404, "Not Found")
        return 200, self._issue_json(self.fake.find_issue(int(m.group(1)))), {}

    def _r_comments(self, method: str, m: re.Match[str], _q_: dict[str, list[str]], data: Any, user: str) -> Reply:
        number = int(m.group(1))
        self.fake.find_issue(number)
        if method == "POST":
            if not isinstance(data.get("body"), str) or not data["body"]:
                raise Answer(
                    422, "Validation Failed", [{"resource": "IssueComment", "field": "body", "code": "missing_field"}]
                )
            comment = self.comment_json(number, data["body"], user)
            self.fake.threads.setdefault(number, []).append(comment)
            return 201, comment, {}
        if method != "GET":
            raise Answer(404, "Not Found")
        return 200, list(self.fake.threads.get(number, [])), {}

    def _r_comment(self, method: str, m: re.Match[str], _q_: dict[str, list[str]], data: Any, _u: str) -> Reply:
        wanted = int(m.group(1))
        comment = next((c for cs in self.fake.threads.values() for c in cs if c["id"] == wanted), None)
        if comment is None:
            raise Answer(404, "Not Found")
        if method == "PATCH" and isinstance(data.get("body"), str):
            comment.update(body=data["body"], updated_at=now())
        elif method != "GET":
            raise Answer(404, "Not Found")
        return 200, comment, {}

    def _r_labels(self, method: str, m: re.Match[str], _q_: dict[str, list[str]], data: Any, _u: str) -> Reply:
        issue = self.fake.find_issue(int(m.group(1)))
        names = data if isinstance(data, list) else data.get("labels") or []
        if method == "PUT":
            issue.labels = []
        if method in ("POST", "PUT"):
            issue.labels += [str(n) for n in names if str(n) not in issue.labels]
            issue.updated_at = now()
        elif method != "GET":
            raise Answer(404, "Not Found")
        return 200, [self._label(n) for n in issue.labels], {}

    def _r_ref(self, method: str, m: re.Match[str], _q_: dict[str, list[str]], _d: Any, _u: str) -> Reply:
        if method != "DELETE":
            raise Answer(404, "Not Found")
        self.fake.delete_branch(unquote(m.group(1)))
        return 204, None, {}

    # -- one request, start to end (called from the server's threads)

    def answer(
        self, method: str, target: str, headers: dict[str, str], raw: bytes
    ) -> tuple[int, dict[str, str], bytes]:
        parts = urlsplit(target)
        conditional = "if-none-match" in headers
        with self.fake.lock:
            status, out_headers, body = self._answer(method, parts.path, parse_qs(parts.query), headers, raw, target)
            seen = Seen(method, target, status, conditional)
            self.fake.requests.append(seen)
        if self.fake.before_reply is not None:  # outside the lock: a hook may kill, wait or ask the fake
            self.fake.before_reply(seen)
        return status, out_headers, body

    def _answer(
        self, method: str, path: str, query: dict[str, list[str]], headers: dict[str, str], raw: bytes, target: str
    ) -> tuple[int, dict[str, str], bytes]:
        if not self.authorized(headers):
            if TOKEN_PREFIX in headers.get("authorization", ""):  # another fake's client: a leftover of some test
                self.fake.strangers.append(Seen(method, target, 401, "if-none-match" in headers))
            return self._json(401, {"message": "Bad credentials", "documentation_url": "https://docs.github.com/rest"})
        if self.fake.faults:
            fault = self.fake.faults.pop(0)
            shown = fault.body if fault.body is not None else {"message": fault.message, "documentation_url": DOCS}
            status, out, body = self._json(fault.status, shown)
            out.update(fault.headers)
            return status, out, body
        try:
            data = json.loads(raw) if raw else {}
        except ValueError:
            return self._json(400, {"message": "Problems parsing JSON"})
        try:
            status, value, extra = self.route(method, path, query, data, self.fake.login)
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
                self.fake.remaining += 1  # a 304 is free: give back what _json took
                out["x-ratelimit-remaining"] = str(self.fake.remaining)
                return 304, {k: v for k, v in out.items() if k != "content-type"}, b""
        return out_status, out, body

    def authorized(self, headers: Mapping[str, str]) -> bool:
        """Whether the request carries this fake's token (header names in lower case)."""
        return headers.get("authorization", "") in (f"Bearer {self.fake.token}", f"token {self.fake.token}")

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
                links.append(f'<{self.fake.url}{path}?{qs}>; rel="{rel}"')
        return chunk, ({"link": ", ".join(links)} if links else {})

    def _json(self, status: int, value: Any) -> tuple[int, dict[str, str], bytes]:
        self.fake.remaining = max(0, self.fake.remaining - 1)
        headers = {
            "x-ratelimit-limit": str(LIMIT),
            "x-ratelimit-remaining": str(self.fake.remaining),
            "x-ratelimit-reset": str(int(time.time()) + 3600),
            "x-ratelimit-used": str(LIMIT - self.fake.remaining),
            "x-ratelimit-resource": "core",
            "x-github-api-version-selected": "2022-11-28",
        }
        if value is None:
            return status, headers, b""
        headers["content-type"] = "application/json; charset=utf-8"
        return status, headers, json.dumps(value).encode()


def _q(query: dict[str, list[str]], name: str, default: str) -> str:
    values = query.get(name)
    return values[-1] if values else default


def handler(api: Api) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def _serve(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            raw = self.rfile.read(length) if length else b""
            headers = {k.lower(): v for k, v in self.headers.items()}
            with api.fake.lock:  # only the test's own client meets its hostile acts (fake_forge_model.fresh_token)
                act = api.fake.hostile.pop(0) if api.fake.hostile and api.authorized(headers) else None
            if act is not None:  # tests/review/fake_forge_hostile.py: the answer is the act's own
                try:
                    act(self)
                except OSError:  # the client hung up on it, as it should
                    self.close_connection = True
                return
            status, out, body = api.answer(self.command, self.path, headers, raw)
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
