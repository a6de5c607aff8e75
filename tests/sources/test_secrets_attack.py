"""Attacks on "secrets never travel" through the sources: a feed URI that carries its credential, and a
hostile API that echoes the token in the forms a URL or a header writes it (%-escaped, Basic).

Each route ends in a real command (`hz source list`, `hz source fetch`, `hz tick`) against a loopback
server; the secret is looked for in what was printed and in every byte under $HZ_HOME.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from tests.sources.contracts import contract_text
from tests.sources.helpers import commit, days_ago, git
from tests.sources.server import Reply, Request, Server, payload, static
from tests.sources.test_secret_echo import NOW, use_fake_claude
from tests.turn.agents import adopt

Hz = Callable[..., Any]
FEED_PASS = "feed-pass-0123"
# a token with the characters a URL must escape, as Jira and Atlassian tokens have (`/`, `+`, `=`)
JIRA_TOKEN = "ATATT3x/FfGF0+jira=0002"


def _home_leaks(secret: str) -> list[str]:
    home = Path(os.environ["HZ_HOME"])
    return [str(p) for p in home.rglob("*") if p.is_file() and secret.encode() in p.read_bytes()]


@pytest.fixture
def credential_feed(repo: Path, server: Server) -> str:
    """A team contract reading a feed whose URI carries a password; the URI as written."""
    server.routes["/feed.xml"] = static(payload("rss.xml"), etag='"one"')
    uri = f"feed:{server.url.replace('://', f'://reader:{FEED_PASS}@')}/feed.xml"
    (repo / "workflows").mkdir()
    (repo / "workflows" / "reader.prose.md").write_text(contract_text("reader", {"news": {"source": uri}}))
    commit(repo, "README.md", "hello\n", days_ago(2), "Start")
    git(repo, "add", "workflows")
    git(repo, "commit", "-q", "-m", "contracts", when=days_ago(1))
    return uri


@pytest.mark.parametrize(
    "argv",
    [
        ("source", "list"),
        ("source", "list", "--json"),
        ("source", "fetch", "reader"),
        ("source", "fetch", "reader", "--json"),
        ("source", "fetch", "<uri>"),
        ("source", "fetch", "<uri>", "--json"),
    ],
)
def test_a_feed_uri_is_shown_without_its_credential(
    argv: tuple[str, ...], credential_feed: str, server: Server, hz: Hz
) -> None:
    result = hz(*(credential_feed if a == "<uri>" else a for a in argv))

    assert (result.exit_code, result.err) == (0, "")
    shown = f"feed:{server.url}/feed.xml"
    if "--json" in argv:
        assert {row["uri"] for row in json.loads(result.out)} >= {shown}
    else:
        assert result.out.startswith(shown + "\n") or f"\n{shown}\n" in result.out
    assert FEED_PASS not in result.out
    assert _home_leaks(FEED_PASS) == []


def _echo_escaped(request: Request) -> Reply:
    """A Jira that quotes the token back %-escaped, as it would sit in a URL it links to."""
    auth = request.headers.get("authorization", "")
    issue = {
        "key": "PLAT-1",
        "self": f"{request.headers['host']}/rest/api/2/issue/1?t={quote(JIRA_TOKEN, safe='')}",
        "fields": {
            "summary": f"token {quote(JIRA_TOKEN, safe='')} and {quote(JIRA_TOKEN)} header {auth}",
            "status": {"name": "Open"},
            "updated": "2026-11-27T10:00:00.000+0000",
            "created": "2026-11-27T10:00:00.000+0000",
        },
    }
    return Reply(200, json.dumps({"issues": [issue], "total": 1, "startAt": 0, "maxResults": 50}).encode())


def test_a_token_echoed_percent_escaped_is_scrubbed(
    repo: Path, server: Server, hz: Hz, monkeypatch: pytest.MonkeyPatch
) -> None:
    server.routes["/rest/api/2/search"] = _echo_escaped
    monkeypatch.setenv("JIRA_TOKEN", JIRA_TOKEN)
    monkeypatch.setenv("JIRA_USER", "priya@example.org")
    monkeypatch.setenv("HZ_JIRA_BASE", server.url)

    result = hz("source", "fetch", "jira:acme/PLAT", "--json")

    assert (result.exit_code, result.err) == (0, "")
    for form in (JIRA_TOKEN, quote(JIRA_TOKEN, safe=""), quote(JIRA_TOKEN)):
        assert form not in result.out
        assert _home_leaks(form) == []
    assert "token [redacted] and [redacted] header Basic [redacted]" in result.out


def test_a_token_committed_to_the_repository_is_read_but_never_reaches_the_model_or_a_body(
    repo: Path, hz: Hz, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The repository's own content is the user's: the source cache may keep it as the repository does.
    Everything that leaves hz (prompt, body, spine, index, output) is scrubbed of the environment's secrets."""
    token = "ghp_committedToken00042"
    monkeypatch.setenv("GITHUB_TOKEN", token)
    fake = use_fake_claude(tmp_path)
    commit(repo, "docs/setup.md", f"export GITHUB_TOKEN={token}\n", days_ago(1), f"add setup (token {token})")
    inputs: dict[str, dict[str, Any]] = {
        "doc": {"source": "file:docs/setup.md"},
        "log": {"source": "git:.", "window": "1w"},
    }
    text = contract_text("reader", inputs).replace("scope: personal", 'scope: personal\n  schedule: "0 9 * * MON"')
    adopt(text, now=NOW, namespace="me")

    result = hz("tick", "--now", NOW.isoformat())

    assert (result.exit_code, result.err) == (0, ""), result.out
    prompt = json.loads((fake / "call.json").read_text())["stdin"]
    assert "export GITHUB_TOKEN=[redacted]" in prompt and "add setup (token [redacted])" in prompt
    assert token not in prompt
    home = Path(os.environ["HZ_HOME"])
    kept = {Path(p).relative_to(home).parts[:2] for p in _home_leaks(token)}
    assert kept == {("heinzel", "sources")}  # the cache of the repository's own files and log, as git keeps them
