"""`[team.members]` in hz.toml: who merged, as a roster handle. A committed file, so hostile input is an
error naming the file, never a crash and never a silent mapping."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import TypeAdapter

from hz.errors import ConfigError
from hz.gitstate.types import Handle
from hz.review.approval_roster import UNKNOWN, Roster, load_roster

GOOD = '[state]\nremote = "origin"\n\n[team.members]\n"@rita" = ["Rita@Example.com", "rita-gh"]\n"@omar" = []\n'


def roster(tmp_path: Path, text: str) -> Roster:
    (tmp_path / "hz.toml").write_text(text, encoding="utf-8")
    return load_roster(tmp_path)


def test_logins_and_addresses_map_to_handles_case_blind(tmp_path: Path) -> None:
    found = roster(tmp_path, GOOD)
    assert found.for_login("RITA-GH") == "@rita" and found.for_email(" rita@example.COM ") == "@rita"
    assert found.for_login("someone-else") == "@someone-else"  # a forge login is a handle of its own
    assert found.for_email("ghost@example.com") == UNKNOWN
    assert found.for_login("not a login") is None


def test_no_file_or_no_table_is_an_empty_roster(tmp_path: Path) -> None:
    assert load_roster(tmp_path) == Roster()
    assert roster(tmp_path, '[state]\nremote = "origin"\n') == Roster()


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("team = 3\n", "team must be a table"),
        ("[team]\nmembers = [1]\n", "team.members must be a table"),
        ('[team.members]\n"rita" = ["r@x.io"]\n', "'rita' is no handle"),
        ('[team.members]\n"@ri ta" = ["r@x.io"]\n', "is no handle"),
        ('[team.members]\n"@unknown" = ["r@x.io"]\n', "@unknown names a merger the roster does not list"),
        ('[team.members]\n"@rita" = "r@x.io"\n', "must be a list of at most 16 strings"),
        ('[team.members]\n"@rita" = [1]\n', "must be a list of at most 16 strings"),
        ('[team.members]\n"@rita" = ["--upload-pack=x"]\n', "is no e-mail address or login"),
        ('[team.members]\n"@rita" = ["a b@x.io"]\n', "is no e-mail address or login"),
        ('[team.members]\n"@rita" = ["<r@x.io>"]\n', "is no e-mail address or login"),
        ('[team.members]\n"@rita" = ["r@x.io"]\n"@omar" = ["R@X.io"]\n', "lists 'R@X.io' for two members"),
        ('[team.members]\n"@rita" = ' + str(["x"] * 17).replace("'", '"') + "\n", "at most 16"),
    ],
)
def test_a_roster_of_the_wrong_shape_is_an_error_naming_the_file(tmp_path: Path, text: str, said: str) -> None:
    with pytest.raises(ConfigError) as raised:
        roster(tmp_path, text)
    assert str(tmp_path / "hz.toml") in raised.value.message and said in raised.value.message


def test_every_handle_the_roster_gives_is_one_hz_state_accepts(tmp_path: Path) -> None:
    found = roster(tmp_path, GOOD)
    accepted = TypeAdapter(Handle)
    for handle in (found.for_login("rita-gh"), found.for_login("a" * 39), found.for_email("x@y.z"), UNKNOWN):
        assert accepted.validate_python(handle) == handle
