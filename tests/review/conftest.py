"""Fixtures for the review tests: `fake_forge(bare)` starts a fake GitHub backed by that bare repository."""

from __future__ import annotations

import subprocess
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from hz.review.forge_github import GitHubForge
from tests.review import fake_forge_git as g
from tests.review.fake_forge import FakeForge
from tests.turn.team_harness import Member, pulse_team


@pytest.fixture
def fake_forge() -> Iterator[Callable[..., FakeForge]]:
    """A factory: `fake_forge(bare_path, **options)` is a started FakeForge (see its module), stopped after the test."""
    started: list[FakeForge] = []

    def start(bare: Path, **options: Any) -> FakeForge:
        fake = FakeForge(bare, **options).start()
        started.append(fake)
        return fake

    yield start
    for fake in started:
        fake.stop()
    strangers = [(fake.url, seen) for fake in started for seen in fake.strangers]
    if strangers:  # its own answers are not what it was asked about: the leftover is some earlier test's
        shown = "; ".join(f"{seen.method} {url}{seen.path}" for url, seen in strangers[:3])
        pytest.fail(f"a client of another fake forge (left running by an earlier test) asked this one: {shown}",
                    pytrace=False)  # fmt: skip


PulseOnForge = Callable[..., tuple[FakeForge, list[Member]]]


@pytest.fixture
def pulse_on_forge(tmp_path: Path, bare: Path, loopback: str, fake_forge: Callable[..., FakeForge]) -> PulseOnForge:
    """A factory: `pulse_on_forge("priya", "omar")` starts the fake GitHub on `bare`, seeds the hourly pulse
    team there (tests/turn/team_harness.pulse_team) and joins those members, each talking to that forge.
    `bare` and `loopback` are the fixtures of tests/gitstate/conftest.py, which the test module imports."""

    def start(*names: str) -> tuple[FakeForge, list[Member]]:
        fake = fake_forge(bare)
        return fake, pulse_team(tmp_path, bare, loopback, *names, forge=fake.environ)

    return start


DRAFT = "hz/draft/weekly-report/summary"
DRAFT_MESSAGE = (
    "draft: weekly-report summary for 2026-W45\n\n"
    "Hz-Draft: dk-1\nHz-Slot: 2026-W45\nHz-Contract: weekly-report\nHz-Output: summary"
)


@pytest.fixture
def forge_bare(tmp_path: Path) -> Path:
    """A bare repository with `main` (a README) and the draft branch DRAFT one commit ahead of it."""
    bare = tmp_path / "remote" / "team.git"
    bare.parent.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", "--bare", str(bare)], check=True)
    g.put(bare, "main", {"README.md": "team\n", "reports/summary.md": "old\n"}, "init")
    g.put(bare, DRAFT, {"reports/summary.md": "the draft\nsecond line\n"}, DRAFT_MESSAGE, start="main")
    return bare


@dataclass
class Rig:
    fake: FakeForge
    forge: GitHubForge
    sleeps: list[float]  # the rate-limit waits the adapter asked for (recorded, not slept)


@pytest.fixture
def github(fake_forge: Callable[..., FakeForge], forge_bare: Path) -> Iterator[Rig]:
    """A fake forge on `forge_bare` and the adapter talking to it."""
    fake = fake_forge(forge_bare)
    sleeps: list[float] = []
    forge = GitHubForge.connect(fake.url, fake.full_name, fake.token, fake.environ, sleep=sleeps.append)
    yield Rig(fake, forge, sleeps)
    forge.close()
