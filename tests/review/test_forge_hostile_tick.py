"""A hostile GitHub against real `hz tick` processes: nested, huge, dripping, redirecting, rate-limiting.

priya's tick drafts and opens the pull request; the forge then answers omar's ticks as a broken or
malicious server would. Each such tick says what went wrong in its output (exit 1, never 3), within
its deadline, records no fate, and the next tick with an honest forge decides the draft as usual.
The drip of header lines and the tick's own deadline are tried in-process (tests/http/test_client.py).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from tests.gitstate.conftest import bare, loopback  # noqa: F401  (the fixtures, fetched by name below)
from tests.review.fake_forge import FakeForge
from tests.review.fake_forge_hostile import Elsewhere, deep, drip, huge, redirect
from tests.review.test_approval_bookkeeping import START, fates
from tests.review.test_approval_forge import drafted
from tests.turn.team_harness import Member
from tests.turn.test_late_runner import hz

PULLS = "/repos/team/hz-team/pulls"
LIMITS = {"HZ_FETCH_DEADLINE_S": "1.5", "HZ_FETCH_MAX_BYTES": str(1024 * 1024)}


@pytest.fixture
def stop() -> Iterator[threading.Event]:
    """Ends every dripping answer when the test ends, whether or not a client is still reading."""
    event = threading.Event()
    yield event
    event.set()


def _tick(member: Member, minutes: int, **environ: str) -> tuple[int, list[dict[str, Any]], float]:
    """One `hz tick --json` of `member`: its exit code, what it reported, and how long it took."""
    started = time.monotonic()
    now = START + timedelta(minutes=minutes)
    done = hz("tick", "--now", now.isoformat(), "--json", cwd=member.clone, environ={**member.environ, **environ})
    assert done.returncode in (0, 1), done.stdout + done.stderr
    return done.returncode, json.loads(done.stdout)["woken"], time.monotonic() - started


def _said(woken: list[dict[str, Any]]) -> list[str]:
    return [e["error"] for e in woken if e["action"] == "error"]


def test_a_hostile_forge_is_said_in_the_tick_and_the_next_honest_tick_decides(
    tmp_path: Path, request: pytest.FixtureRequest, fake_forge: Callable[..., FakeForge], stop: threading.Event
) -> None:
    remote, fake, omar, placed, _branch, number = drafted(tmp_path, request, fake_forge)
    key = placed["data"]["key"]  # type: ignore[index]
    closed = {**fake.pull(number), "state": "closed", "merged": False, "merged_at": None}
    with Elsewhere([closed]).running() as elsewhere:
        cases: list[tuple[Any, dict[str, str], str]] = [
            (deep(600), {}, f"GitHub answered {PULLS} with JSON nested more than 100 levels deep; hz read none of it"),
            (huge(64 * 1024 * 1024), {}, f"GitHub sent more than 1048576 bytes for {PULLS} (as sent or inflated)"),
            (drip(0.2, stop), {}, f"GitHub took longer than 1.5 s to answer {PULLS}"),
            (
                redirect(elsewhere.url),
                {},
                f"GitHub redirected {PULLS} to another origin ({elsewhere.url}{PULLS}); hz did not follow it",
            ),
        ]
        for minutes, (act, environ, message) in enumerate(cases, start=10):
            fake.hostile[:] = [act, act]
            code, woken, took = _tick(omar, minutes, **LIMITS, **environ)
            assert (code, _said(woken)) == (1, [f"{key}: {message}"]), woken
            assert took < 60, (message, took)  # a tick on a loaded machine, not the drip's forever
        assert elsewhere.asked == []  # another origin never answered for the forge
    assert fates(remote) == [] and fates(remote, "draft.rejected") == []

    fake.hostile.clear()
    fake.rate_limit_secondary(retry_after="10", times=8)  # within the forge's own bound, not the tick's
    asked = fake.count()
    code, woken, _ = _tick(omar, 30, HZ_TICK_REMOTE_S="5")
    assert (code, _said(woken)) == (1, [f"{key}: GitHub's rate limit stops GET {PULLS} (403); retry after 10 s"])
    assert fake.count() - asked == 1  # refused at once: a 10 s wait does not fit in the tick's 5 s

    fake.clear_faults()
    fake.close(number)
    code, woken, _ = _tick(omar, 35)
    assert code == 0 and _said(woken) == []
    assert [e["data"]["key"] for e in fates(remote, "draft.rejected")] == [key]
