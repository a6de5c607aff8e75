"""`hz graph --html`: one self-contained page, loaded by headless Chromium (Debian's `chromium`).

Two contract titles are hostile markup pointing at a loopback HTTP server: a `<script>` that fetches, and
an attribute break-out into an `<img>` with `onerror`. The page must render every contract, hold the
titles as text, create neither element, and make no request at all (the server counts them).
"""

from __future__ import annotations

import re
import shutil
import subprocess
import threading
from collections.abc import Iterator
from html.parser import HTMLParser
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from tests.graph.state import land, ran, team_contract

Hz = Any  # the conftest fixture: hz(*argv) -> CliResult
CHROMIUM = shutil.which("chromium")


class Elements(HTMLParser):
    """Every start tag with its attributes, and the text, of a document."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []
        self.feed(text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data: str) -> None:
        self.text.append(data)

    def with_attribute(self, name: str) -> list[str]:
        return [str(attrs[name]) for _, attrs in self.tags if name in attrs]

    def named(self, tag: str) -> list[dict[str, str | None]]:
        return [attrs for t, attrs in self.tags if t == tag]


@pytest.fixture
def listener() -> Iterator[tuple[str, list[str]]]:
    """A loopback HTTP server that records every path asked of it."""
    asked: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            asked.append(self.path)
            self.send_response(204)
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}", asked
    server.shutdown()
    server.server_close()


def hostile_team(repo: Path, url: str) -> list[str]:
    """Three contracts, two with hostile titles, and a day of receipts; the contract names."""
    flows = repo / "workflows"
    source = team_contract(flows, "source", 1, title=f'<script>fetch("{url}/script")</script>')
    reader = team_contract(
        flows, "reader", 2, title=f'"><img src="{url}/img" onerror="alert(1)">',
        inputs={"src": "contract:team/source#summary"},
    )  # fmt: skip
    team_contract(flows, "idle", 3, inputs={"src": "contract:team/source#summary"})
    events = ran(source, "01M6DQS9M0FQR33EQ3KWJSCM4Q", {"commits": "a"}) + ran(
        reader, "01M6DQS9M0FQR33EQ3KWJSCM4R", {"src": "b"}, usd=1.5
    )
    land(repo, events, {source: ("@ann/m-0000000a", "owner"), reader: ("actions:4242", "actions")})
    return ["team:idle", "team:reader", "team:source"]


def test_the_page_holds_hostile_titles_as_text(hz: Hz, repo: Path, listener: tuple[str, list[str]]) -> None:
    hostile_team(repo, listener[0])
    result = hz("graph", "--html")
    assert (result.exit_code, result.err) == (0, "")
    assert "does not compile" not in result.out  # the hostile titles are valid titles
    page = Elements(result.out)
    assert page.named("script") == [] and page.named("img") == []
    assert f'<script>fetch("{listener[0]}/script")</script>' in "".join(page.text)
    (policy,) = [a["content"] for a in page.named("meta") if a.get("http-equiv") == "Content-Security-Policy"]
    assert str(policy).startswith("default-src 'none'; style-src 'sha256-")
    # the only URLs in the file are the hostile titles' own (whole in the cards, cut in the drawing)
    hostile = [f"{listener[0]}/script", f"{listener[0]}/img"]
    urls = set(re.findall(r"https?://[^\s\"'&<>]*", result.out))
    assert all(any(h.startswith(url.rstrip("\u2026")) for h in hostile) for url in urls), urls


@pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed (.ci/run installs it)")
def test_chromium_renders_every_contract_and_requests_nothing(
    hz: Hz, repo: Path, tmp_path: Path, listener: tuple[str, list[str]]
) -> None:
    names = hostile_team(repo, listener[0])
    target = tmp_path / "out" / "graph.html"
    result = hz("graph", "--html", str(target))
    assert (result.exit_code, result.err) == (0, f"wrote {target}\n")
    argv = [str(CHROMIUM), "--headless", "--disable-gpu", "--no-sandbox", f"--user-data-dir={tmp_path / 'profile'}",
            "--no-first-run", "--virtual-time-budget=2000", "--dump-dom", target.as_uri()]  # fmt: skip
    done = subprocess.run(argv, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    dom = Elements(done.stdout)
    assert sorted(dom.with_attribute("data-contract")) == names  # each contract drawn
    assert sorted(dom.with_attribute("data-card")) == names  # and its card
    assert dom.named("img") == [] and dom.named("script") == []
    assert f'"><img src="{listener[0]}/img" onerror="alert(1)">' in "".join(dom.text)
    assert "actions:4242" in "".join(dom.text) and "@ann/m-0000000a" in "".join(dom.text)
    assert listener[1] == []  # no request reached the server: neither the script's nor the image's


def test_the_page_cannot_be_written_is_a_clear_error(hz: Hz, repo: Path) -> None:
    team_contract(repo / "workflows", "source", 1)
    (repo / "blocker").write_text("a file, not a folder")
    result = hz("graph", "--html", str(repo / "blocker" / "graph.html"))
    assert result.exit_code == 1
    assert result.err.startswith(f"error: cannot write {repo / 'blocker' / 'graph.html'}: ")
