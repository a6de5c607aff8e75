"""Attack: caps in config.toml with a typo: nan, inf, negative, a string, a huge number.

A real `hz tick` must refuse the config with a clear message naming the key (never run with the cap off,
never a traceback) and send nothing to the paid endpoint.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.fakes.openai_server import FakeOpenAI
from tests.spend.test_caps_hold import DRAFT, MONDAY, TICK, configure
from tests.turn.agents import adopt, contract_text


@pytest.mark.parametrize("key", ["max_usd", "max_usd_per_day"])
@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "-1.0", '"0.5"', "1e400", "true", "2e6"])
def test_a_cap_typo_refuses_the_config(repo: Path, key: str, value: str) -> None:
    with FakeOpenAI(outcome=DRAFT, completion_tokens=1_000) as server:
        configure(server, f"{key} = {value}")
        adopt(contract_text(), now=MONDAY)
        tick = subprocess.run(TICK, cwd=repo, capture_output=True, text=True, timeout=120, check=False)
        said = tick.stdout + tick.stderr
        assert server.requests == [], said
        assert tick.returncode not in (0, 3) and "Traceback" not in said, said
        assert f"heinzel.{key}" in said, said
