"""Attack: a model with no price anywhere (neither hz's table nor config.toml), in a real `hz tick`.

Without a price the caps cannot bound a request: nothing may be sent, the agent's turn says why, the tick
goes on and no traceback shows.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from tests.fakes.openai_server import FakeOpenAI
from tests.spend.test_caps_hold import DRAFT, MONDAY, TICK
from tests.turn.agents import adopt, contract_text


def test_a_model_without_a_price_sends_nothing_and_says_so(repo: Path) -> None:
    with FakeOpenAI(outcome=DRAFT, completion_tokens=1_000) as server:
        folder = Path(os.environ["HZ_CONFIG_HOME"])
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "config.toml").write_text(
            f'[runners]\ndefault = "model"\n[runners.model]\nbase_url = "{server.base_url}"\nmodel = "priceless-7b"\n'
        )
        adopt(contract_text(), now=MONDAY)
        tick = subprocess.run(TICK, cwd=repo, capture_output=True, text=True, timeout=120, check=False)
        said = tick.stdout + tick.stderr
        assert server.requests == [], said
        assert tick.returncode in (0, 1) and "Traceback" not in said, said  # that agent's error, not hz's bug
        assert "priceless-7b" in said, said
