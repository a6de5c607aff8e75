"""The pages read without a script, and text from contracts, chats and models reaches them as text."""

from __future__ import annotations

from datetime import UTC, datetime
from html.parser import HTMLParser
from pathlib import Path

import httpx

from tests.web.conftest import Hz, Served, agent_with_draft

HOSTILE = '</pre><script>fetch("http://127.0.0.1:9/x")</script><img src=x onerror="alert(1)">'


class Page(HTMLParser):
    def __init__(self, text: str) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []
        self.feed(text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data: str) -> None:
        self.text.append(data)

    def scripts(self) -> list[dict[str, str | None]]:
        return [attrs for tag, attrs in self.tags if tag == "script"]

    def handlers(self) -> list[str]:
        return [name for _, attrs in self.tags for name in attrs if name.startswith("on")]


def get(served: Served, path: str) -> httpx.Response:
    return httpx.get(f"{served.base}{path}", headers=served.bearer, timeout=20)


def test_the_list_and_its_filters(hz: Hz, repo: Path, served: Served) -> None:
    agent = agent_with_draft(hz, repo)
    assert hz("heinzel", "pause", "note").exit_code == 0
    page = Page(get(served, "/").text)
    assert ("tr", {"data-agent": agent}) in page.tags
    assert "Content-Security-Policy" not in get(served, "/").text  # a header, not an inline tag
    assert agent not in get(served, "/?state=asleep").text
    assert agent in get(served, "/?state=paused").text
    assert agent in get(served, "/?contract=weekly-note@1").text
    bad = get(served, "/?contract=weekly-note@0")
    assert bad.status_code == 400 and "the version must be a whole number from 1 to 999999999" in bad.text


def test_hostile_text_reaches_the_agent_page_as_text(hz: Hz, repo: Path, served: Served) -> None:
    from hz.session.store import Store

    agent = agent_with_draft(hz, repo)
    with Store.from_environ() as store, store.writer(agent) as writer:  # what a model's lesson would say
        writer.append("lesson.recorded", {"lesson_id": "ls-1", "sentence": HOSTILE}, now=datetime.now(UTC))
    contract = Path(repo.parent / "note.prose.md")
    contract.write_text(contract.read_text() + f"\n{HOSTILE}\n", encoding="utf-8")
    amended = hz("heinzel", "amend", "note", "--from", str(contract), "--why", "shorter")
    assert amended.exit_code == 0, amended.err
    answer = get(served, f"/heinzel/{agent}")
    assert answer.status_code == 200
    page = Page(answer.text)
    assert page.scripts() == [{"src": "/static/app.js", "defer": None}]
    assert page.handlers() == [] and [t for t, _ in page.tags if t == "img"] == []
    text = "".join(page.text)
    assert HOSTILE in text  # the lesson, whole, as text
    assert f"+{HOSTILE}" in text  # the amendment's diff line


def test_an_unknown_agent_is_a_page_that_says_so(served: Served) -> None:
    answer = get(served, "/heinzel/nobody")
    assert answer.status_code == 404
    assert "nobody" in "".join(Page(answer.text).text)


def test_the_api_lists_the_same_agents_as_the_cli(hz: Hz, repo: Path, served: Served) -> None:
    import json

    agent_with_draft(hz, repo)
    cli = json.loads(hz("heinzel", "list", "--json").out)
    answer = get(served, "/api/v1/heinzel_list")
    assert answer.json() == {"schema_version": 1, "agents": cli}
    assert get(served, "/api/v1/heinzel_list?state=nonsense").status_code == 422


def test_the_openapi_document_names_every_operation(served: Served) -> None:
    from hz.ops.registry import OPERATIONS

    document = get(served, "/api/v1/openapi.json").json()
    assert document["openapi"] == "3.1.0"
    assert {op["operationId"] for path in document["paths"].values() for op in path.values()} == set(OPERATIONS)
    show = document["paths"]["/api/v1/heinzel_show"]["get"]
    assert [(p["name"], p["required"]) for p in show["parameters"]] == [
        ("name", True),
        ("turns", False),
        ("before", False),
        ("verify", False),
    ]
