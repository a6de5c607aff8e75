"""Server-Sent Events: the current row on connect, then each new spine line as it is written, resumable
with Last-Event-ID, never the history; the list's stream sends only the agents that changed."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx

from tests.web.conftest import Hz, Served, agent_with_draft


class Stream:
    """An open event stream read on a thread of its own, its events collected as they come."""

    def __init__(self, served: Served, path: str, last_event_id: str | None = None) -> None:
        headers = {**served.bearer, **({"Last-Event-ID": last_event_id} if last_event_id else {})}
        self.client = httpx.Client(base_url=served.base, timeout=httpx.Timeout(10, read=30))
        self.response = self.client.send(self.client.build_request("GET", path, headers=headers), stream=True)
        self.events: list[dict[str, Any]] = []
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        event: dict[str, Any] = {}
        try:
            for line in self.response.iter_lines():
                if not line:
                    if "event" in event:
                        self.events.append(event)
                    event = {}
                elif not line.startswith(":"):
                    field, _, value = line.partition(": ")
                    event[field] = json.loads(value) if field == "data" else value
        except (httpx.HTTPError, RuntimeError):
            return

    def wait_for(self, test: Any, timeout: float = 5.0) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for event in self.events:
                if test(event):
                    return event
            time.sleep(0.02)
        raise AssertionError(f"no such event in {self.events}")

    def close(self) -> None:
        self.response.close()
        self.client.close()


def kinds(stream: Stream) -> list[str]:
    return [e["data"]["kind"] for e in stream.events if e["event"] == "step"]


def opened(served: Served, path: str, last: str | None = None) -> Iterator[Stream]:
    stream = Stream(served, path, last)
    try:
        yield stream
    finally:
        stream.close()


def test_an_agent_stream_sends_the_row_then_each_new_line(hz: Hz, repo: Path, served: Served) -> None:
    agent = agent_with_draft(hz, repo)
    for stream in opened(served, f"/events/heinzel/{agent}"):
        first = stream.wait_for(lambda e: e["event"] == "row")
        assert stream.response.headers["content-type"].startswith("text/event-stream")
        assert first["data"]["id"] == agent and first["data"]["pending"]["draft"] is not None
        seq = int(first["id"])
        assert kinds(stream) == []  # the row, not the history
        assert hz("heinzel", "wake", "note").exit_code == 0
        done = stream.wait_for(lambda e: e["event"] == "step" and e["data"]["kind"] == "turn.finished")
        steps = [e for e in stream.events if e["event"] == "step"]
        assert [int(e["id"]) for e in steps] == list(range(seq + 1, int(done["id"]) + 1))  # every line, in order
        assert kinds(stream)[0] == "turn.started" and done["data"]["data"]["disposition"] == "drafted"


def test_a_reconnect_gets_what_it_missed_and_nothing_older(hz: Hz, repo: Path, served: Served) -> None:
    agent = agent_with_draft(hz, repo)
    for stream in opened(served, f"/events/heinzel/{agent}"):
        seq = int(stream.wait_for(lambda e: e["event"] == "row")["id"])
    assert hz("heinzel", "wake", "note").exit_code == 0  # while the page was away
    for stream in opened(served, f"/events/heinzel/{agent}", str(seq)):
        stream.wait_for(lambda e: e["event"] == "row")
        missed = [int(e["id"]) for e in stream.events if e["event"] == "step"]
        assert missed and missed[0] == seq + 1 and missed == list(range(seq + 1, missed[-1] + 1))
    for stream in opened(served, f"/events/heinzel/{agent}", "1"):  # too far behind? here: 1 is close
        stream.wait_for(lambda e: e["event"] == "row")
    for stream in opened(served, f"/events/heinzel/{agent}", "not-a-number"):
        row = stream.wait_for(lambda e: e["event"] == "row")
        assert kinds(stream) == [] and int(row["id"]) > seq


def test_the_list_stream_sends_only_what_changed(hz: Hz, repo: Path, served: Served) -> None:
    agent = agent_with_draft(hz, repo)
    agent_with_draft(hz, repo, "other")
    for stream in opened(served, "/events/list"):
        rows = stream.wait_for(lambda e: e["event"] == "row")["data"]
        assert sorted(r["name"] for r in rows) == ["note", "other"]
        assert hz("heinzel", "pause", "note").exit_code == 0
        changed = stream.wait_for(lambda e: e["event"] == "agent")
        assert (changed["data"]["id"], changed["data"]["state"]) == (agent, "paused")
        time.sleep(0.5)
        assert [e["event"] for e in stream.events] == ["row", "agent"]
        digest = changed["id"]
    for stream in opened(served, "/events/list", digest):  # nothing changed since: nothing is sent again
        time.sleep(0.6)
        assert stream.events == []


def test_an_unknown_agent_has_no_stream(served: Served) -> None:
    answer = httpx.get(f"{served.base}/events/heinzel/nobody", headers=served.bearer)
    assert answer.status_code == 404
