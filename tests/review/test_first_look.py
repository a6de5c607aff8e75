"""An empty home's first look at the team's drafts reads as models only the drafts still waiting (issue 22).

Every Actions run starts from an empty `$HZ_HOME`, so it knows no draft as decided and its approval look
lists every `draft.placed` on the tip: after `hz state compact`, a week of the team's drafts (~10,000 for
50 hourly contracts). Whether a draft has a fate takes its key alone, read without the models; a draft
with a fate placed before every waiting draft of its contract can never replace one, so it is neither read
as a model nor asked its output. Counts, not times: the team of bench/forged_state.py (50 drafts placed and
approved), then one more draft placed and waiting.
"""

from __future__ import annotations

from pathlib import Path

import pygit2

from bench.forged_state import AGENT, HASH, NOW, team
from hz.canonical import canonical_json
from hz.gitstate.events import Event
from hz.gitstate.layout import event_path
from hz.review.approval_state import undecided
from tests.review.test_forged_cost import Counting


def waiting_draft(bare: Path) -> str:
    """One more draft, placed after the 50 approved ones and with no fate: its key."""
    repo = pygit2.Repository(str(bare))
    tip = repo.references["refs/heads/hz/state"].peel(pygit2.Commit)
    key = f"{AGENT}@v1@2027-01-01T07:00Z@state:digest/2027.md"
    event = {"v": 1, "kind": "draft.placed", "id": AGENT, "key": key, "ts": NOW.strftime("%Y-%m-%dT%H:%M:%SZ"),
             "lease": AGENT, "token": 99, "data": {"asset": "state:digest/2027.md", "hash": HASH, "key": key,
             "turn": "01KD0000000000000000000099"}}  # fmt: skip
    index = pygit2.Index()
    index.read_tree(tip.tree)
    path = event_path(AGENT, "draft.placed", key)
    index.add(pygit2.IndexEntry(path, repo.create_blob(canonical_json(event) + b"\n"), pygit2.GIT_FILEMODE_BLOB))
    who = pygit2.Signature("hz", "hz@localhost")
    repo.create_commit("refs/heads/hz/state", who, who, "hz-state: 1 events", index.write_tree(repo), [tip.id])
    return key


def test_a_first_look_reads_only_the_waiting_drafts_as_models(tmp_path: Path) -> None:
    team(tmp_path, 100)
    bare = tmp_path / "team.git"
    key = waiting_draft(bare)
    repo = pygit2.Repository(str(bare))
    asked: list[str] = []

    def output_of(placed: Event) -> str:
        asked.append(placed.key)
        return "digest"

    Counting.reads = 0
    book = Counting(repo, str(repo.references["refs/heads/hz/state"].target))
    waiting, decided = undecided(book, output_of)
    assert [(placed.key, output, newer) for placed, output, newer in waiting] == [(key, "digest", None)]
    assert len(decided) == 50  # remembered by a home that keeps them; an Actions run's home starts empty
    assert (Counting.reads, asked) == (1, [key])
