"""The page form for `new`: a Heinzelmännchen proposed from the web through `heinzel_new`, the operation
`hz heinzel new` calls; a contract that does not compile is said above the form with its text kept."""

from __future__ import annotations

import json
import re
from contextlib import closing
from pathlib import Path

import httpx

from tests.turn.agents import contract_text
from tests.web.conftest import Hz, Served


def logged_in(served: Served) -> tuple[httpx.Client, str]:
    client = httpx.Client(base_url=served.base, follow_redirects=False, timeout=30)
    client.get(served.login.removeprefix(served.base))
    csrf = re.search(r'name="csrf" value="([0-9a-f]{64})"', client.get("/new").text)
    assert csrf is not None
    return client, csrf.group(1)


def test_a_contract_proposed_from_the_page_is_the_one_the_cli_shows(hz: Hz, repo: Path, served: Served) -> None:
    text = contract_text("weekly-web", target="file:web/{{slot:%G-W%V}}.md").replace("\n", "\r\n")
    client, csrf = logged_in(served)
    with closing(client):
        form = {"csrf": csrf, "name": "web-note", "namespace": "me", "contract": text, "say": ""}
        refused = client.post("/new", data=form, headers={"Origin": "http://evil.example"})
        assert refused.status_code == 403  # another site's form, even with the cookie and the token
        assert client.post("/new", data={**form, "csrf": "0" * 64}, headers={"Origin": served.base}).status_code == 403
        assert json.loads(hz("heinzel", "list", "--json").out) == []  # nothing was created by either
        made = client.post("/new", data=form, headers={"Origin": served.base})
        assert made.status_code == 303, made.text
        found = re.fullmatch(r"/heinzel/(hz-[0-9A-Z]{26})\?notice=proposed", made.headers["location"])
        assert found is not None, made.headers["location"]
        page = client.get(made.headers["location"]).text
    assert "proposed: read its contract below, then approve it" in page
    shown = json.loads(hz("heinzel", "show", "web-note", "--json").out)
    assert (shown["id"], shown["state"], shown["namespace"]) == (found.group(1), "proposed", "me")
    assert shown["source"] == "the web page" and [v["version"] for v in shown["versions"]] == [1]
    assert hz("approve", "web-note").exit_code == 0  # the same proposal the CLI approves


def test_a_contract_that_does_not_compile_is_said_and_its_text_kept(hz: Hz, repo: Path, served: Served) -> None:
    broken = contract_text("weekly-web").replace("0 15 * * FRI", "not a schedule") + "\n<b>kept</b>\n"
    client, csrf = logged_in(served)
    with closing(client):
        form = {"csrf": csrf, "name": "web-note", "namespace": "me", "contract": broken}
        answer = client.post("/new", data=form, headers={"Origin": served.base})
    assert answer.status_code == 400
    assert re.search(r'class="error">[^<]*HZC\d{3}', answer.text), answer.text
    assert "&lt;b&gt;kept&lt;/b&gt;" in answer.text and 'value="web-note"' in answer.text  # as text, not markup
    assert json.loads(hz("heinzel", "list", "--json").out) == []


def test_a_sentence_alone_asks_the_model_runner_as_the_cli_does(hz: Hz, repo: Path, served: Served) -> None:
    client, csrf = logged_in(served)
    with closing(client):
        form = {"csrf": csrf, "name": "said", "namespace": "me", "contract": "", "say": "a weekly note on releases"}
        answer = client.post("/new", data=form, headers={"Origin": served.base})
    cli = hz("heinzel", "new", "said", "--say", "a weekly note on releases")
    assert answer.status_code == 400 and cli.exit_code != 0  # this home's runner is the offline one
    message = "compiling a sentence into a contract needs a model runner; the offline runner cannot write one"
    assert message in answer.text and message in cli.err
    assert "a weekly note on releases</textarea>" in answer.text
