"""Fixtures for the review tests: `fake_forge(bare)` starts a fake GitHub backed by that bare repository."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.review.fake_forge import FakeForge


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
