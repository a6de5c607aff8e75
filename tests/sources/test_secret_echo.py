"""A hostile API that echoes the token it was sent: the token reaches no file, no output and no prompt.

The loopback server answers GitHub's pull list with the `Authorization` header it received written
into the titles (plainly and with JSON escapes), into a link's userinfo, into the ETag and into the
next-page link, and answers Jira with a 401 whose reason phrase and body quote the header. The agent
thinks through a scripted `claude` that records its prompt and its environment. After a real
`hz tick`, every secret of the environment is looked for in every byte under $HZ_HOME, in what the
CLI printed, in the prompt and in the runner's environment.
"""

from __future__ import annotations

import base64
import json
import os
import sys
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from hz.secrets import secret_values
from tests.sources.contracts import contract_text
from tests.sources.helpers import commit, days_ago
from tests.sources.server import Reply, Request, Server, payload, static
from tests.turn.agents import adopt

NOW = datetime(2026, 11, 28, 12, 0, tzinfo=UTC)
GITHUB_TOKEN = "ghp_echoedGithubToken0001"
JIRA_TOKEN = "jira-echoed-token-0002"
URL_PASSWORD = "url-pass-in-base-0003"
NOTHING = {"kind": "nothing", "report": "nothing moved", "drafts": [], "lessons": []}
FAKE_CLAUDE = """import json, os, sys
here = os.path.dirname(os.path.abspath(__file__))
json.dump({"environ": dict(os.environ), "argv": sys.argv[1:], "stdin": sys.stdin.read()},
          open(os.path.join(here, "call.json"), "w"))
print(json.dumps({"type": "result", "subtype": "success", "is_error": False, "num_turns": 1,
                  "total_cost_usd": 0.01, "usage": {"input_tokens": 10, "output_tokens": 5},
                  "structured_output": %s}))
"""
Hz = Callable[..., Any]


def echoing_pulls(request: Request) -> Reply:
    auth = request.headers.get("authorization", "")
    escaped = "".join(f"\\u{ord(c):04x}" for c in auth)  # the same words, only visible once decoded
    pulls = [
        {
            "number": 1,
            "title": f"you sent {auth}",
            "html_url": f"https://bot:{auth.split()[-1]}@github.example/acme/app/pull/1",
            "state": "open",
            "user": {"login": "mallory"},
            "created_at": "2026-11-27T10:00:00Z",
            "updated_at": "2026-11-27T10:00:00Z",
        }
    ]
    body = json.dumps(pulls).replace("you sent ", "you sent " + escaped + " and ")
    headers = {"Content-Type": "application/json", "ETag": f'"{auth}"'}
    if request.param("page") != "2":
        headers["Link"] = f'<http://127.0.0.1:1/repos/acme/app/pulls?page=2&t={auth.split()[-1]}>; rel="next"'
        headers["Link"] = headers["Link"].replace("127.0.0.1:1", request.headers["host"])
    return Reply(200, body.encode(), headers)


def echoing_refusal(request: Request) -> Reply:
    auth = request.headers.get("authorization", "")
    return Reply(401, json.dumps({"errorMessages": [f"bad {auth}"]}).encode(), reason=f"Unauthorized {auth}")


@pytest.fixture
def hostile(repo: Path, server: Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A personal agent reading both hostile sources, thinking through a scripted claude; the fake's folder."""
    server.routes["/repos/acme/app/pulls"] = echoing_pulls
    server.routes["/rest/api/2/search"] = echoing_refusal
    port = server.url.rsplit(":", 1)[1]
    monkeypatch.setenv("GITHUB_TOKEN", GITHUB_TOKEN)
    monkeypatch.setenv("JIRA_TOKEN", JIRA_TOKEN)
    monkeypatch.setenv("JIRA_USER", "priya@example.org")
    monkeypatch.setenv("HZ_GITHUB_API", server.url)
    monkeypatch.setenv("HZ_JIRA_BASE", f"http://jira-bot:{URL_PASSWORD}@127.0.0.1:{port}")
    fake = use_fake_claude(tmp_path)
    commit(repo, "README.md", "x\n", days_ago(1), "start")
    inputs: dict[str, dict[str, Any]] = {
        "pulls": {"source": "github:acme/app/pulls"},
        "tickets": {"source": "jira:acme/PLAT", "required": False},
    }
    text = contract_text("reader", inputs).replace("scope: personal", 'scope: personal\n  schedule: "0 9 * * MON"')
    adopt(text, now=NOW, namespace="me")
    yield fake


def leaked(data: bytes) -> list[str]:
    return [s for s in secret_values(os.environ) if s.encode() in data]


def use_fake_claude(tmp_path: Path) -> Path:
    """A scripted `claude` that answers "nothing", made the configured runner; its folder."""
    fake = tmp_path / "fake"
    fake.mkdir()
    (fake / "claude").write_text(f"#!{sys.executable}\n" + FAKE_CLAUDE % repr(NOTHING))
    (fake / "claude").chmod(0o755)
    config = Path(os.environ["HZ_CONFIG_HOME"])
    config.mkdir(parents=True, exist_ok=True)
    (config / "config.toml").write_text(
        f'[runners]\ndefault = "claude-code"\n[runners.claude-code]\ncommand = "{fake / "claude"}"\n'
    )
    return fake


def test_an_echoed_token_lands_nowhere(hostile: Path, server: Server, hz: Hz) -> None:
    secrets = secret_values(os.environ)
    assert len(secrets) >= 5  # both tokens, the URL's password, and the two Basic credentials

    result = hz("tick", "--now", NOW.isoformat())
    assert (result.exit_code, result.err) == (0, ""), result.out

    assert server.count("/repos/acme/app/pulls") == 2 and server.count("/rest/api/2/search") == 1
    call = json.loads((hostile / "call.json").read_text())
    assert "you sent Bearer [redacted] and Bearer [redacted]" in call["stdin"]  # the echo arrived, scrubbed
    assert "Jira refused the request for http://127.0.0.1:" in call["stdin"]
    assert leaked(call["stdin"].encode() + json.dumps(call["argv"]).encode()) == []
    assert {"GITHUB_TOKEN", "JIRA_TOKEN"} & set(call["environ"]) == set()
    assert leaked(json.dumps(call["environ"]).encode()) == []
    assert leaked((result.out + result.err).encode()) == []
    home = Path(os.environ["HZ_HOME"])
    files = [p for p in home.rglob("*") if p.is_file()]
    assert any(p.name == "session.jsonl" for p in files) and any(p.parent.name == "turns" for p in files)
    assert {str(p.relative_to(home)): leaked(p.read_bytes()) for p in files if leaked(p.read_bytes())} == {}


def test_a_refusal_that_quotes_the_token_is_reported_without_it(hostile: Path, server: Server, hz: Hz) -> None:
    result = hz("source", "fetch", "jira:acme/PLAT")

    port = server.url.rsplit(":", 1)[1]
    assert (result.exit_code, result.out) == (1, "jira:acme/PLAT\n")
    assert result.err == (
        f"  error: Jira refused the request for http://127.0.0.1:{port}/rest/api/2/search (401 Unauthorized Basic"
        " [redacted]: bad Basic [redacted])\n    hint: set JIRA_TOKEN to a token that may read it\n"
    )


def test_credentials_in_urls_are_used_but_never_stored(
    repo: Path, server: Server, hz: Hz, monkeypatch: pytest.MonkeyPatch
) -> None:
    port = server.url.rsplit(":", 1)[1]
    pulls = [{"number": 7, "title": "Fix it", "html_url": "https://bot:link-pass-0123@github.example/acme/app/pull/7"}]
    server.routes["/repos/acme/app/pulls"] = static(json.dumps(pulls).encode(), etag='"p1"')
    rss = payload("rss.xml").replace(
        b"https://blog.example.org/engineering/retries", b"https://ed:item-pass-0123@blog.example.org/r"
    )
    server.routes["/feed.xml"] = static(rss, etag='"f1"')
    monkeypatch.setenv("HZ_GITHUB_API", f"http://gh-user:gh-pass-0123@127.0.0.1:{port}")
    fetched = [
        hz("source", "fetch", "github:acme/app/pulls"),
        hz("source", "fetch", f"feed:http://reader:feed-pass-0123@127.0.0.1:{port}/feed.xml"),
    ]

    assert [r.exit_code for r in fetched] == [0, 0], [r.err for r in fetched]
    sent = [r.headers.get("authorization") for r in server.requests]
    assert sent == [
        "Basic " + base64.b64encode(b"gh-user:gh-pass-0123").decode(),
        "Basic " + base64.b64encode(b"reader:feed-pass-0123").decode(),
    ]
    home = Path(os.environ["HZ_HOME"])
    stored = b"".join(p.read_bytes() for p in home.rglob("*") if p.is_file())
    assert b'"https://github.example/acme/app/pull/7"' in stored and b'"https://blog.example.org/r"' in stored
    for credential in (b"gh-user", b"gh-pass", b"link-pass", b"item-pass", b"reader:", b"feed-pass", b"Basic"):
        assert credential not in stored
