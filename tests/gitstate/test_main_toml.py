"""`hz.toml` as the fetched `main` has it (hz.gitstate.main_toml): a committed file anyone can change by
pull request, so a bad one is an error naming main's copy, never a crash and never a silent default."""

from __future__ import annotations

from pathlib import Path

import pygit2
import pytest

from hz.errors import ConfigError
from hz.gitstate.main_toml import read_main_toml, review_settings, shared_differs, warning


def commit(repo: pygit2.Repository, files: dict[str, bytes], mode: int = pygit2.GIT_FILEMODE_BLOB) -> str:
    builder = repo.TreeBuilder()
    for name, data in files.items():
        builder.insert(name, repo.create_blob(data), mode)
    sig = pygit2.Signature("t", "t@example.com", 0, 0)
    return str(repo.create_commit(None, sig, sig, "m", builder.write(), []))


@pytest.fixture
def repo(tmp_path: Path) -> pygit2.Repository:
    return pygit2.init_repository(str(tmp_path / "r"), bare=True)


def test_main_without_the_file_has_none_and_a_good_one_parses(repo: pygit2.Repository) -> None:
    assert read_main_toml(repo, commit(repo, {"README.md": b"x"})) is None
    tip = commit(repo, {"hz.toml": b'[review]\nrequire_other_member = true\n[team.members]\n"@a" = ["a@x.io"]\n'})
    document = read_main_toml(repo, tip)
    assert document is not None and review_settings(document, Path("hz.toml")) is True


@pytest.mark.parametrize(
    ("files", "mode", "said"),
    [
        ({"hz.toml": b"[state\n"}, pygit2.GIT_FILEMODE_BLOB, "not valid TOML"),
        ({"hz.toml": b"\xff\xfe"}, pygit2.GIT_FILEMODE_BLOB, "not UTF-8 text"),
        ({"hz.toml": b"a = " + b"[" * 5000}, pygit2.GIT_FILEMODE_BLOB, "not"),
        ({"hz.toml": b"x" * ((1 << 20) + 1)}, pygit2.GIT_FILEMODE_BLOB, "larger than"),
        ({"hz.toml": b"/etc/passwd"}, pygit2.GIT_FILEMODE_LINK, "not a regular file"),
        ({"hz.toml": b'[State]\nremote = "x"\n'}, pygit2.GIT_FILEMODE_BLOB, "is not [state]"),
    ],
)
def test_a_bad_file_on_main_is_an_error_naming_mains_copy(
    repo: pygit2.Repository, files: dict[str, bytes], mode: int, said: str
) -> None:
    tip = commit(repo, files, mode)
    with pytest.raises(ConfigError) as raised:
        read_main_toml(repo, tip)
    assert raised.value.message.startswith(f"hz.toml on main ({tip[:12]}): ") and said in raised.value.message


@pytest.mark.parametrize(
    ("table", "said"),
    [
        ("review = 1\n", "review must be a table"),
        ("[review]\nrequire_other = true\n", "unknown key review.require_other"),
        ('[review]\nrequire_other_member = "yes"\n', "must be true or false"),
    ],
)
def test_a_review_table_of_the_wrong_shape_is_refused(repo: pygit2.Repository, table: str, said: str) -> None:
    document = read_main_toml(repo, commit(repo, {"hz.toml": table.encode()}))
    with pytest.raises(ConfigError) as raised:
        review_settings(document, Path("hz.toml on main"))
    assert said in raised.value.message


def test_only_the_shared_tables_count_and_the_remote_is_the_members_own(tmp_path: Path) -> None:
    (tmp_path / "hz.toml").write_text('[state]\nremote = "mine"\nlease_ttl_s = 900\n[user]\nx = 1\n')
    main = {"state": {"remote": "theirs", "lease_ttl_s": 900}}
    assert shared_differs(tmp_path, main) == []
    main["team"] = {"members": {"@a": ["a@x.io"]}}
    main["state"]["lease_ttl_s"] = 120
    assert shared_differs(tmp_path, main) == ["state", "team"]
    assert warning(["state", "team"]).startswith("hz.toml here differs from main in [state], [team.members]:")
