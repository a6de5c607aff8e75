"""Compile results kept in a file between processes (`hz.contract.compile_cache`, issue 22).

Each test opens the cache as a tick does (`kept_in` with `HZ_COMPILE_CACHE`), compiles through the
loader, and reads what the file holds and how often the block hit and missed. A hit must give exactly
what a compile gives; a file of another code, a damaged line or an entry that does not validate is
compiled again, never trusted and never a crash.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import orjson
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hz.contract import compile_cache
from hz.contract.compile_cache import ENV, FILE, kept_in
from hz.contract.load import _relabel, load_text
from tests.contract.samples import GOOD as VALID
from tests.contract.test_fingerprint import render, styles
from tests.contract.test_loader_fuzz import BODY, KEYS, VALUES

OTHER = VALID.replace("name: weekly-digest", "name: other-digest")
# contracts written in every style the fingerprint tests know, and frontmatters of any shape (most fail)
TEXTS = styles.map(render) | st.builds(
    lambda data, body: f"---\n{json.dumps(data)}\n---\n{body}",
    st.dictionaries(KEYS, VALUES, max_size=6),
    st.sampled_from([BODY, "", "### Goal\n\nx\n", "#### x\n- `a`: b\n"]),
)


def compiled_in(folder: Path, *texts: str, namespace: str = "team") -> compile_cache.Kept:
    with kept_in({ENV: str(folder)}) as kept:
        assert kept is not None
        for n, text in enumerate(texts):
            load_text(text, path=f"workflows/c{n}.prose.md", namespace=namespace)
    return kept


def lines(folder: Path) -> list[bytes]:
    return (folder / FILE).read_bytes().splitlines()


def test_a_second_process_hits_and_gets_what_a_compile_gives(tmp_path: Path) -> None:
    folder = tmp_path / "cache"
    first = compiled_in(folder, VALID, OTHER)
    assert (first.hits, first.misses) == (0, 2)
    assert len(lines(folder)) == 3  # the code's header, then one entry per text
    assert stat.S_IMODE(os.stat(folder / FILE).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(folder).st_mode) == 0o700
    written = os.stat(folder / FILE).st_mtime_ns
    with kept_in({ENV: str(folder)}) as kept:
        assert kept is not None
        found = load_text(VALID, path="elsewhere/x.prose.md")
        load_text(OTHER, path="workflows/c1.prose.md")
    assert (kept.hits, kept.misses) == (2, 0)
    fresh = load_text(VALID, path="elsewhere/x.prose.md")
    assert found == fresh and found.contract is not None and str(found.contract.path) == "elsewhere/x.prose.md"
    assert os.stat(folder / FILE).st_mtime_ns == written  # nothing new: the file is not written again


def test_the_namespace_and_the_defaults_are_part_of_the_key(tmp_path: Path) -> None:
    folder = tmp_path / "cache"
    compiled_in(folder, VALID, namespace="team")
    personal = compiled_in(folder, VALID, namespace="personal")
    assert (personal.hits, personal.misses) == (0, 1)
    with kept_in({ENV: str(folder)}) as kept:
        assert kept is not None
        result = load_text(VALID, path="a.prose.md", defaults={"hz": {"tz": "Europe/Berlin"}})
        assert result == load_text(VALID, path="a.prose.md", defaults={"hz": {"tz": "Europe/Berlin"}})
    assert (kept.hits, kept.misses) == (1, 1)  # the defaults' compile is new; the same again is found
    assert result != load_text(VALID, path="a.prose.md")


def test_a_file_of_another_code_is_read_as_empty_and_replaced(tmp_path: Path) -> None:
    folder = tmp_path / "cache"
    compiled_in(folder, VALID)
    header, *entries = lines(folder)
    other = orjson.dumps({**orjson.loads(header), "code": "0" * 64})
    (folder / FILE).write_bytes(b"\n".join([other, *entries]) + b"\n")
    again = compiled_in(folder, VALID)
    assert (again.hits, again.misses) == (0, 1)
    assert lines(folder)[0] == header


def test_damaged_lines_and_entries_that_do_not_validate_are_compiled_again(tmp_path: Path) -> None:
    folder = tmp_path / "cache"
    compiled_in(folder, VALID, OTHER)
    header, first, second = lines(folder)
    key = orjson.loads(second)[0]
    broken = orjson.dumps([key, {"not": "a compile"}])
    junk = [b"{", b"[1, 2, 3]", b'"text"', b"\xff\xfe", first[: len(first) // 2]]
    (folder / FILE).write_bytes(b"\n".join([header, *junk, broken, first]) + b"\n")
    again = compiled_in(folder, VALID, OTHER)
    assert (again.hits, again.misses) == (1, 1)
    assert sorted(lines(folder)) == sorted([header, first, second])  # rewritten whole, the junk gone


def test_the_file_keeps_what_the_run_used_not_everything_it_ever_saw(tmp_path: Path) -> None:
    folder = tmp_path / "cache"
    compiled_in(folder, VALID, OTHER)
    third = VALID.replace("name: weekly-digest", "name: third-digest")
    compiled_in(folder, VALID, third)
    kept = {orjson.loads(line)[0] for line in lines(folder)[1:]}
    assert kept == {compile_cache.key_of(text, "team", None) for text in (VALID, third)}


def test_nothing_is_kept_without_the_variable_and_a_folder_in_the_way_fails_nothing(tmp_path: Path) -> None:
    with kept_in({}) as kept:
        assert kept is None and not compile_cache.active()
        assert load_text(VALID).ok
    blocked = tmp_path / "file"
    blocked.write_text("a file where the folder would be")
    again = compiled_in(blocked / "cache", VALID)  # cannot be written: the compile still stands
    assert again.misses == 1 and blocked.read_text() == "a file where the folder would be"


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=TEXTS)
def test_any_text_through_the_file_gives_what_its_compile_gives(tmp_path: Path, text: str) -> None:
    folder = tmp_path / f"cache-{abs(hash(text))}"
    compiled_in(folder, text)
    with kept_in({ENV: str(folder)}) as kept:
        assert kept is not None
        found = load_text(text, path="workflows/c0.prose.md")
    assert kept.hits == 1
    assert found == _relabel(load_text(text, path="workflows/c0.prose.md"), Path("workflows/c0.prose.md"))


def test_a_lone_surrogate_in_a_given_text_is_an_error_with_its_place_not_a_crash() -> None:
    """Found while the plain form was built: a surrogate in a section's text reached the RFC 8785
    fingerprint and raised. No file decodes to one; a text handed over as a string can hold it."""
    text = VALID.replace("lists every", "lists \ud800 every")
    line = next(n for n, row in enumerate(text.splitlines(), 1) if "\ud800" in row)
    found = load_text(text, path="x.prose.md")
    assert found.contract is None and [(d.code, d.line, d.column) for d in found.diagnostics] == [
        ("HZC001", line, len("The digest for the past ISO week lists ") + 1)
    ]
