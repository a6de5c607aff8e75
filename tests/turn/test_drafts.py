from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from hz.errors import HzError
from hz.review import drafts

SLOT = datetime(2026, 11, 6, 15, 0, tzinfo=UTC)
KEY = "hz-01JC0000000000000000000000@v1@2026-11-06T15:00Z@state:reports/2026-W45.md"


def test_a_target_expands_its_slot_and_stays_inside_the_repository(tmp_path: Path) -> None:
    assert (
        drafts.target_path(tmp_path, "state:reports/{slot:%G-W%V}.md", SLOT)
        == tmp_path.resolve() / "reports/2026-W45.md"
    )
    with pytest.raises(drafts.DraftTargetError) as info:
        drafts.target_path(tmp_path, "file:../elsewhere.md", SLOT)
    assert info.value.render() == (
        "error: the target 'file:../elsewhere.md' goes up with '..'\n"
        "  hint: name a file inside the repository, relative to its root, such as docs/notes.md"
    )
    with pytest.raises(drafts.DraftTargetError, match="cannot draft into 'gdoc:x'"):
        drafts.target_path(tmp_path, "gdoc:x", SLOT)


def test_place_then_find_by_key_then_approve_by_deleting_the_tag(tmp_path: Path) -> None:
    path = tmp_path / "r.md"
    tag = drafts.Tag("weekly-report", 1, KEY)
    assert drafts.find_placed(path, KEY) is None
    digest = drafts.place(path, tag, "# Week 45\n\n- shipped")
    assert path.read_text().splitlines()[0] == (
        f"🧝 DRAFT (weekly-report v1): edit, then delete this line to approve · {KEY}"
    )
    assert drafts.find_placed(path, KEY) == digest
    assert drafts.find_placed(path, KEY + "x") is None
    assert drafts.observe(path, KEY) == drafts.Observation("pending")
    path.write_text("# Week 45\n\n- shipped, edited\n")
    assert drafts.observe(path, KEY) == drafts.Observation("approved", "# Week 45\n\n- shipped, edited\n")


def test_strip_and_withdraw(tmp_path: Path) -> None:
    path = tmp_path / "r.md"
    drafts.place(path, drafts.Tag("w", 2, KEY), "body\n")
    assert drafts.strip_tag(path, KEY) == "body\n"
    assert path.read_text() == "body\n"
    with pytest.raises(HzError, match="no pending draft"):
        drafts.strip_tag(path, KEY)
    drafts.place(path, drafts.Tag("w", 2, KEY), "new\n")
    drafts.withdraw(path, KEY, previous="body\n")
    assert path.read_text() == "body\n"
    drafts.place(path, drafts.Tag("w", 2, KEY), "new\n")
    drafts.withdraw(path, KEY, previous=None)
    assert drafts.observe(path, KEY) == drafts.Observation("rejected")


def test_a_draft_under_another_key_supersedes(tmp_path: Path) -> None:
    path = tmp_path / "r.md"
    drafts.place(path, drafts.Tag("w", 1, KEY + "b"), "x")
    assert drafts.observe(path, KEY) == drafts.Observation("superseded")
