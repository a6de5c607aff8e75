"""`$HZ_HOME` is private: made 0700 (with every folder hz makes on the way), refused when others can write.

Issue 14, finding 8: the home was created 0755, and a world-writable one was used without a word.
"""

from __future__ import annotations

import os
import stat
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from tests.turn.agents import adopt, contract_text

# Commands that keep things in the home, each of a different part of hz.
USERS = {
    "list": ("heinzel", "list"),
    "reindex": ("heinzel", "reindex"),
    "tick": ("tick", "--now", "2026-10-26T09:00Z"),
    "show": ("heinzel", "show", "weekly-note"),
}


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_a_new_home_and_the_folders_on_the_way_are_private(tmp_path: Path, hz: Any, monkeypatch: Any) -> None:
    home = tmp_path / "made" / "by" / "hz"
    monkeypatch.setenv("HZ_HOME", str(home))
    assert hz("heinzel", "list").exit_code == 0
    assert [_mode(p) for p in (tmp_path / "made", tmp_path / "made" / "by", home, home / "heinzel")] == [0o700] * 4
    assert _mode(home / "heinzel" / "index.sqlite") == 0o600


def test_the_default_home_of_the_tests_is_made_private_too(hz: Any) -> None:
    home = Path(os.environ["HZ_HOME"])
    assert not home.exists()
    adopt(contract_text(), now=datetime(2026, 10, 26, 9, 0, tzinfo=UTC))
    assert _mode(home) == 0o700


@pytest.mark.parametrize("mode", [0o777, 0o775, 0o757, 0o1777, 0o720])
@pytest.mark.parametrize("command", list(USERS))
def test_a_home_others_can_write_is_refused(tmp_path: Path, hz: Any, monkeypatch: Any, mode: int, command: str) -> None:
    home = tmp_path / "shared"
    home.mkdir()
    home.chmod(mode)
    monkeypatch.setenv("HZ_HOME", str(home))
    result = hz(*USERS[command])
    assert (result.exit_code, result.out) == (1, "")
    assert result.err == (
        f"error: hz's data folder {home} can be written by other users (mode {mode:04o})\n  hint: chmod 700 {home}\n"
    )
    assert list(home.iterdir()) == []  # nothing was written there
    assert _mode(home) == mode  # nor was the user's folder changed behind their back


@pytest.mark.skipif(os.getuid() != 0, reason="giving a folder to another user needs root")
def test_a_home_of_another_user_is_refused(tmp_path: Path, hz: Any, monkeypatch: Any) -> None:
    home = tmp_path / "theirs"
    home.mkdir(mode=0o700)
    os.chown(home, 4321, 4321)
    monkeypatch.setenv("HZ_HOME", str(home))
    result = hz("heinzel", "list")
    assert (result.exit_code, result.err) == (
        1,
        f"error: hz's data folder {home} belongs to another user (uid 4321), not to you (uid 0)\n"
        "  hint: point HZ_HOME at a folder of your own\n",
    )


def test_a_home_that_is_a_file_is_refused(tmp_path: Path, hz: Any, monkeypatch: Any) -> None:
    home = tmp_path / "a-file"
    home.write_text("not a folder\n")
    monkeypatch.setenv("HZ_HOME", str(home))
    result = hz("tick", "--now", "2026-10-26T09:00Z")
    assert (result.exit_code, result.err) == (
        1,
        f"error: hz's data folder {home} is not a folder\n  hint: move that file away, or set HZ_HOME\n",
    )


def test_a_link_to_a_writable_folder_is_refused_like_the_folder(tmp_path: Path, hz: Any, monkeypatch: Any) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    (tmp_path / "link").symlink_to(shared)
    monkeypatch.setenv("HZ_HOME", str(tmp_path / "link"))
    result = hz("heinzel", "list")
    assert (result.exit_code, result.err) == (
        1,
        f"error: hz's data folder {tmp_path / 'link'} can be written by other users (mode 0777)\n"
        f"  hint: chmod 700 {tmp_path / 'link'}\n",
    )


def test_a_home_only_others_can_read_is_used_as_the_user_left_it(tmp_path: Path, hz: Any, monkeypatch: Any) -> None:
    home = tmp_path / "readable"
    home.mkdir()
    home.chmod(0o755)
    monkeypatch.setenv("HZ_HOME", str(home))
    assert hz("heinzel", "list").exit_code == 0
    assert (_mode(home), _mode(home / "heinzel")) == (0o755, 0o700)


def test_a_draft_folder_in_the_repository_keeps_the_users_mode(repo: Path, hz: Any) -> None:
    adopt(contract_text(), now=datetime(2026, 10, 26, 9, 0, tzinfo=UTC))
    assert hz("tick", "--now", "2026-10-26T09:00Z").out == "weekly-note: started -> drafted\n"
    umask = os.umask(0)
    os.umask(umask)
    assert _mode(repo / "notes") == 0o777 & ~umask  # shared with the team, not private like the home
