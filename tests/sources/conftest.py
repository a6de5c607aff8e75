"""Fixtures for source tests: a loopback HTTP server, a source cache, and a fixed clock."""

from __future__ import annotations

import os
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from hz.sources.cache import SourceCache
from tests.sources.server import Server, serve

NOW = datetime(2026, 11, 28, 12, 0, tzinfo=UTC)


@pytest.fixture
def server() -> Iterator[Server]:
    with serve() as running:
        yield running


@pytest.fixture
def cache(tmp_path: Path) -> SourceCache:
    return SourceCache(tmp_path / "cache")


@pytest.fixture
def environ() -> dict[str, str]:
    return dict(os.environ)
