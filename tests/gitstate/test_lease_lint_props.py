"""Properties of the lease lint: what it accepts is hz's own bytes, and holds no text."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime, timedelta
from typing import Any

import pygit2
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hz.gitstate import objects
from hz.gitstate.lease_lint import checked
from hz.gitstate.lease_record import LeaseRecord
from hz.gitstate.types import format_utc
from tests.gitstate.lease_plumbing import REF, record

NOW = datetime(2026, 10, 30, 15, tzinfo=UTC)
BASE = record(NOW)
SHAPE = re.compile(r"^[A-Za-z0-9@:/._+-]+$")  # ids, handles, machines, times, enums: no spaces, no sentences


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> pygit2.Repository:
    return pygit2.init_repository(str(tmp_path_factory.mktemp("lint-props")), bare=True)


values = st.one_of(
    st.text(max_size=40),
    st.integers(min_value=-(2**60), max_value=2**60),
    st.sampled_from(["@priya/m-0000000a", "@priya", "actions:1", "held", "released", "delegate", format_utc(NOW)]),
    st.none(),
    st.booleans(),
)


@st.composite
def documents(draw: st.DrawFn) -> tuple[dict[str, Any], bytes]:
    """A record with some fields replaced, removed or added, written canonically or some other way."""
    fields = dict(BASE)
    for key in draw(st.lists(st.sampled_from([*BASE, "note", "email"]), max_size=3)):
        if draw(st.booleans()) and key in fields:
            del fields[key]
        else:
            fields[key] = draw(values)
    if draw(st.booleans()):
        return fields, LeaseRecord.model_validate(BASE).line() if fields == BASE else _json(fields, ",", ":")
    separators = draw(st.sampled_from([(",", ":"), (", ", ": "), (",", ": ")]))
    return fields, _json(fields, *separators) + draw(st.sampled_from([b"", b"\n", b"\n\n", b" \n"]))


def _json(fields: dict[str, Any], item: str, key: str) -> bytes:
    return json.dumps(fields, separators=(item, key), sort_keys=True, ensure_ascii=False).encode() + b"\n"


def commit_of(repo: pygit2.Repository, fields: dict[str, Any], data: bytes) -> str:
    tree = objects.write_tree(repo, None, {"lease.json": data})
    message = f"lease {fields.get('lease')} token {fields.get('token')} {fields.get('state')}\n"
    return objects.make_commit(repo, tree, [], message, NOW)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(document=documents())
def test_what_the_lint_accepts_is_canonical_and_textless(repo: pygit2.Repository, document: Any) -> None:
    fields, data = document
    found = checked(repo, REF, commit_of(repo, fields, data))
    if isinstance(found, str):
        return
    assert found.line() == data
    for value in found.model_dump(mode="json").values():
        assert isinstance(value, int) or SHAPE.match(value), value
    assert not found.holder.count("@") > 1


@given(minutes=st.integers(min_value=0, max_value=3 * 24 * 60))
@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_a_hold_of_at_most_a_day_is_accepted(repo: pygit2.Repository, minutes: int) -> None:
    fields = record(NOW, expires=format_utc(NOW + timedelta(minutes=minutes)))
    data = LeaseRecord.model_validate(fields).line()
    found = checked(repo, REF, commit_of(repo, fields, data))
    assert isinstance(found, LeaseRecord) == (minutes <= 24 * 60)


def test_the_record_hz_writes_is_accepted(repo: pygit2.Repository) -> None:
    data = LeaseRecord.model_validate(BASE).line()
    assert checked(repo, REF, commit_of(repo, BASE, data)) == LeaseRecord.model_validate(BASE)
