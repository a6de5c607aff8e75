"""The index's questions for one agent's page (`hz heinzel show`): bounded reads of `hz.session.page_rows`.

The timeline is the agent's turns and the skips no turn was started for, in time order (ties by their
place in the spine); a page asks for the latest few, and for older ones by the `seq` of the oldest it
shows, so a page of 200 turns reads 200 rows whatever the spine's length.
"""

from __future__ import annotations

from typing import Any

from hz.session.queries import Queries, Row

_TIMELINE = """
SELECT * FROM (
    SELECT t.seq, t.turn, t.started_at, t.cause, t.status, t.step, t.disposition, t.reason, t.usd, t.report,
           m.cap, m.flags
    FROM turns t LEFT JOIN turn_marks m ON m.agent = t.agent AND m.turn = t.turn WHERE t.agent = :a
    UNION ALL
    SELECT seq, NULL, at, cause, 'skipped', NULL, 'skipped', reason, usd, NULL, cap, NULL FROM skips WHERE agent = :a
) {where} ORDER BY started_at DESC, seq DESC {limit}
"""
_AT = """
SELECT coalesce((SELECT started_at FROM turns WHERE agent = :a AND seq = :before),
                (SELECT at FROM skips WHERE agent = :a AND seq = :before))
"""


class PageQueries(Queries):
    def timeline(self, agent: str, *, latest: int | None = None, before: int | None = None) -> list[Row]:
        """Turns and skips, oldest first: the `latest` ones (all with None), older than entry `before`."""
        params: dict[str, Any] = {"a": agent, "before": before, "n": latest}
        where = ""
        if before is not None:
            at = self.db.execute(_AT, params).fetchone()[0]
            params["at"] = at
            where = "WHERE (coalesce(started_at, ''), seq) < (coalesce(:at, ''), :before)"
        limit = "" if latest is None else "LIMIT :n"
        rows = self._rows(_TIMELINE.format(where=where, limit=limit), params)
        import orjson  # here, not at the top: the index is imported by the idle tick, and orjson imports json

        for row in rows:
            row["cap"] = orjson.loads(row["cap"]) if row["cap"] else None
            row["flags"] = orjson.loads(row["flags"]) if row["flags"] else []
        rows.reverse()
        return rows

    def timeline_size(self, agent: str) -> int:
        found = self.db.execute(
            "SELECT (SELECT count(*) FROM turns WHERE agent = :a) + (SELECT count(*) FROM skips WHERE agent = :a)",
            {"a": agent},
        ).fetchone()
        return int(found[0])

    def summary(self, agent: str) -> Row | None:
        """The latest `summary.written`: its seq, when, and its fields."""
        found = self.db.execute("SELECT seq, at, fields FROM summaries WHERE agent = ?", (agent,)).fetchone()
        import orjson

        return None if found is None else {"seq": found[0], "at": found[1], **orjson.loads(found[2])}

    def context_edits(self, agent: str) -> list[Row]:
        return self._rows("SELECT target, replacement, at FROM edits WHERE agent = ? ORDER BY seq", (agent,))

    def answer_waits(self, agent: str) -> dict[str, str]:
        """Until when a turn waited (or waits) for each question's answer, by the question's key."""
        found = self.db.execute("SELECT key, until FROM answer_waits WHERE agent = ?", (agent,))
        return {str(key): str(until) for key, until in found}

    def fates(self, agent: str, requests: list[str]) -> dict[str, tuple[str, str | None]]:
        """What became of each of these chat requests that the spine mentions: (fate, turn)."""
        found = self._among("SELECT request_id, fate, turn FROM fates WHERE agent = ? AND request_id", agent, requests)
        return {r: (f, t) for r, f, t in found}

    def replies(self, agent: str, turns: list[str]) -> dict[str, tuple[str | None, str | None]]:
        """Each of these turns' report and disposition (None, None while it runs)."""
        found = self._among("SELECT turn, report, disposition FROM turns WHERE agent = ? AND turn", agent, turns)
        return {t: (r, d) for t, r, d in found}

    def _among(self, sql: str, agent: str, values: list[str]) -> list[tuple[Any, ...]]:
        """`sql` ends with the column that must be one of `values`, asked in chunks (SQLite's limit on bound
        values, with room to spare)."""
        found: list[tuple[Any, ...]] = []
        for at in range(0, len(values), 500):
            chunk = values[at : at + 500]
            found.extend(tuple(r) for r in self.db.execute(f"{sql} IN ({','.join('?' * len(chunk))})", (agent, *chunk)))
        return found
