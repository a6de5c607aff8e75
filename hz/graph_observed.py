"""Observed edges: what the receipts on `hz/state` say each contract read and wrote, beside what it declares.

A `turn.finished` receipt names every input its turn gathered (`input_fps`: input name -> fingerprint),
never what the input held. The reading contract's own declaration says what that input name is (another
contract's facet or a source), so a receipt plus the reader's declaration is an observed read. An input
name the reader no longer declares (renamed since, or a receipt of an older version) cannot be resolved
and stays an observed read from `?<name>`, marked undeclared. Writes are `draft.placed` assets and
`publish.done` targets. Void events (stale tokens) count for nothing.

Runs (who, role, disposition, cost) come from `turn.finished`/`turn.skipped` and the lease chain's record
of who held the token. A draft is pending while no `approval.observed` or `draft.rejected` settled it and
no newer draft of the same output replaced it: each output has one draft branch, and the newer draft
takes it over (hz.tick.team_drafts.tie).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field

from hz.graph import Edge, Graph

RUNS_KEPT = 5  # the newest runs kept per contract: enough to see a pattern, short enough to read
UNDECLARED = "?"  # prefix of an input the reader does not declare (any more)
NEVER_STYLE = "stroke:#8c959f,stroke-dasharray:6 4"  # a declared link no receipt shows
UNDECLARED_STYLE = "stroke:#cf222e"  # a read the reader's contract does not declare
WRITES = {"draft.placed": ("draft", "asset"), "publish.done": ("publish", "target")}  # kind -> (how, field)

Holder = Callable[[str, int], "tuple[str, str] | None"]  # (lease, token) -> (holder, role), None: unknown


@dataclass(frozen=True)
class Declared:
    """What one contract declares, by the agent id its receipts carry (`hz-<contract id>`)."""

    name: str  # qualified name
    inputs: Mapping[str, tuple[str, ...]]  # input name -> upstream qualified names or source URIs
    outputs: Mapping[str, str] = field(default_factory=dict)  # output name -> target, `{slot…}` unfilled


@dataclass(frozen=True)
class Receipt:
    """One landed event as the fold needs it (the fields of hz.gitstate.reader.Landed it reads)."""

    kind: str
    agent: str
    key: str
    ts: str
    lease: str
    token: int
    data: Mapping[str, object]
    void: bool = False


@dataclass(frozen=True, order=True)
class Read:
    source: str  # upstream qualified name, a source URI, or `?<input>` when the reader does not declare it
    target: str  # the reader: qualified name, or the agent id when no contract here has that id
    input: str
    turns: int
    last: str
    declared: bool


@dataclass(frozen=True, order=True)
class Wrote:
    contract: str
    asset: str
    how: str  # "draft" | "publish"
    last: str


@dataclass(frozen=True)
class Run:
    ts: str
    outcome: str  # "finished" | "skipped"
    disposition: str
    reason: str | None
    cost_usd: float
    holder: str | None  # `@handle/m-…` or `actions:<run id>`; None when this clone lacks the lease chain
    role: str | None


@dataclass(frozen=True, order=True)
class Pending:
    contract: str
    asset: str
    key: str
    placed: str


@dataclass(frozen=True)
class Observed:
    ref: str | None  # the hz/state ref read; None: there is none here
    events: int
    reads: tuple[Read, ...] = ()
    writes: tuple[Wrote, ...] = ()
    never_observed: tuple[Edge, ...] = ()  # declared contract edges no receipt shows
    runs: Mapping[str, tuple[Run, ...]] = field(default_factory=dict)  # contract -> newest first
    pending: tuple[Pending, ...] = ()


def observe(
    receipts: Iterable[Receipt], declared: Mapping[str, Declared], graph: Graph, holder: Holder, ref: str | None
) -> Observed:
    """Fold the receipts into reads, writes, runs and pending drafts, and compare with the declared graph."""
    landed = [r for r in receipts if not r.void]
    name = {agent: d.name for agent, d in declared.items()}.get
    reads = _reads(landed, declared)
    seen = {(read.source, read.target) for read in reads}
    # with no receipts at all nothing was watched yet: every edge "never observed" would say nothing
    never = tuple(e for e in graph.edges if (e.source, e.target) not in seen and e.source != e.target and landed)
    runs: dict[str, list[Run]] = {}
    roles = {str(r.data.get("turn")): str(r.data.get("role")) for r in landed if r.kind == "turn.started"}
    for r in landed:
        if r.kind in ("turn.finished", "turn.skipped"):
            runs.setdefault(name(r.agent) or r.agent, []).append(_run(r, holder, roles))
    newest = {c: tuple(sorted(items, key=lambda run: run.ts, reverse=True)[:RUNS_KEPT]) for c, items in runs.items()}
    pending = _pending(landed, declared)
    return Observed(ref, len(landed), reads, _writes(landed, name), never, newest, pending)


def _reads(landed: list[Receipt], declared: Mapping[str, Declared]) -> tuple[Read, ...]:
    """Each (source, reader, input) with how many turns read it; declared when the reader's contract names
    that input today, so the source is what its declaration resolves to."""
    found: dict[tuple[str, str, str], tuple[int, str, bool]] = {}
    for r in landed:
        fps = r.data.get("input_fps")
        if r.kind != "turn.finished" or not isinstance(fps, dict):
            continue
        reader = declared.get(r.agent)
        target = reader.name if reader else r.agent
        for input_name in fps:
            sources = reader.inputs.get(input_name, ()) if reader else ()
            for source in sources or (UNDECLARED + input_name,):
                count, last, _ = found.get((source, target, input_name), (0, "", bool(sources)))
                found[(source, target, input_name)] = (count + 1, max(last, r.ts), bool(sources))
    return tuple(sorted(Read(s, t, i, n, last, ok) for (s, t, i), (n, last, ok) in found.items()))


def _writes(landed: list[Receipt], name: Callable[[str], str | None]) -> tuple[Wrote, ...]:
    found: dict[tuple[str, str, str], str] = {}
    for r in landed:
        how, field_name = WRITES.get(r.kind, ("", ""))
        asset = r.data.get(field_name)
        if isinstance(asset, str):
            key = (name(r.agent) or r.agent, asset, how)
            found[key] = max(found.get(key, ""), r.ts)
    return tuple(sorted(Wrote(c, a, h, last) for (c, a, h), last in found.items()))


def _run(r: Receipt, holder: Holder, roles: Mapping[str, str]) -> Run:
    who = holder(r.lease, r.token)
    reason = r.data.get("reason")
    return Run(
        ts=r.ts,
        outcome=r.kind.removeprefix("turn."),
        disposition=str(r.data.get("disposition", "")),
        reason=str(reason) if reason else None,
        cost_usd=float(r.data.get("cost_usd", 0.0)),  # type: ignore[arg-type]
        holder=who[0] if who else None,
        role=who[1] if who else roles.get(str(r.data.get("turn"))),
    )


def _pending(landed: list[Receipt], declared: Mapping[str, Declared]) -> tuple[Pending, ...]:
    settled = {str(r.data.get("key")) for r in landed if r.kind in ("approval.observed", "draft.rejected")}
    newest: dict[tuple[str, str], Receipt] = {}  # (agent, output or asset) -> its newest draft.placed
    for r in landed:
        if r.kind == "draft.placed":
            key = (r.agent, _output(r, declared.get(r.agent)))
            if key not in newest or newest[key].ts <= r.ts:
                newest[key] = r
    found = []
    for (agent, _), r in newest.items():
        if r.data.get("key") not in settled:
            reader = declared.get(agent)
            found.append(Pending(reader.name if reader else agent, str(r.data.get("asset")), r.key, r.ts))
    return tuple(sorted(found))


def _output(placed: Receipt, contract: Declared | None) -> str:
    """The output a draft is of: the declared target its asset fills for the key's slot, else the asset."""
    from hz.gitstate.shapes import slot_time
    from hz.repo_paths import fill_slot

    asset = str(placed.data.get("asset"))
    parts = str(placed.data.get("key")).split("@", 3)  # <agent>@v<n>@<slot>@<asset>
    moment = slot_time(parts[2]) if len(parts) == 4 else None
    if contract is not None and moment is not None:
        for output, target in sorted(contract.outputs.items()):
            if fill_slot(target, moment) == asset:
                return output
    return asset


# --- renderers ---


def render_text(observed: Observed) -> str:
    if observed.ref is None or not observed.events:
        return "observed: no receipts on hz/state yet (a team tick writes them)"
    lines = [f"observed on hz/state ({observed.events} events, {observed.ref}):"]
    for read in observed.reads:
        mark = "" if read.declared else "  [not declared]"
        lines.append(
            f"  {read.source} -> {read.target}  (input {read.input}, {read.turns} turns, last {read.last}){mark}"
        )
    for wrote in observed.writes:
        lines.append(f"  {wrote.contract} => {wrote.asset}  ({wrote.how}, last {wrote.last})")
    for edge in observed.never_observed:
        lines.append(f"  {edge.source} -> {edge.target}#{edge.facet or '*'}  [declared, never observed]")
    return "\n".join(lines)


def render_mermaid(observed: Observed, ids: Mapping[str, str], drawn: Sequence[Edge]) -> str:
    """Lines to append to the declared flowchart, whose links are `drawn` in this order: observed reads
    and writes drawn thick; declared links no receipt shows dashed grey, reads nobody declares red."""
    extra: dict[str, str] = {}
    lines: list[str] = []
    links = len(drawn)
    styles = [f"  linkStyle {drawn.index(e)} {NEVER_STYLE}" for e in observed.never_observed if e in drawn]

    def node(label: str, shape: tuple[str, str]) -> str:
        if label in ids:
            return ids[label]
        if label not in extra:
            extra[label] = f"o{len(extra)}"
            lines.append(f'  {extra[label]}{shape[0]}"{_mermaid_text(label)}"{shape[1]}')
        return extra[label]

    for read in observed.reads:
        a, b = node(read.source, ("([", "])")), node(read.target, ("[", "]"))
        mark = "" if read.declared else " (not declared)"
        lines.append(f'  {a} ==>|"observed: {_mermaid_text(read.input)}{mark}"| {b}')
        if not read.declared:
            styles.append(f"  linkStyle {links} {UNDECLARED_STYLE}")
        links += 1
    for wrote in observed.writes:
        a, b = node(wrote.contract, ("[", "]")), node(wrote.asset, ("[/", "/]"))
        lines.append(f"  {a} ==>|{wrote.how}| {b}")
    if observed.ref is None or not observed.events:
        lines.append("  %% observed: no receipts on hz/state yet")
    return "\n".join(lines + styles)


def _mermaid_text(text: str) -> str:
    """Text inside a quoted Mermaid label: its quote and angle brackets as Mermaid's entity codes."""
    return text.replace('"', "#quot;").replace("<", "#lt;").replace(">", "#gt;")


def to_json(observed: Observed) -> dict[str, object]:
    return {
        "ref": observed.ref,
        "events": observed.events,
        "reads": [asdict(read) for read in observed.reads],
        "writes": [asdict(wrote) for wrote in observed.writes],
        "never_observed": [{"from": e.source, "to": e.target, "facet": e.facet} for e in observed.never_observed],
        "runs": {name: [asdict(run) for run in runs] for name, runs in sorted(observed.runs.items())},
        "pending": [asdict(p) for p in observed.pending],
    }


def render_json(observed: Observed) -> str:
    return json.dumps(to_json(observed), indent=2, ensure_ascii=False)
