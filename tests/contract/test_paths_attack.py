"""The path rule attacked with spellings and slot formats (`hz.repo_paths`).

- A `{slot:<strftime>}` placeholder is checked at validation with one sample slot; the verdict must be
  the one every other slot gets, or the act step would refuse after a paid think (finding 10).
- NTFS compares names through its upper-case table, where the dotless `ı` is `I`: `.gıt` is `.git`
  there, though a case fold (`.gıt`.casefold() is itself) never says so.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hz.repo_paths import SAMPLE_SLOT, Role, problem, target_problem

GIT = "names .git, which hz never reads or writes"
STEERING = "is a git control file (.gitmodules, .gitattributes) that changes what git runs; hz never drafts one"

DIRECTIVES = [f"%{c}" for c in "aAbBcdDeFgGhHIjklmMnpPrRsStTuUVwWxXyYzZ%"] + ["%-d", "%-m", "%-H"]
PIECES = [".", "..", "/", "git", ".git", ".gi", "t", "~1", " ", ":", "x", "hub", ".github", "modules"]


@given(
    fmt=st.lists(st.sampled_from(DIRECTIVES + PIECES), min_size=1, max_size=5).map("".join),
    prefix=st.sampled_from(["", "reports/", ".", ".gi"]),
    role=st.sampled_from(["target", "team-target"]),
    slot=st.datetimes(min_value=datetime(2000, 1, 1), max_value=datetime(2099, 12, 31), timezones=st.just(UTC)),
)
def test_a_slot_format_gives_every_slot_the_sample_slots_verdict(fmt: str, prefix: str, role: Role,
                                                                 slot: datetime) -> None:  # fmt: skip
    uri = f"file:{prefix}{{slot:{fmt}}}/x.md"
    sample, this = target_problem(uri, role, slot=SAMPLE_SLOT), target_problem(uri, role, slot=slot)
    assert (sample.reason if sample else None) == (this.reason if this else None), uri


@pytest.mark.parametrize(
    ("path", "reason"),
    [
        (".gıt/config", GIT),  # U+0131 dotless i: `I` in NTFS's upper-case table
        ("docs/gıt~1/config", GIT),
        (".gitmoduleſ", STEERING),  # U+017F long s: `S` upper-cased
    ],
)
def test_a_name_ntfs_upper_cases_to_git_is_git(path: str, reason: str) -> None:
    found = problem(path, "target")
    assert (found.reason if found else None) == reason


@pytest.mark.parametrize("path", ["．git/config", ".g\u0301it/x", "docs/.gitx", ".ɡit/config"])
def test_names_no_file_system_takes_for_git_are_kept(path: str) -> None:
    """A fullwidth full stop, a combining accent and a Latin script g are other names on every disk."""
    assert problem(path, "target") is None
