"""After a turn that failed in its gather step, only an upstream readable now is news (issue 19, finding 7).

`a-reader` reads a file (`notes`) and the approved summary of `z-source` (`up`). Its first turn fails: the
file is missing. Creating the file wakes nothing (a source that was not there then is no move), nor does
the tick while nothing of `z-source` is on main; the tick after `z-source`'s output reaches main wakes it,
cause `source-changed` on `up`, and the next tick is quiet again.
"""

from __future__ import annotations

import os
import subprocess
from datetime import timedelta
from pathlib import Path

from hz.heinzel.adopt import adopt
from hz.session.spine import SPINE, read_spine
from hz.session.store import Store
from hz.tick.daemon import tick
from hz.tick.report import TickReport
from tests.turn.agents import home
from tests.turn.test_order import NOW, contract

MINUTE = timedelta(minutes=1)
INPUTS = """  inputs:
    notes:
      source: "file:docs/notes.md"
    up:
      source: "contract:team/z-source#summary"
"""


def commit(repo: Path, message: str) -> None:
    subprocess.run(["git", "add", "."], cwd=repo, check=True)
    subprocess.run(["git", "commit", "-qm", message], cwd=repo, check=True)


def reader(report: TickReport) -> list[tuple[str, str]]:
    woken = report.woken
    return [(e["action"], e.get("disposition") or e.get("reason") or "") for e in woken if e["agent"] == "a-reader"]


def test_a_reader_whose_gather_failed_wakes_on_its_upstream_not_on_a_file_now_there(repo: Path) -> None:
    (repo / "workflows").mkdir()
    (repo / "workflows/z-source.prose.md").write_text(contract("z-source"))
    requires = "\n### Requires\n\n- `notes`: the notes.\n- `up`: the source's summary.\n"
    (repo / "workflows/a-reader.prose.md").write_text(contract("a-reader", INPUTS, requires))
    commit(repo, "contracts")
    config = Path(os.environ["HZ_CONFIG_HOME"])
    config.mkdir(parents=True, exist_ok=True)
    # priya owns both: without [state] in hz.toml a team contract runs on its owner's machine alone
    (config / "config.toml").write_text('[user]\nhandle = "@priya"\n')
    with Store.from_environ(os.environ) as store:
        adopted = adopt(store, repo, now=NOW, handle="@priya", environ=os.environ)
    assert sorted(a.action for a in adopted) == ["created", "created"]
    assert reader(tick(root=repo, now=NOW)) == [("started", "failed")]  # docs/notes.md is missing

    (repo / "docs").mkdir()
    (repo / "docs/notes.md").write_text("# Notes\n")
    commit(repo, "notes")
    assert reader(tick(root=repo, now=NOW + MINUTE)) == []  # nothing of z-source on main: no wake

    (repo / "out").mkdir()
    (repo / "out/z-source.md").write_text("# z-source\n\n## summary\n\nAll is well.\n")
    commit(repo, "z-source, approved")
    assert reader(tick(root=repo, now=NOW + 2 * MINUTE)) == [("started", "drafted")]
    assert reader(tick(root=repo, now=NOW + 3 * MINUTE)) == []

    (agent,) = [a.agent_id for a in adopted if a.name == "a-reader"]
    read = read_spine(home() / "heinzel" / agent / SPINE)
    started = [e.data["cause"] for e in read.events if e.kind == "turn.started"]
    assert started == ["created", "source-changed"]
    (woke,) = [e.data["keys"] for e in read.events if e.kind == "turn.started" and e.data["cause"] != "created"]
    assert [k.split("@", 1)[1].split(":", 1)[0] for k in woke] == ["up"]  # the upstream, never the file
