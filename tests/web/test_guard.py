"""The gate, attacked from outside: every route without the token, with a foreign Host (DNS rebinding),
from another origin, without the CSRF token, and the login link used twice or late."""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.web.conftest import Served

GUARDED = {401, 421}


def every_request(served: Served) -> list[tuple[str, str]]:
    """(method, path) for every route the app has, its parameters filled in; mounts by a path under them."""
    from starlette.routing import Mount, Route

    app = served.server.server.config.app.app
    found: list[tuple[str, str]] = []
    for route in app.routes:
        if isinstance(route, Route):
            path = re.sub(r"\{[^}]+\}", "x", route.path)
            found += [(method, path) for method in sorted(route.methods or ()) if method != "HEAD"]
        elif isinstance(route, Mount):
            found += [("GET", f"{route.path}/app.js"), ("POST", f"{route.path}/")]
    return found


def test_the_routes_are_enumerated(served: Served) -> None:
    paths = {path for _, path in every_request(served)}
    assert {"/", "/heinzel/x", "/drafts", "/graph", "/why", "/login", "/events/list", "/events/heinzel/x",
            "/api/v1/openapi.json", "/api/v1/heinzel_list", "/static/app.js", "/new", "/events/drafts",
            "/events/graph", "/events/why"} <= paths  # fmt: skip
    assert len(paths) >= 20


def test_every_route_refuses_a_request_without_the_token(served: Served) -> None:
    with httpx.Client(base_url=served.base, timeout=10) as client:
        for method, path in every_request(served):
            answer = client.request(method, path, headers={"Origin": served.base})
            assert answer.status_code == 401, (method, path, answer.status_code, answer.text)
            assert "hz_session" not in answer.headers.get("set-cookie", "")


def test_every_route_refuses_a_foreign_host_even_with_the_token(served: Served) -> None:
    with httpx.Client(base_url=served.base, timeout=10) as client:
        for host in (f"evil.example:{served.port}", "127.0.0.1", f"127.0.0.1:{served.port + 1}",
                     f"localhost.evil.example:{served.port}", f"127.0.0.1.nip.io:{served.port}"):  # fmt: skip
            for method, path in every_request(served):
                answer = client.request(method, path, headers={**served.bearer, "Host": host})
                assert answer.status_code == 421, (host, method, path, answer.status_code)


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost"])
def test_loopback_names_with_the_port_are_served(served: Served, host: str) -> None:
    answer = httpx.get(f"{served.base}/api/v1/heinzel_list", headers={**served.bearer, "Host": f"{host}:{served.port}"})
    assert (answer.status_code, answer.json()) == (200, {"schema_version": 1, "agents": []})


@pytest.fixture
def client(served: Served) -> Iterator[httpx.Client]:
    """A browser-like client that opened the login link."""
    with httpx.Client(base_url=served.base, timeout=10, follow_redirects=False) as found:
        answer = found.get(served.login.removeprefix(served.base))
        assert answer.status_code == 303 and answer.headers["location"] == "/"
        yield found


def test_the_login_link_works_once_and_sets_a_strict_http_only_cookie(served: Served, client: httpx.Client) -> None:
    cookie = client.cookies.jar
    (found,) = list(cookie)
    assert found.name == f"hz_session_{served.port}" and found.value != served.token
    header = httpx.get(served.login, follow_redirects=False)  # the same link again, from anywhere
    assert (header.status_code, header.text) == (
        401, "401: this login link was used already, has expired or is wrong; run `hz serve` for a new one\n"
    )  # fmt: skip
    page = client.get("/")
    assert page.status_code == 200 and "My Heinzelmännchen" in page.text


def test_the_set_cookie_header_is_http_only_and_same_site_strict(repo: Path) -> None:
    from tests.web.conftest import start

    served = start()
    try:
        answer = httpx.get(served.login, follow_redirects=False)
        cookie = answer.headers["set-cookie"]
        assert cookie.startswith(f"hz_session_{served.port}=")
        assert "HttpOnly" in cookie and "SameSite=strict" in cookie and "Path=/" in cookie
        assert served.token not in cookie
    finally:
        served.server.stop()


def test_an_expired_or_forged_code_logs_nobody_in(served: Served) -> None:
    keys = served.server.server.config.app.keys
    late = keys.mint_login(now=0.0)  # expired long ago
    for code in (late, "A" * 32, "../../token", served.token):
        answer = httpx.get(f"{served.base}/login", params={"code": code}, follow_redirects=False)
        assert answer.status_code == 401, code


def test_the_token_file_is_private(served: Served) -> None:
    folder = Path(os.environ["HZ_HOME"]) / "web"
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert stat.S_IMODE((folder / "token").stat().st_mode) == 0o600


def csrf_of(client: httpx.Client) -> str:
    found = re.search(r'name="csrf" value="([0-9a-f]{64})"', client.get("/").text)
    assert found is not None
    return found.group(1)


def test_a_change_from_another_origin_is_refused(served: Served, client: httpx.Client) -> None:
    csrf = csrf_of(client)
    form = {"csrf": csrf, "item": "nothing"}
    cases: list[tuple[dict[str, str], int]] = [
        ({"Origin": "http://evil.example"}, 403),
        ({"Origin": f"http://localhost:{served.port}"}, 403),  # another origin, though the same machine
        ({"Origin": "null"}, 403),
        ({}, 403),  # a browser POST always names its origin; none is no page of ours
    ]
    for headers, status in cases:
        answer = client.post("/approve", data=form, headers=headers)
        assert answer.status_code == status, (headers, answer.text)
        assert answer.text == "403: a request that changes something must come from this page's own origin\n"


def test_a_change_without_the_csrf_token_is_refused(served: Served, client: httpx.Client) -> None:
    for form in ({}, {"csrf": ""}, {"csrf": "0" * 64}, {"csrf": served.token}):
        answer = client.post("/approve", data={**form, "item": "x"}, headers={"Origin": served.base})
        assert (answer.status_code, answer.text) == (
            403, "403: the CSRF token is missing or wrong; reload the page and try again\n"
        ), form  # fmt: skip


def test_the_same_origin_with_the_csrf_token_gets_through(served: Served, client: httpx.Client) -> None:
    answer = client.post("/logout", data={"csrf": csrf_of(client)}, headers={"Origin": served.base})
    said = "logged out; open a new login link from `hz serve` to come back\n"
    assert (answer.status_code, answer.text) == (200, said)
    assert f"hz_session_{served.port}=" in answer.headers["set-cookie"]


def test_a_bearer_client_may_omit_the_origin_but_not_send_a_foreign_one(served: Served) -> None:
    with httpx.Client(base_url=served.base, timeout=10) as client:
        assert client.post("/logout", headers=served.bearer).status_code == 200  # no cookie to ride on
        evil = {**served.bearer, "Origin": "http://evil.example"}
        assert client.post("/logout", headers=evil).status_code == 403


def test_a_body_too_large_is_refused_before_any_operation(served: Served) -> None:
    answer = httpx.post(f"{served.base}/logout", headers=served.bearer, content=b"x" * (300 * 1024))
    assert answer.status_code == 413


def test_every_answer_carries_the_security_headers(served: Served) -> None:
    for path, headers in (("/", served.bearer), ("/", {}), ("/static/app.js", served.bearer)):
        answer = httpx.get(f"{served.base}{path}", headers=headers)
        assert answer.headers["content-security-policy"].startswith("default-src 'none'; script-src 'self';")
        assert answer.headers["x-content-type-options"] == "nosniff"
        assert answer.headers["referrer-policy"] == "same-origin"
        assert answer.headers["cache-control"] == "no-store"


def test_a_form_cannot_send_the_browser_to_another_site(
    hz: Any, repo: Path, served: Served, client: httpx.Client
) -> None:
    from tests.turn.agents import contract_text

    csrf = csrf_of(client)
    for n, back in enumerate(("//evil.example/x", "http://evil.example/", "/\\evil.example", "javascript:alert(1)")):
        path = repo.parent / f"p{n}.prose.md"
        path.write_text(contract_text(f"proposed-{n}"), encoding="utf-8")
        assert hz("heinzel", "new", f"p{n}", "--from", str(path)).exit_code == 0
        answer = client.post("/approve", data={"csrf": csrf, "item": f"p{n}", "back": back},
                             headers={"Origin": served.base})  # fmt: skip
        assert (answer.status_code, answer.headers["location"]) == (303, "/?notice=approved"), back


def test_expired_login_codes_are_forgotten_when_a_new_one_is_minted(served: Served) -> None:
    keys = served.server.server.config.app.keys
    logins = keys.folder / "logins"
    keys.mint_login(now=0.0)
    assert len(list(logins.iterdir())) == 2  # the one printed at start, and one that expired long ago
    keys.mint_login()
    assert len(list(logins.iterdir())) == 2  # the expired one went; the printed one and the new one stay
    assert all(stat.S_IMODE(p.stat().st_mode) == 0o600 for p in logins.iterdir())


def test_an_event_frame_cannot_smuggle_a_second_field() -> None:
    from hz.web.live import Event

    frame = Event("step", {"report": "ok\n\nevent: row\ndata: {}\r\nid: 999"}, "7").frame().decode()
    assert frame.count("\n") == 4 and frame.endswith("\n\n")
    assert frame.splitlines()[:2] == ["event: step", "id: 7"]
