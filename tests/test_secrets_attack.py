"""Attacks on "secrets never travel" through git: a remote that answers the credential it was sent.

git sends a URL's userinfo as Basic only after a 401, and prints the body of an error page as
`remote: …` lines, which hz quotes in its error. The loopback server below asks for credentials, then
refuses them with the `Authorization` header in its page, for the remote as a URL in hz.toml, as
`--remote`, and as the configured URL of a remote name.
"""

from __future__ import annotations

import subprocess
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

Hz = Callable[..., Any]
TOKEN = "ghp_remoteToken123456"


class _EchoAuth(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        sent = self.headers.get("Authorization")
        if sent is None:
            self.send_response(401)
            self.send_header("WWW-Authenticate", 'Basic realm="git"')
            self.end_headers()
            return
        page = f"denied for {sent}\n".encode()
        self.send_response(403)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(page)))
        self.end_headers()
        self.wfile.write(page)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def echoing_remote() -> Iterator[str]:
    """The URL of a git remote over HTTP that echoes the credentials it is sent, with bob's token in it."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _EchoAuth)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://bob:{TOKEN}@127.0.0.1:{server.server_address[1]}/team.git"
    server.shutdown()
    server.server_close()
    thread.join()


@pytest.mark.parametrize("given", ["hz.toml", "--remote", "remote name"])
@pytest.mark.parametrize("command", [("lease", "list"), ("state", "log")])
def test_a_remote_that_echoes_its_credential_is_quoted_without_it(
    given: str, command: tuple[str, ...], echoing_remote: str, repo: Path, hz: Hz
) -> None:
    argv: tuple[str, ...] = command
    if given == "hz.toml":
        (repo / "hz.toml").write_text(f'[state]\nremote = "{echoing_remote}"\n')
    elif given == "--remote":
        argv = (*command, "--remote", echoing_remote)
    else:
        subprocess.run(["git", "remote", "add", "team", echoing_remote], cwd=repo, check=True)
        (repo / "hz.toml").write_text('[state]\nremote = "team"\n')

    result = hz(*argv)

    assert result.exit_code == 1
    assert "remote: denied for Basic [redacted]\n" in result.err  # the echo arrived, scrubbed
    assert TOKEN not in result.err + result.out
    encoded = "Ym9iOmdocF9yZW1vdGVUb2tlbjEyMzQ1Ng=="  # base64 of bob:<token>, as git sends it
    assert encoded not in result.err + result.out


def test_every_printed_tick_report_is_scrubbed(monkeypatch: pytest.MonkeyPatch) -> None:
    """`hz tick` scrubbed what it printed; `hz daemon run`, `hz heinzel chat` and `wake` print the same
    lines through `render_report`, which now scrubs them itself."""
    from datetime import UTC, datetime

    from hz.commands.tick import render_report
    from hz.tick.report import TickReport

    monkeypatch.setenv("JIRA_TOKEN", "jira-in-an-error-0042")
    report = TickReport(datetime(2026, 10, 26, tzinfo=UTC))
    report.woken.append({"agent": "hz/state", "action": "error", "error": "denied for jira-in-an-error-0042"})
    report.woken.append({"agent": "x", "action": "error", "error": "see https://bot:pw-0042xyz@jira.example/a"})

    assert render_report(report) == ["hz/state: error: denied for [redacted]", "x: error: see https://jira.example/a"]


def test_the_checkout_header_of_the_workflow_token_is_scrubbed_when_a_remote_echoes_it(
    echoing_remote: str, repo: Path, hz: Hz, monkeypatch: pytest.MonkeyPatch
) -> None:
    """CI scripts set `http.extraheader` (as actions/checkout does, there scoped to github.com) to the
    workflow token as Basic `x-access-token:<token>`; git sends it to the remote, which may echo it."""
    import base64

    workflow_token = "ghs_workflowToken000042"
    monkeypatch.setenv("GITHUB_TOKEN", workflow_token)
    header = base64.b64encode(f"x-access-token:{workflow_token}".encode()).decode()
    subprocess.run(["git", "config", "http.extraheader", f"AUTHORIZATION: basic {header}"], cwd=repo, check=True)
    plain = echoing_remote.replace(f"bob:{TOKEN}@", "")
    (repo / "hz.toml").write_text(f'[state]\nremote = "{plain}"\n')

    result = hz("lease", "list")

    assert result.exit_code == 1
    assert "remote: denied for basic [redacted]\n" in result.err
    assert header not in result.err + result.out
