"""The idle tick stays light: an asleep machine pays a few indexed queries and no heavy imports."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

from tests.turn.agents import adopt, contract_text

HEAVY = ("pydantic", "pygit2", "ruamel", "markdown_it", "pydantic_ai", "httpx")
PROBE = """
import json, sys
from hz.cli import run
code = run(["tick", "--now", "2026-10-27T09:00Z"])
print(json.dumps({"code": code, "heavy": sorted({m.split(".")[0] for m in sys.modules} & set(sys.argv[1:]))}))
# Reading and folding spines is for a tick that has something to read: an idle one never loads them.
readers = ("hz.session.spine", "hz.session.fold", "hz.session.projection")
print(json.dumps(sorted(m for m in sys.modules if m.startswith(readers))))
"""


def test_an_idle_tick_imports_nothing_heavy(repo: Path) -> None:
    adopt(contract_text(), now=datetime(2026, 10, 26, 9, 0, tzinfo=UTC))
    # the created turn runs once; after it the agent is asleep until Friday
    first = subprocess.run([sys.executable, "-c", PROBE, *HEAVY], cwd=repo, env=dict(os.environ),
                           capture_output=True, text=True, timeout=60, check=True)  # fmt: skip
    assert json.loads(first.stdout.splitlines()[-2])["heavy"] != []
    idle = subprocess.run([sys.executable, "-c", PROBE, *HEAVY], cwd=repo, env=dict(os.environ),
                          capture_output=True, text=True, timeout=60, check=True)  # fmt: skip
    assert idle.stdout.splitlines() == ["nothing due", json.dumps({"code": 0, "heavy": []}), "[]"]
    # With a playbook, the day's discovery pass loads YAML once; after it the tick is idle and light again.
    (repo / "workflows").mkdir()
    (repo / "workflows/_playbook.yaml").write_text("hints:\n  - name: all\n    match: file:*.md\n    why: any\n")
    daily = subprocess.run([sys.executable, "-c", PROBE, *HEAVY], cwd=repo, env=dict(os.environ),
                           capture_output=True, text=True, timeout=60, check=True)  # fmt: skip
    assert "ruamel" in json.loads(daily.stdout.splitlines()[-2])["heavy"]
    again = subprocess.run([sys.executable, "-c", PROBE, *HEAVY], cwd=repo, env=dict(os.environ),
                           capture_output=True, text=True, timeout=60, check=True)  # fmt: skip
    assert again.stdout.splitlines() == ["nothing due", json.dumps({"code": 0, "heavy": []}), "[]"]


# What the console entry point (`hz tick`, `python -m hz tick`) leaves out on an idle machine, beyond the
# heavy libraries: click (the entry point parses a plain `tick` itself), the TOML parser (no config is
# read when nothing is due), platformdirs (HZ_HOME is set here), package metadata (only --version) and
# dataclasses (it imports inspect, about 20 ms of a fresh process).
LIGHT = (*HEAVY, "click", "tomllib", "platformdirs", "importlib.metadata", "json", "zoneinfo", "dataclasses")
ENTRY_PROBE = """
import sys
from hz.cli import main
try:
    main(["tick", "--now", "2026-10-27T09:00Z"])
except SystemExit as exit:
    loaded = sorted(m for m in sys.argv[1:] if m in sys.modules)
    import json  # only now: json is one of the modules looked for
    print(json.dumps({"code": exit.code, "loaded": loaded}))
"""


def test_the_idle_console_entry_point_leaves_out_click_and_config(repo: Path) -> None:
    adopt(contract_text(), now=datetime(2026, 10, 26, 9, 0, tzinfo=UTC))
    probe = [sys.executable, "-c", ENTRY_PROBE, *LIGHT]
    first = subprocess.run(probe, cwd=repo, capture_output=True, text=True, timeout=60, check=True)
    assert first.stdout.splitlines()[-1] != json.dumps({"code": 0, "loaded": []})  # the created turn loads them
    idle = subprocess.run(probe, cwd=repo, capture_output=True, text=True, timeout=60, check=True)
    assert idle.stdout.splitlines() == ["nothing due", json.dumps({"code": 0, "loaded": []})]
