"""A fake GitHub for tests: a local HTTP server answering GitHub's documented REST shapes for the
endpoints hz uses, backed by a REAL bare git repository (pull requests' head and base are its branches).

Start it as a context manager, or with `yield from serve(bare)` in a fixture, or in tests/review with the
`fake_forge` fixture (a factory: `fake = fake_forge(bare_path, **options)`, stopped after the test):

    with FakeForge(bare_path) as fake:          # 127.0.0.1, a free port, a daemon thread
        env = {**os.environ, **fake.environ}     # HZ_GITHUB_API, GITHUB_TOKEN, GITHUB_REPOSITORY

`tests.review.fake_forge_git.put(bare, branch, {path: text}, message, start="main")` commits files onto a
branch of the bare repository without a clone (to seed `main` or a draft branch).

Construction: `FakeForge(bare, *, owner="team", repo="hz-team", token=None, login="hz-bot",
web="https://github.com")`. `token` (by default one of its own, `fresh_token()`: no two fakes share
one) is accepted as `Authorization: Bearer <token>` or `token <token>` and acts as the user `login`
(the author of the pull requests it opens, the merger through the API).

Attributes: `url` (the API base), `environ`, `bare`, `owner`, `repo`, `full_name`, `token`, `requests`
(every request answered: `Seen(method, path, status, conditional)`, path with query), `strangers` (the
requests that carried another fake's token: a client some other test left running; the `fake_forge`
fixture fails the test that met one), `remaining` (the primary
rate limit left; 304s do not spend it), `unrequestable` (a set of logins a review cannot be requested
from: 422, as for a non-collaborator; the author is always refused), `before_reply` (None, or a function
called with each request's `Seen` after the fake acted on it and before the answer is sent: to kill the
client between a write and its answer, say).

What a reviewer does on the web, done at once on the bare repository with git plumbing (`git merge-tree
--write-tree`, `commit-tree`, `update-ref` with the old value), committer `GitHub <noreply@github.com>`:
- `merge(number, by="reviewer", method="squash"|"merge"|"rebase", message=None, delete_branch=False) -> sha`
  records `merged_by` and `merge_commit_sha`. squash: one commit on the base, author the merger, message
  `<title> (#n)`, then the body of the one commit, or for several commits `* <subject>\\n\\n<body>` of
  each, oldest first, then a paragraph of `Co-authored-by: <name> <email>` for each other commit author
  (GitHub's default: so the draft's `Hz-Draft:` trailer is kept as a line, never in the last paragraph);
  `message=` replaces the whole message (a reviewer editing it). merge: a merge
  commit `Merge pull request #n from <owner>/<branch>`, then the title. rebase: each commit replayed onto
  the base, authors kept, committer GitHub; `merge_commit_sha` is the last one.
- `edit(number, path, text, by="reviewer", message=None) -> sha`: a reviewer's commit changing one file on
  the head branch (author the reviewer). `edit_and_merge(number, path, text, by, method="squash",
  message=None) -> sha` does both.
- `close(number)`, `delete_branch(branch)`, `open_issue(title, body="", by=None) -> number`,
  `comment(issue, body, by=None) -> id`, `open_pull(branch, title, body="", base="main", by=None) -> number`
  (as a person would, not through hz; `by` defaults to `login`). A conflict or a closed pull request
  raises `Answer` (status 405/422), as the API would refuse it.
Reading the state: `pull(number) -> dict` (the full pull request object), `pulls() -> list[dict]`,
`comments(issue) -> list[dict]`, `count(method=None, path=None) -> int` (requests whose path starts with
`path`, counted at the server).

Faults for the next requests, in order, whatever they ask: `fail(status, times=1, message=None,
headers=None)` (401, 404, 422, 500 ...), `rate_limit_primary(reset_in=30, times=1, status=403)`
(`x-ratelimit-remaining: 0`, `x-ratelimit-reset` now + reset_in; pass `reset=` for an exact header
value), `rate_limit_secondary(retry_after="2", times=1, status=403)` (a `Retry-After`; None for none),
`clear_faults()`. `fail(..., body=...)` answers that JSON instead of `{"message": ...}`. `hostile` is a
list of acts answering the next requests that carry the token, on the socket itself (deep, huge,
dripping, redirecting to another origin: tests/review/fake_forge_hostile.py).

Endpoints (under /repos/<owner>/<repo>): GET/POST pulls (state, head=owner:branch, base, sort, direction,
per_page, page; list items lack `merged` and `merged_by`, as GitHub's do), GET/PATCH pulls/<n>,
GET/PUT pulls/<n>/merge, GET/POST pulls/<n>/requested_reviewers, GET issues/<n>, GET/POST
issues/<n>/comments, GET/PATCH issues/comments/<id>, GET/POST/PUT issues/<n>/labels, DELETE
git/refs/heads/<branch>; GET /rate_limit. Every GET answer has an ETag and honours `If-None-Match` with
a 304; every answer has `x-ratelimit-*` headers; lists have `Link` headers. The HTTP side lives in
fake_forge_api.py, the records in fake_forge_model.py, the git plumbing in fake_forge_git.py.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from http.server import ThreadingHTTPServer
from pathlib import Path
from types import TracebackType
from typing import Any

from tests.review import fake_forge_git as g
from tests.review.fake_forge_api import Api, handler
from tests.review.fake_forge_model import LIMIT, REASONS, Answer, Fault, Issue, Pull, Seen, fresh_token, now

__all__ = ["Answer", "FakeForge", "Seen", "serve"]


class FakeForge:
    def __init__(
        self,
        bare: Path,
        *,
        owner: str = "team",
        repo: str = "hz-team",
        token: str | None = None,
        login: str = "hz-bot",
        web: str = "https://github.com",
    ) -> None:
        self.bare = Path(bare)
        self.owner, self.repo, self.token, self.login, self.web = owner, repo, token or fresh_token(), login, web
        self.full_name = f"{owner}/{repo}"
        self.requests: list[Seen] = []
        self.strangers: list[Seen] = []
        self.remaining = LIMIT
        self.unrequestable: set[str] = set()
        self.before_reply: Callable[[Seen], None] | None = None
        self.issues: dict[int, Issue] = {}
        self.threads: dict[int, list[dict[str, Any]]] = {}
        self.faults: list[Fault] = []
        self.hostile: list[Callable[[Any], None]] = []  # answers of a hostile server (fake_forge_hostile.py)
        self.ids = iter(range(1_000_001, 10**9))
        self.lock = threading.RLock()
        self._server: ThreadingHTTPServer | None = None
        self.url = ""
        self.api = Api(self)

    # -- lifecycle

    def start(self) -> FakeForge:
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), handler(self.api))
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
        with self.lock:
            fault = Fault(status, dict(headers or {}), message or REASONS.get(status, "Error"), body)
            self.faults += [fault] * times

    def clear_faults(self) -> None:
        with self.lock:
            self.faults.clear()

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
        with self.lock:
            number = len(self.issues) + 1
            self.issues[number] = Issue(number, title, body, by or self.login, created_at=now(), updated_at=now())
            return number

    def comment(self, issue: int, body: str, by: str | None = None) -> int:
        """A comment on `issue` as a person would write it on the web; its id."""
        with self.lock:
            self.find_issue(issue)
            made = self.api.comment_json(issue, body, by or self.login)
            self.threads.setdefault(issue, []).append(made)
            return int(made["id"])

    def open_pull(self, branch: str, title: str, body: str = "", base: str = "main", by: str | None = None) -> int:
        with self.lock:
            return self.create_pull({"head": branch, "base": base, "title": title, "body": body}, by or self.login)

    def merge(
        self, number: int, by: str = "reviewer", method: str = "squash", message: str | None = None,
        delete_branch: bool = False,
    ) -> str:  # fmt: skip
        with self.lock:
            issue, pull = self.open_pull_of(number)
            head = g.rev(self.bare, pull.head)
            base = g.rev(self.bare, pull.base)
            if head is None or base is None:
                raise Answer(422, "Head or base branch is gone")
            sha = self._merged(issue, pull, head, base, by, method, message)
            g.move(self.bare, pull.base, sha, base)
            moment = now()
            pull.merged, pull.merged_by, pull.merged_at, pull.merge_commit_sha = True, by, moment, sha
            pull.head_sha, pull.base_sha = head, base
            issue.state, issue.closed_at, issue.updated_at = "closed", moment, moment
            if delete_branch:
                self.delete_branch(pull.head)
            return sha

    def edit(self, number: int, path: str, text: str, by: str = "reviewer", message: str | None = None) -> str:
        with self.lock:
            _issue, pull = self.open_pull_of(number)
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

    def close(self, number: int, by: str | None = None) -> None:
        """Close `number` unmerged on the web page, as `by` (default: the token's own login)."""
        with self.lock:
            issue = self.find_issue(number)
            if issue.pull is not None and issue.pull.merged:
                raise Answer(422, "Pull request is merged")
            issue.state, issue.closed_by = "closed", by or self.login
            issue.closed_at = issue.updated_at = now()

    def reopen(self, number: int) -> None:
        with self.lock:
            issue = self.find_issue(number)
            if issue.pull is not None and issue.pull.merged:
                raise Answer(422, "Pull request is merged")
            issue.state, issue.closed_at, issue.closed_by, issue.updated_at = "open", None, None, now()

    def delete_branch(self, branch: str) -> None:
        with self.lock:
            old = g.rev(self.bare, branch)
            if old is None:
                raise Answer(422, "Reference does not exist")
            g.git(self.bare, "update-ref", "-d", f"refs/heads/{branch}", old)

    # -- reading the state

    def pull(self, number: int) -> dict[str, Any]:
        with self.lock:
            return self.api.pull_json(self.find_issue(number), full=True)

    def pulls(self) -> list[dict[str, Any]]:
        with self.lock:
            return [self.api.pull_json(i, full=True) for i in self.issues.values() if i.pull is not None]

    def comments(self, issue: int) -> list[dict[str, Any]]:
        with self.lock:
            return [dict(c) for c in self.threads.get(issue, [])]

    def count(self, method: str | None = None, path: str | None = None) -> int:
        with self.lock:
            return sum(
                1
                for s in self.requests
                if (method is None or s.method == method) and (path is None or s.path.startswith(path))
            )

    # -- the pieces behind the routes

    def find_issue(self, number: int) -> Issue:
        issue = self.issues.get(number)
        if issue is None:
            raise Answer(404, "Not Found")
        return issue

    def open_pull_of(self, number: int) -> tuple[Issue, Pull]:
        issue = self.find_issue(number)
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
            self.bare,
            tree,
            [base],
            (message or self._squash_message(issue, shas, by)).rstrip() + "\n",
            author=g.user(by),
        )

    def _squash_message(self, issue: Issue, shas: list[str], by: str) -> str:
        """GitHub's default: the title and number, the one commit's body or each commit listed, then a
        `Co-authored-by` line for each other author of the commits (the squash commit is the merger's)."""
        parts = [g.message(self.bare, sha) for sha in shas]
        if len(parts) == 1:
            body = parts[0][1]
        else:
            body = "\n\n".join(f"* {subject}\n\n{text}".rstrip() for subject, text in parts)
        merger = "{} <{}>".format(*g.user(by))
        others = dict.fromkeys(who for sha in shas if (who := g.author_line(self.bare, sha)) != merger)
        co_authors = "\n".join(f"Co-authored-by: {who}" for who in others)
        return "\n\n".join(part for part in (f"{issue.title} (#{issue.number})", body, co_authors) if part)

    def create_pull(self, data: dict[str, Any], user: str) -> int:
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
            created_at=now(),
            updated_at=now(),
        )
        issue.pull = Pull(head, base, head_sha, base_sha)
        self.issues[number] = issue
        return number


def serve(bare: Path, **options: Any) -> Iterator[FakeForge]:
    """A started fake forge for `bare`, stopped afterwards (for a `yield from` in a fixture)."""
    fake = FakeForge(bare, **options).start()
    try:
        yield fake
    finally:
        fake.stop()
