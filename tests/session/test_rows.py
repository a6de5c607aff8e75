"""Rows inserted in bulk: many rows per statement and the rest one by one, in order, none lost or doubled."""

from __future__ import annotations

import sqlite3
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from hz.session.rows import Flat, flatten_into, write_flat, write_rows

_VALUE = st.one_of(st.none(), st.integers(-(2**63), 2**63 - 1), st.floats(allow_nan=False))
_ROW = st.tuples(st.text(max_size=3), _VALUE)


def _table() -> sqlite3.Connection:
    db = sqlite3.connect(":memory:")
    db.execute("CREATE TABLE pairs (a TEXT, b)")
    return db


@settings(max_examples=40, deadline=None)
@given(st.lists(st.lists(_ROW, max_size=700), max_size=3))
def test_rows_of_several_agents_arrive_whole_and_in_order(agents: list[list[tuple[Any, ...]]]) -> None:
    flat: Flat = {}
    for rows in agents:  # a table's rows of several agents, flattened into one list
        flatten_into(flat, {"pairs": rows, "nothing": []})
    db = _table()
    try:
        write_flat(db, flat)  # 500 rows of two values fill one statement: more than 700 rows need two
        assert db.execute("SELECT a, b FROM pairs ORDER BY rowid").fetchall() == [r for rows in agents for r in rows]
    finally:
        db.close()


def test_two_full_statements_and_the_rest_row_by_row() -> None:
    rows = [(f"r{n}", n) for n in range(1234)]  # 500 rows per statement, twice, then 234 rows
    db = _table()
    try:
        write_rows(db, {"pairs": rows, "nothing": []})
        assert db.execute("SELECT a, b FROM pairs ORDER BY rowid").fetchall() == rows
    finally:
        db.close()
