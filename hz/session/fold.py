"""Replaying one spine from nothing in memory, then writing its rows at once: the fast rebuild.

`hz.session.projection` applies events one SQL statement at a time, which is right for the few lines
a writer appends but slow for a full reindex (hundreds of thousands of statements). A `Fold` computes
the very same rows in plain Python, which `hz.session.rows` then inserts many to a statement. The two must
agree exactly: the property test compares an index kept line by line with one rebuilt by folding.
Each method below mirrors the SQL handler of the same kind.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import orjson

from hz.session.envelope import Envelope
from hz.session.page_rows import KINDS as PAGE_KINDS
from hz.session.page_rows import PageFold
from hz.session.projection import KEY_KINDS, keys_of

Row = dict[str, Any]

AGENT_COLUMNS = ("id", "name", "namespace", "handle", "origin", "source", "created_at", "approved", "paused",
                 "retired", "state", "contract_name", "contract_version", "contract_fingerprint", "assets", "inputs",
                 "next_due", "due_at", "last_turn", "last_turn_at", "pending_draft", "pending_amendment",
                 "pending_question", "last_summary_seq", "repo_root", "repo_remote", "repo_path")  # fmt: skip
TURN_COLUMNS = ("seq", "cause", "causes", "contract_version", "parent_turn", "started_at", "status", "step",
                "disposition", "reason", "usd", "finished_at", "report")  # fmt: skip


def _json(value: Any) -> str:
    return orjson.dumps(value).decode()


class Fold:
    def __init__(self, agent: str) -> None:
        self.agent = agent
        self.row: Row | None = None
        self.assets: set[str] = set()
        self.watched: dict[str, list[Any]] = {}  # input -> [sources json, fingerprint]
        self.versions: dict[int, tuple[Any, ...]] = {}
        self.turns: dict[str, Row] = {}
        self.waits: dict[str, tuple[Any, ...]] = {}
        self.keys: dict[str, list[Any]] = {}  # key -> [kind, seq, turn]
        self.started_keys: dict[str | None, list[str]] = {}  # turn -> keys its turn.started named
        self.effects: dict[str, list[Any]] = {}  # key -> [effect, status, turn, hash]
        self.drafts: dict[str, list[Any]] = {}  # key -> [turn, asset, hash, version, place, at, status, approver]
        self.lessons: dict[str, list[Any]] = {}
        self.amendments: dict[str, list[Any]] = {}
        self.questions: dict[str, list[Any]] = {}
        self.costs: dict[tuple[str, str], float] = {}
        self.page = PageFold(agent)  # the agent page's rows (skips, summary, chat fates, …)

    def apply_all(self, events: Iterable[Envelope]) -> None:
        folds, keys, started, one_key, page = _FOLDS, self.keys, self.started_keys, _ONE_KEY, self.page
        for event in events:  # the hot loop of every reindex, with the common cases first
            kind = event.kind
            handler = folds.get(kind)
            if handler is not None:
                handler(self, event)
            if kind in PAGE_KINDS:
                page.apply(event)
            if kind in _TURN_KEYS:  # the envelope's key and those the payload names, each once
                for key in keys_of(event):
                    keys[key] = [kind, event.seq, event.turn]
                    if kind == "turn.started":
                        started.setdefault(event.turn, []).append(key)
                continue
            if event.key is not None:  # set twice when it is also the payload's key: the same value
                keys[event.key] = [kind, event.seq, event.turn]
            if kind in one_key:
                keys[event.data["key"]] = [kind, event.seq, event.turn]

    # --- shared pieces -------------------------------------------------------------------------

    def _set(self, **values: Any) -> None:
        if self.row is not None:
            self.row.update(values)

    def _contract(self, d: Row, version: int) -> None:
        assets, inputs = d.get("assets", []), d.get("inputs", {})
        self._set(contract_version=version, contract_fingerprint=d["contract_fingerprint"], assets=_json(assets),
                  inputs=_json(inputs))  # fmt: skip
        self.assets = set(assets)
        for name in [n for n in self.watched if n not in inputs]:
            del self.watched[name]
        for name, sources in inputs.items():
            self.watched.setdefault(name, ["[]", None])[0] = _json(sources)

    def _fingerprints(self, inputs: dict[str, str]) -> None:
        for name, fp in inputs.items():
            self.watched.setdefault(name, ["[]", None])[1] = fp

    def _cost(self, e: Envelope, cause: str, usd: float) -> None:
        if usd:
            slot = (e.ts[:10], cause)
            self.costs[slot] = self.costs.get(slot, 0.0) + usd

    # --- settle and write ----------------------------------------------------------------------

    def settle(self) -> None:
        row = self.row
        if row is None:
            return
        pending = [(d[5], key) for key, d in self.drafts.items() if d[6] == "pending"]
        row["pending_draft"] = max(pending)[1] if pending else None
        asked = [(q[2], key) for key, q in self.questions.items() if not q[3]]
        row["pending_question"] = min(asked)[1] if asked else None
        waiting = [(a[0], aid) for aid, a in self.amendments.items() if a[7] == "pending"]
        row["pending_amendment"] = min(waiting)[1] if waiting else None
        statuses = {t["status"] for t in self.turns.values()}
        pending_item = row["pending_draft"] or row["pending_question"] or row["pending_amendment"]
        if row["retired"]:
            state = "retired"
        elif not row["approved"]:
            state = "proposed"
        elif row["paused"]:
            state = "paused"
        elif "running" in statuses:
            state = "awake"
        elif "waiting" in statuses or pending_item is not None:
            state = "waiting"
        else:
            state = "asleep"
        row["state"] = state
        row["due_at"] = None if state in ("proposed", "paused", "retired") else row["next_due"]

    def rows(self) -> dict[str, list[tuple[Any, ...]]]:
        """Every row of this agent, by table (see `hz.session.rows`)."""
        a = self.agent
        return {
            "agents": [] if self.row is None else [tuple(self.row[c] for c in AGENT_COLUMNS)],
            "assets": [(a, x) for x in self.assets],
            "watched": [(a, name, w[0], w[1]) for name, w in self.watched.items()],
            "versions": [(a, v, *rest) for v, rest in self.versions.items()],
            "turns": [(a, t, *r.values()) for t, r in self.turns.items()],  # `_turn` keeps TURN_COLUMNS order
            "waits": [(a, *w) for w in self.waits.values()],
            "keys": [(a, k, *v) for k, v in self.keys.items()],
            "effects": [(a, k, *v) for k, v in self.effects.items()],
            "drafts": [(a, k, *v) for k, v in self.drafts.items()],
            "lessons": [(a, k, *v) for k, v in self.lessons.items()],
            "amendments": [(a, k, *v) for k, v in self.amendments.items()],
            "questions": [(a, k, *v) for k, v in self.questions.items()],
            "costs": [(a, day, cause, usd) for (day, cause), usd in self.costs.items()],
            **self.page.rows(),
        }


_TURN_KEYS = frozenset({"turn.started", "turn.skipped"})  # kinds whose payload may name several keys
_ONE_KEY = KEY_KINDS - _TURN_KEYS  # kinds whose payload names one `key`

Folder = Callable[[Fold, Envelope], None]
_FOLDS: dict[str, Folder] = {}


def _on(*kinds: str) -> Callable[[Folder], Folder]:
    def register(folder: Folder) -> Folder:
        for kind in kinds:
            _FOLDS[kind] = folder
        return folder

    return register


@_on("heinzel.created")
def _created(f: Fold, e: Envelope) -> None:
    d = e.data
    f.row = dict.fromkeys(AGENT_COLUMNS)
    f.row.update(id=f.agent, name=d["name"], namespace=d["namespace"], handle=d.get("handle"),
                 origin=d.get("origin"), source=d.get("source"), created_at=e.ts, approved=0, paused=0, retired=0,
                 state="proposed", assets="[]", inputs="{}")  # fmt: skip
    _bound(f, e.data.get("repository") or {})


@_on("heinzel.bound")
def _rebound(f: Fold, e: Envelope) -> None:
    _bound(f, e.data)


def _bound(f: Fold, where: dict[str, str]) -> None:
    """The repository the agent belongs to (`hz.heinzel.repository`); each binding states all of it."""
    f._set(repo_root=where.get("root"), repo_remote=where.get("remote"), repo_path=where.get("path"))


@_on("heinzel.renamed")
def _renamed(f: Fold, e: Envelope) -> None:
    f._set(name=e.data["name"])


@_on("heinzel.paused", "heinzel.unpaused", "heinzel.retired", "heinzel.unretired")
def _flag(f: Fold, e: Envelope) -> None:
    column = "paused" if "paused" in e.kind else "retired"
    f._set(**{column: 0 if ".un" in e.kind else 1})
    if "next_due" in e.data:
        f._set(next_due=e.data["next_due"])


@_on("contract.proposed")
def _proposed(f: Fold, e: Envelope) -> None:
    d = e.data
    f._set(contract_name=d["name"])
    f._contract(d, 1)
    f.versions[1] = (d["contract_fingerprint"], d["source_fingerprint"], None, 0, e.ts)


@_on("contract.approved")
def _approved(f: Fold, e: Envelope) -> None:
    f._set(approved=1, next_due=e.data.get("next_due"))
    version = e.data["version"]
    if version in f.versions:
        f.versions[version] = (*f.versions[version][:3], 1, f.versions[version][4])


@_on("contract.amended")
def _amended(f: Fold, e: Envelope) -> None:
    d = e.data
    f._contract(d, d["version"])
    f._set(approved=1, next_due=d.get("next_due"))
    f.versions[d["version"]] = (d["contract_fingerprint"], d["source_fingerprint"], d["amendment_id"], 1, e.ts)
    if d["amendment_id"] in f.amendments:
        f.amendments[d["amendment_id"]][7:9] = ["approved", d["version"]]


@_on("contract.refreshed")
def _refreshed(f: Fold, e: Envelope) -> None:
    d = e.data
    f._set(next_due=d.get("next_due"))
    if d["version"] in f.versions:
        f.versions[d["version"]] = (f.versions[d["version"]][0], d["source_fingerprint"], *f.versions[d["version"]][2:])


@_on("amendment.proposed")
def _amendment(f: Fold, e: Envelope) -> None:
    d = e.data
    f.amendments[d["amendment_id"]] = [e.seq, d["by"], d["base_version"], d["contract_fingerprint"],
                                       d["source_fingerprint"], d.get("sentence"), _json(d.get("widens", [])),
                                       "pending", None, e.ts]  # fmt: skip


@_on("amendment.refused", "amendment.declined")
def _amendment_status(f: Fold, e: Envelope) -> None:
    if e.data["amendment_id"] in f.amendments:
        f.amendments[e.data["amendment_id"]][7] = "refused" if e.kind == "amendment.refused" else "declined"


def _turn(seq: int, cause: Any, causes: str, version: Any, parent: Any, at: str, status: str) -> Row:
    """A turns row as a dict keyed like TURN_COLUMNS (a literal: this runs for every turn of a reindex)."""
    return {"seq": seq, "cause": cause, "causes": causes, "contract_version": version, "parent_turn": parent,
            "started_at": at, "status": status, "step": None, "disposition": None, "reason": None, "usd": 0.0,
            "finished_at": None, "report": None}  # fmt: skip


@_on("turn.started")
def _started(f: Fold, e: Envelope) -> None:
    if e.turn is None:
        return
    d = e.data
    f.turns[e.turn] = _turn(e.seq, d["cause"], _json(d.get("causes", [])), d.get("contract_version"),
                            d.get("parent_turn"), e.ts, "running")  # fmt: skip
    if f.row is not None:
        f.row["last_turn"], f.row["last_turn_at"] = e.turn, e.ts
    if d.get("parent_turn"):
        for draft in f.drafts.values():
            if draft[0] == d["parent_turn"] and draft[6] == "pending":
                draft[6] = "superseded"


@_on("turn.step")
def _step(f: Fold, e: Envelope) -> None:
    if e.turn in f.turns:
        f.turns[e.turn]["step"] = e.data["step"]
    if e.data.get("inputs"):
        f._fingerprints(e.data["inputs"])


@_on("spine.compacted")
def _compacted(f: Fold, e: Envelope) -> None:
    if e.data.get("inputs"):  # what the folded turns last saw of each input
        f._fingerprints(e.data["inputs"])


@_on("turn.waiting")
def _waiting(f: Fold, e: Envelope) -> None:
    if e.turn is None:
        return
    d, on = e.data, e.data.get("on") or {}
    if e.turn in f.turns:
        f.turns[e.turn].update(status="waiting", step=d["step"])
    f.waits[e.turn] = (e.turn, d["step"], d.get("until"), on.get("kind"), on.get("input"), on.get("fingerprint_not"),
                       on.get("key"), e.ts)  # fmt: skip


@_on("turn.resumed")
def _resumed(f: Fold, e: Envelope) -> None:
    if e.turn in f.turns:
        f.turns[e.turn]["status"] = "running"
    f.waits.pop(e.turn or "", None)


@_on("turn.finished", "turn.skipped")
def _ended(f: Fold, e: Envelope) -> None:
    d = e.data
    if e.kind == "turn.finished":
        status, disposition, cause = "finished", d["disposition"], d["cause"]
    else:
        status, disposition, cause = "skipped", "skipped", (d.get("causes") or ["schedule"])[0]
    if e.turn is not None:
        turn = f.turns.get(e.turn)
        if turn is None:
            turn = f.turns[e.turn] = _turn(e.seq, cause, _json(d.get("causes", [])), None, None, e.ts, status)
        turn["status"], turn["disposition"], turn["reason"] = status, disposition, d.get("reason")
        turn["usd"], turn["finished_at"], turn["report"] = d.get("usd", 0.0), e.ts, d.get("report")
        f.waits.pop(e.turn, None)
        for key in f.started_keys.pop(e.turn, ()):  # only those can still read turn.started for this turn
            value = f.keys[key]
            if value[2] == e.turn and value[0] == "turn.started":
                value[0], value[1] = e.kind, e.seq
        if f.row is not None:
            f.row["last_turn"], f.row["last_turn_at"] = e.turn, e.ts
    if "next_due" in d and f.row is not None:
        f.row["next_due"] = d["next_due"]
    if d.get("inputs"):
        f._fingerprints(d["inputs"])
    f._cost(e, cause, d.get("usd", 0.0))


@_on("effect.started", "effect.done", "effect.failed")
def _effect(f: Fold, e: Envelope) -> None:
    d = e.data
    status = e.kind[7:]  # after "effect."
    old = f.effects.get(d["key"])
    if old is None:
        f.effects[d["key"]] = [d.get("effect"), status, e.turn, d.get("hash")]
    else:
        f.effects[d["key"]] = [d.get("effect") or old[0], status, e.turn, d.get("hash") or old[3]]


@_on("draft.placed")
def _draft(f: Fold, e: Envelope) -> None:
    d = e.data
    for draft in f.drafts.values():
        if draft[1] == d["asset"] and draft[6] == "pending":
            draft[6] = "superseded"
    f.drafts[d["key"]] = [e.turn, d["asset"], d["hash"], d["contract_version"], d.get("place"), e.ts, "pending", None]


@_on("approval.observed")
def _approval(f: Fold, e: Envelope) -> None:
    draft = f.drafts.get(e.data["key"])
    if draft is not None:
        draft[6:8] = [e.data["decision"], e.data.get("approver")]


@_on("lesson.recorded")
def _lesson(f: Fold, e: Envelope) -> None:
    d = e.data
    f.lessons[d["lesson_id"]] = [e.seq, e.turn, d["sentence"], _json(d.get("hunks", [])), e.ts, 0]


@_on("lesson.dismissed")
def _dismissed(f: Fold, e: Envelope) -> None:
    if e.data["lesson_id"] in f.lessons:
        f.lessons[e.data["lesson_id"]][5] = 1


@_on("question.asked")
def _asked(f: Fold, e: Envelope) -> None:
    f.questions.setdefault(e.data["key"], [e.turn, e.data["question"], e.ts, 0])


@_on("question.answered")
def _answered(f: Fold, e: Envelope) -> None:
    if e.data["key"] in f.questions:
        f.questions[e.data["key"]][3] = 1


@_on("usage")
def _usage(f: Fold, e: Envelope) -> None:
    f._cost(e, e.data["kind"], e.data.get("usd", 0.0))


@_on("summary.written")
def _summary(f: Fold, e: Envelope) -> None:
    f._set(last_summary_seq=e.seq)
