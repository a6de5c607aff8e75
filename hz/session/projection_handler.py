"""What an event handler of the index is, how a module files its handlers by kind, and what several share.

The handlers themselves are in `hz.session.projection_agents`, `projection_turns` and `projection_items`;
`hz.session.projection.apply` picks one by the event's kind.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import Any

import orjson

from hz.session.envelope import Envelope

Handler = Callable[[sqlite3.Connection, str, Envelope], None]


def registrar(handlers: dict[str, Handler]) -> Callable[[str], Callable[[Handler], Handler]]:
    """A decorator `on(kind)` that files the function it decorates in `handlers` under `kind`."""

    def on(kind: str) -> Callable[[Handler], Handler]:
        def register(handler: Handler) -> Handler:
            handlers[kind] = handler
            return handler

        return register

    return on


def as_json(value: Any) -> str:
    return orjson.dumps(value).decode()


def add_cost(db: sqlite3.Connection, agent: str, event: Envelope, cause: str, usd: float) -> None:
    if usd:
        db.execute(
            "INSERT INTO costs VALUES (?, ?, ?, ?)"
            " ON CONFLICT (agent, day, cause) DO UPDATE SET usd = usd + excluded.usd",
            (agent, event.ts[:10], cause, usd),
        )
