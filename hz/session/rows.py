"""Rows of many agents gathered for a rebuild and inserted many to a statement.

A table's rows travel as one flat list of values (`Flat`: table -> (values per row, the values of every
row one after another)): from a worker process that is one list to `marshal` instead of a tuple per row,
and SQLite binds it in slices of several hundred rows per `INSERT`, each statement step costing about as
much as binding one row.
"""

from __future__ import annotations

import sqlite3
from functools import cache
from itertools import chain
from typing import Any

Rows = dict[str, list[tuple[Any, ...]]]  # table -> rows, as `hz.session.fold.Fold.rows` gives them
Flat = dict[str, tuple[int, list[Any]]]

_VALUES_PER_STATEMENT = 1000  # SQLite allows 32,766; beyond a few hundred rows nothing more is saved


def flatten_into(flat: Flat, rows: Rows) -> None:
    """Append one agent's rows to `flat`."""
    for table, values in rows.items():
        if values:
            slot = flat.get(table)
            if slot is None:
                slot = flat[table] = (len(values[0]), [])
            slot[1].extend(chain.from_iterable(values))


def write_rows(db: sqlite3.Connection, rows: Rows) -> None:
    flat: Flat = {}
    flatten_into(flat, rows)
    write_flat(db, flat)


def write_flat(db: sqlite3.Connection, flat: Flat) -> None:
    for table, (width, values) in flat.items():
        per = max(1, _VALUES_PER_STATEMENT // width) * width
        whole = len(values) - len(values) % per
        statement = _insert_sql(table, width, per // width)
        for at in range(0, whole, per):
            db.execute(statement, values[at : at + per])
        if whole < len(values):  # one prepared row for the rest: a statement per remainder would crowd
            rest = [values[at : at + width] for at in range(whole, len(values), width)]  # sqlite3's cache
            db.executemany(_insert_sql(table, width, 1), rest)


@cache
def _insert_sql(table: str, width: int, rows: int) -> str:
    row = f"({','.join('?' * width)})"
    return f"INSERT INTO {table} VALUES {','.join([row] * rows)}"
