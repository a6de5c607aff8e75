"""`file:` inputs against a hostile working tree: planted links, FIFOs, devices, huge files, `.git`.

A single path that breaks the rule is a clear error; a glob skips what breaks it, names it, and reads the
rest. Nothing here may hang: every read runs under a one-second deadline.
"""

from __future__ import annotations

import os
import socket
import subprocess
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from pydantic_ai.messages import ModelMessage, ModelResponse, SystemPromptPart, ToolCallPart, UserPromptPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from hz.repo_paths import MAX_FILE_BYTES
from hz.runners.model import ModelRunner
from hz.runners.pricing import Price
from hz.sources.base import SourceError
from hz.sources.cache import SourceCache
from hz.tick.daemon import tick
from tests.deadline import within
from tests.sources.helpers import fetch
from tests.turn.agents import adopt

SECRET = "ghp_planted0credential0in0the0remote0url"
FIFO = "is a FIFO, not a regular file"
REGULAR = "hint: hz reads regular files only, never a FIFO, device or folder"


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "docs").mkdir(parents=True)
    (root / "docs" / "a.md").write_text("# A\n")
    (root / ".git").mkdir()
    (root / ".git" / "config").write_text(f'[remote "origin"]\n\turl = https://priya:{SECRET}@example.invalid/x\n')
    return root


def _facets(uri: str, root: Path, cache: SourceCache) -> dict[str, Any]:
    with within(1):
        return dict(fetch(uri, cache, root=root).facets)


def _error(uri: str, root: Path, cache: SourceCache) -> str:
    with within(1), pytest.raises(SourceError) as caught:
        fetch(uri, cache, root=root)
    return caught.value.render()


def test_a_fifo_as_the_input_is_an_error_at_once(tree: Path, cache: SourceCache) -> None:
    os.mkfifo(tree / "pipe")
    assert _error("file:pipe", tree, cache) == (f"error: file:pipe: pipe {FIFO}\n  {REGULAR}")


def test_a_fifo_as_a_feed_file_is_an_error_at_once(tree: Path, cache: SourceCache) -> None:
    os.mkfifo(tree / "team.xml")
    assert _error("feed:team.xml", tree, cache) == (f"error: feed:team.xml: the file {FIFO}\n  {REGULAR}")
    assert _error("feed:.git/config", tree, cache) == (
        "error: feed:.git/config: the path names .git, which hz never reads or writes\n  hint: name a file outside .git"
    )


def test_a_link_to_dev_zero_is_an_error_at_once(tree: Path, cache: SourceCache) -> None:
    (tree / "zero").symlink_to("/dev/zero")
    assert _error("file:zero", tree, cache) == (
        "error: file:zero: the path leads out of the repository through the link zero\n"
        "  hint: remove the link, or copy the file in"
    )


def test_a_device_inside_the_tree_is_not_read(tree: Path, cache: SourceCache) -> None:
    # a device node cannot be made without privileges; a socket stands for every non-regular file
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind(str(tree / "docs" / "s.md"))
        assert _facets("file:docs/*.md", tree, cache) == {
            "text": {"docs/a.md": "# A"},
            "paths": ["docs/a.md"],
            "skipped": {"docs/s.md": "is a socket, not a regular file"},
        }


def test_a_glob_skips_and_names_what_breaks_the_rule_and_reads_the_rest(tree: Path, cache: SourceCache) -> None:
    os.mkfifo(tree / "docs" / "pipe.md")
    (tree / "docs" / "zero.md").symlink_to("/dev/zero")
    (tree / "docs" / "x.md").symlink_to("../.git/config")
    (tree / "docs" / "big.md").write_bytes(b"x" * (MAX_FILE_BYTES + 1))
    (tree / "docs" / "alias.md").symlink_to("a.md")  # a link that stays inside is read
    (tree / "docs" / "sub.md").mkdir()  # a folder the glob names is not a file, and no news
    (tree / "docs" / "gone.md").symlink_to("nowhere.md")
    assert _facets("file:docs/*.md", tree, cache) == {
        "text": {"docs/a.md": "# A", "docs/alias.md": "# A"},
        "paths": ["docs/a.md", "docs/alias.md"],
        "skipped": {
            "docs/big.md": "is larger than 1024 KiB",
            "docs/pipe.md": FIFO,
            "docs/x.md": "leads into .git through the link docs/x.md",
            "docs/zero.md": "leads out of the repository through the link docs/zero.md",
        },
    }


def test_a_linked_folder_into_git_is_named_and_never_entered(tree: Path, cache: SourceCache) -> None:
    (tree / "docs" / "x").symlink_to("../.git", target_is_directory=True)
    facets = _facets("file:docs/**", tree, cache)
    assert facets["skipped"] == {"docs/x": "leads into .git through the link docs/x"}
    assert facets["paths"] == ["docs/a.md"]
    assert _error("file:docs/x/config", tree, cache) == (
        "error: file:docs/x/config: the path leads into .git through the link docs/x\n"
        "  hint: remove the link; hz never reads .git"
    )


def test_a_link_to_a_folder_inside_is_named_not_entered(tree: Path, cache: SourceCache) -> None:
    (tree / "handbook").mkdir()
    (tree / "handbook" / "b.md").write_text("# B\n")
    (tree / "docs" / "hb").symlink_to("../handbook", target_is_directory=True)
    (tree / "docs" / "up").symlink_to("..", target_is_directory=True)  # a loop, were links entered
    assert _facets("file:docs/**/*.md", tree, cache) == {
        "text": {"docs/a.md": "# A"},
        "paths": ["docs/a.md"],
        "skipped": {
            "docs/hb": "is a link to a folder, which a glob never enters",
            "docs/up": "is a link to a folder, which a glob never enters",
        },
    }
    assert _facets("file:docs/hb/b.md", tree, cache)["text"] == {"docs/hb/b.md": "# B"}  # one path may


@pytest.mark.parametrize("path", [".git/config", ".GIT/config", "docs/../.git/config", "**/.git/*"])
def test_git_is_never_an_input(tree: Path, cache: SourceCache, path: str) -> None:
    assert _error(f"file:{path}", tree, cache) == (
        f"error: file:{path}: the path names .git, which hz never reads or writes\n  hint: name a file outside .git"
    )


def test_a_glob_never_matches_git_in_any_spelling(tree: Path, cache: SourceCache) -> None:
    (tree / "sub" / ".GIT").mkdir(parents=True)
    (tree / "sub" / ".GIT" / "config").write_text(SECRET)
    facets = _facets("file:**/*", tree, cache)
    assert facets == {"text": {"docs/a.md": "# A"}, "paths": ["docs/a.md"]}


def test_a_big_single_file_is_named(tree: Path, cache: SourceCache) -> None:
    (tree / "big.json").write_bytes(b"[" + b"0," * MAX_FILE_BYTES + b"0]")
    assert _error("file:big.json", tree, cache) == (
        "error: file:big.json: big.json is larger than 1024 KiB\n"
        "  hint: split the file, or point the input at a smaller one"
    )


def test_a_folder_is_not_a_file(tree: Path, cache: SourceCache) -> None:
    assert _error("file:docs", tree, cache) == (f"error: file:docs: docs is a folder, not a regular file\n  {REGULAR}")


CONTRACT = """---
name: weekly-docs
kind: responsibility
description: A weekly note on the docs, for tests.
hz:
  schema: 1
  title: Weekly docs note
  owner: "@priya"
  scope: personal
  schedule: "0 15 * * FRI"
  inputs:
    docs:
      source: "{source}"
  outputs:
    note:
      target: "file:notes/weekly.md"
      facets: [summary]
---

# Weekly docs note

### Goal

The weekly docs note is drafted every Friday.

### Requires

- `docs`: the team's docs.

### Maintains

- `note`: the week's note.

#### summary

Material: what the docs say.

### Done when

- [ ] every doc is mentioned
"""
MONDAY = datetime(2026, 10, 26, 9, 0, tzinfo=UTC)


class Model:
    """Drafts a note, and keeps every prompt it was shown."""

    def __init__(self) -> None:
        self.prompts: list[str] = []

    def __call__(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen = [str(info.instructions or "")]
        for message in messages:
            for part in message.parts:
                if isinstance(part, SystemPromptPart | UserPromptPart):
                    seen.append(str(part.content))
        self.prompts.append("\n".join(seen))
        draft = {"output": "note", "facet": "summary", "text": "The docs are fine."}
        return ModelResponse(parts=[ToolCallPart("final_result", {"kind": "draft", "report": "r", "drafts": [draft]})])


def test_a_credential_behind_a_planted_link_never_reaches_the_model_or_the_home(repo: Path) -> None:
    remote = f"https://priya:{SECRET}@example.invalid/team.git"
    subprocess.run(["git", "-C", str(repo), "remote", "add", "origin", remote], check=True)
    (repo / "docs").mkdir()
    (repo / "docs" / "a.md").write_text("# Docs\n")
    (repo / "docs" / "x.md").symlink_to("../.git/config")
    adopt(CONTRACT.format(source="file:docs/*.md"), now=MONDAY)
    model = Model()
    with within(30):
        report = tick(root=repo, now=MONDAY, runner=ModelRunner(FunctionModel(model), Price(2.0, 10.0, 0.2)))
    assert [(e["action"], e["disposition"]) for e in report.woken] == [("started", "drafted")]
    assert len(model.prompts) == 1
    assert "leads into .git through the link docs/x.md" in model.prompts[0]
    assert SECRET not in model.prompts[0]
    home = Path(os.environ["HZ_HOME"])
    holding = [p for p in home.rglob("*") if p.is_file() and SECRET.encode() in p.read_bytes()]
    assert holding == []


def test_a_contract_reading_git_config_is_refused_before_anything_runs(repo: Path, hz: Any) -> None:
    (repo / "docs.prose.md").write_text(CONTRACT.format(source="file:.git/config"))
    created = hz("heinzel", "new", "weekly-docs", "--from", "docs.prose.md")
    assert created.exit_code == 1
    assert "HZC021  hz.inputs.docs.source\n  the input 'file:.git/config' names .git" in created.err + created.out
