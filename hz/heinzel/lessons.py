"""Lessons: "what I learned from you". Recorded by approval turns, shown to the user, dismissable.

A lesson is a sentence on the spine plus the hashes of the diff hunks it came from; the hunks
themselves are in the turn body, so they can be shown while the body is kept and are a visible gap
after it expired. A dismissed lesson stays recorded and marked, and the context builder never shows it
to a model again. Lessons are never part of the contract.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import orjson

from hz.canonical import fingerprint_bytes
from hz.errors import HzError
from hz.session.bodies import read_body
from hz.session.index import Row
from hz.session.store import Store


@dataclass(frozen=True)
class Lesson:
    lesson_id: str
    sentence: str
    dismissed: bool
    recorded_at: str
    turn: str | None
    hunks: tuple[str | None, ...]  # the hunk's text, or None when its body expired

    def as_dict(self) -> dict[str, Any]:
        return {
            "lesson_id": self.lesson_id,
            "sentence": self.sentence,
            "dismissed": self.dismissed,
            "recorded_at": self.recorded_at,
            "turn": self.turn,
            "hunks": list(self.hunks),
        }


def lessons(store: Store, row: Row) -> list[Lesson]:
    directory = store.agent_dir(row["id"])
    found = []
    for item in store.index.lessons(row["id"]):
        hashes = orjson.loads(item["hunks"])
        texts = _hunk_texts(directory, item["turn"], set(hashes)) if hashes else {}
        found.append(
            Lesson(
                item["lesson_id"], item["sentence"], bool(item["dismissed"]), item["recorded_at"], item["turn"],
                tuple(texts.get(h) for h in hashes),
            )
        )  # fmt: skip
    return found


def _hunk_texts(directory: Path, turn: str | None, wanted: set[str]) -> dict[str, str]:
    if turn is None:
        return {}
    try:
        body = read_body(directory, turn)
    except ValueError:
        return {}
    found: dict[str, str] = {}
    stack: list[Any] = list(body.records)
    while stack:
        value = stack.pop()
        if isinstance(value, str):
            digest = fingerprint_bytes(value.encode())
            if digest in wanted:
                found[digest] = value
        elif isinstance(value, dict):
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)
    return found


def dismiss(store: Store, row: Row, lesson_id: str, *, now: datetime) -> bool:
    """Mark a lesson dismissed; False when it already was (dismissing twice changes nothing)."""
    known = {item["lesson_id"]: item for item in store.index.lessons(row["id"])}
    if lesson_id not in known:
        numbered = {str(n): item for n, item in enumerate(known.values(), start=1)}
        if lesson_id not in numbered:
            raise HzError(f"{row['name']} has no lesson {lesson_id}", hint=f"hz heinzel lessons {row['name']}")
        lesson_id = numbered[lesson_id]["lesson_id"]
    if known[lesson_id]["dismissed"]:
        return False
    with store.writer(row["id"], now=now) as writer:
        writer.append("lesson.dismissed", {"lesson_id": lesson_id}, now=now)
    return True
