"""`hz graph --html`: the contract graph as one self-contained static page.

No script and no request: the layout is computed here and drawn as inline SVG (columns by height, one
row per contract within its column), styled by one inline stylesheet that the page's Content Security
Policy admits by its hash (`default-src 'none'`), so the page can fetch nothing, not even if a contract's
title smuggled markup past the escaping. Every text that comes from a contract or from `hz/state` goes
through `html.escape`.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from html import escape

from hz.graph import Graph, describe
from hz.graph_observed import Observed, Run

COLUMN, ROW = 350, 96  # the grid a node sits on, in SVG units
BOX_W, BOX_H = 300, 72
MARGIN = 20
TITLE_CHARS = 30
ARROW = (
    '<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="9" markerHeight="9" '
    'markerUnits="userSpaceOnUse" orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="#57606a"></path></marker></defs>'
)  # a title longer than this is cut in the drawing; the card below shows it whole

PAGE_STYLE = """
body { font: 14px/1.4 system-ui, sans-serif; margin: 24px; color: #1d232a; background: #fafbfc; }
h1 { font-size: 20px; margin: 0 0 4px; }
.meta { color: #5b6570; margin: 0 0 16px; }
"""
DRAWING_STYLE = """
svg { background: #fff; border: 1px solid #d8dee4; border-radius: 6px; max-width: 100%; height: auto; }
.node rect { fill: #eef4ff; stroke: #3b6fd1; stroke-width: 1.5; }
.node.disabled rect { fill: #f4f4f4; stroke: #8c959f; stroke-dasharray: 5 4; }
.node.extra rect { fill: #fff8e6; stroke: #bf8700; }
.node text { font-size: 12px; fill: #1d232a; }
.node text.name { font-weight: 600; font-size: 13px; }
.edge { fill: none; stroke-width: 1.6; }
.edge.declared { stroke: #3b6fd1; }
.edge.never { stroke: #8c959f; stroke-dasharray: 6 4; }
.edge.observed { stroke: #1a7f37; stroke-width: 3; }
.edge.undeclared { stroke: #cf222e; stroke-width: 3; stroke-dasharray: 2 3; }
.legend span { margin-right: 16px; }
.legend .declared { color: #3b6fd1; } .legend .never { color: #8c959f; }
.legend .observed { color: #1a7f37; } .legend .undeclared { color: #cf222e; }
.card { background: #fff; border: 1px solid #d8dee4; border-radius: 6px; padding: 12px 16px; margin: 12px 0; }
.card h2 { font-size: 16px; margin: 0; }
.card .title { color: #5b6570; }
table { border-collapse: collapse; margin-top: 6px; }
td, th { text-align: left; padding: 2px 12px 2px 0; font-size: 13px; }
th { color: #5b6570; font-weight: 500; }
.none { color: #8c959f; }
"""
STYLE = PAGE_STYLE + DRAWING_STYLE  # the static page's; `hz serve` serves DRAWING_STYLE beside its own


@dataclass(frozen=True)
class Placed:
    name: str
    x: int
    y: int
    extra: bool  # a source or reader the declared graph does not hold


def render_html(graph: Graph, titles: Mapping[str, str], observed: Observed, *, repository: str) -> str:
    """The page: the drawing, a legend, then one card per contract with its runs and pending drafts."""
    body = [
        f"<h1>hz graph: {escape(repository)}</h1>",
        f'<p class="meta">{escape(_state_line(observed))}</p>',
        *drawing(graph, titles, observed),
    ]
    digest = base64.b64encode(hashlib.sha256(STYLE.encode("utf-8")).digest()).decode("ascii")
    policy = f"default-src 'none'; style-src 'sha256-{digest}'; base-uri 'none'; form-action 'none'"
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{policy}">\n'
        f"<title>hz graph: {escape(repository)}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n"
        + "\n".join(body)
        + "\n</body>\n</html>\n"
    )


def drawing(graph: Graph, titles: Mapping[str, str], observed: Observed) -> list[str]:
    """The legend, the SVG and one card per contract: markup whose every text is escaped here (the web
    page of `hz serve` places it as it is)."""
    places = _layout(graph, observed)
    return [
        _legend(),
        _svg(graph, titles, observed, places),
        *(_card(name, graph, titles, observed) for name in graph.order()),
    ]


def state_line(observed: Observed) -> str:
    return _state_line(observed)


def _state_line(observed: Observed) -> str:
    if observed.ref is None or not observed.events:
        return "hz/state: no receipts yet; only declared edges are drawn"
    return f"hz/state: {observed.events} events read from {observed.ref}"


def _legend() -> str:
    items = [
        ("declared", "declared"),
        ("observed", "observed on hz/state"),
        ("never", "declared, never observed"),
        ("undeclared", "observed, not declared"),
    ]
    return '<p class="legend">' + "".join(f'<span class="{c}">&#9472;&#9472; {t}</span>' for c, t in items) + "</p>"


def _layout(graph: Graph, observed: Observed) -> dict[str, Placed]:
    """Contracts in columns by height; sources and unknown inputs read by them one column to the left,
    readers no contract here declares (a retired contract's receipts) one column to the right."""
    sources = sorted({r.source for r in observed.reads if r.source not in graph.nodes})
    readers = sorted({r.target for r in observed.reads if r.target not in graph.nodes} - set(sources))
    shift = 1 if sources else 0
    top = max((node.height for node in graph.nodes.values()), default=-1) + shift + 1
    columns: dict[int, list[tuple[str, bool]]] = {}
    for name in sources:
        columns.setdefault(0, []).append((name, True))
    for name in graph.order():
        columns.setdefault(graph.nodes[name].height + shift, []).append((name, False))
    for name in readers:
        columns.setdefault(top, []).append((name, True))
    return {
        name: Placed(name, MARGIN + column * COLUMN, MARGIN + row * ROW, extra)
        for column, names in columns.items()
        for row, (name, extra) in enumerate(names)
    }


def _svg(graph: Graph, titles: Mapping[str, str], observed: Observed, places: Mapping[str, Placed]) -> str:
    width = max((p.x for p in places.values()), default=0) + BOX_W + MARGIN
    height = max((p.y for p in places.values()), default=0) + BOX_H + MARGIN
    seen = {(r.source, r.target) for r in observed.reads}
    never = {(e.source, e.target) for e in observed.never_observed}
    parts = [
        f'<svg role="img" aria-label="contract graph" viewBox="0 0 {width} {height}" width="{width}">',
        ARROW,
    ]
    for edge in graph.edges:
        pair = (edge.source, edge.target)
        kind = "observed" if pair in seen else "never" if pair in never else "declared"
        parts.append(_path(places, edge.source, edge.target, kind, f"{edge.source} -> {edge.target}#{edge.facet}"))
    for read in observed.reads:
        if (read.source, read.target) not in {(e.source, e.target) for e in graph.edges}:
            kind = "observed" if read.declared else "undeclared"
            parts.append(_path(places, read.source, read.target, kind, f"{read.source} -> {read.target}"))
    for place in places.values():
        parts.append(_node(place, graph, titles, observed))
    parts.append("</svg>")
    return "\n".join(parts)


def _path(places: Mapping[str, Placed], source: str, target: str, kind: str, label: str) -> str:
    a, b = places.get(source), places.get(target)
    if a is None or b is None or a is b:  # a self-loop outside `on` is no wake edge worth an arc
        return ""
    x1, y1, x2, y2 = a.x + BOX_W, a.y + BOX_H // 2, b.x, b.y + BOX_H // 2
    bend = max(40, (x2 - x1) // 2)
    d = f"M{x1},{y1} C{x1 + bend},{y1} {x2 - bend},{y2} {x2},{y2}"
    return f'<path class="edge {kind}" d="{d}" marker-end="url(#arrow)"><title>{escape(label)}</title></path>'


def _node(place: Placed, graph: Graph, titles: Mapping[str, str], observed: Observed) -> str:
    node = graph.nodes.get(place.name)
    classes = "node extra" if place.extra else "node" if node is None or node.enabled else "node disabled"
    title = titles.get(place.name, "")
    cut = title if len(title) <= TITLE_CHARS else title[: TITLE_CHARS - 1] + "\u2026"
    runs = observed.runs.get(place.name, ())
    pending = sum(1 for p in observed.pending if p.contract == place.name)
    lines = [
        f"height {node.height} \u00b7 {cut}" if node is not None else "source or input",
        (_run_line(runs[0]) if runs else "no runs recorded") + (f" \u00b7 {pending} pending" if pending else ""),
    ]
    attribute = "data-node" if place.extra else "data-contract"
    height_attr = f' data-height="{node.height}"' if node is not None else ""
    x, y = place.x, place.y
    texts = [f'<text class="name" x="{x + 10}" y="{y + 22}">{escape(place.name)}</text>']
    texts += [f'<text x="{x + 10}" y="{y + 42 + 18 * i}">{escape(line)}</text>' for i, line in enumerate(lines)]
    return (
        f'<g class="{classes}" {attribute}="{escape(place.name)}"{height_attr}>'
        f'<rect x="{x}" y="{y}" width="{BOX_W}" height="{BOX_H}" rx="6"></rect>'
        f"<title>{escape(place.name + (': ' + title if title else ''))}</title>" + "".join(texts) + "</g>"
    )


def _run_line(run: Run) -> str:
    return f"{run.disposition or run.outcome} \u00b7 {run.holder or run.role or 'unknown'} \u00b7 ${run.cost_usd:.2f}"


def _card(name: str, graph: Graph, titles: Mapping[str, str], observed: Observed) -> str:
    node = graph.nodes[name]
    state = "enabled" if node.enabled else f"disabled: {describe(graph.disabled[name])}"
    rows = "".join(_row(run) for run in observed.runs.get(name, ()))
    head = "<tr><th>when</th><th>who</th><th>role</th><th>disposition</th><th>cost</th></tr>"
    runs = f"<table>{head}{rows}</table>" if rows else '<p class="none">no runs recorded on hz/state</p>'
    drafts = [p for p in observed.pending if p.contract == name]
    items = "".join(f'<li>{escape(p.asset)} <span class="none">placed {escape(p.placed)}</span></li>' for p in drafts)
    pending = f"<ul>{items}</ul>" if drafts else '<p class="none">no pending drafts</p>'
    return (
        f'<section class="card" data-card="{escape(name)}">'
        f'<h2>{escape(name)} <span class="title">{escape(titles.get(name, ""))}</span></h2>'
        f"<p>height {node.height} \u00b7 {escape(state)}</p>"
        f"<h3>Last runs</h3>{runs}<h3>Pending drafts</h3>{pending}</section>"
    )


def _row(run: Run) -> str:
    cells = (run.ts, run.holder or "unknown here", run.role or "?", _disposition(run), f"${run.cost_usd:.2f}")
    return "<tr>" + "".join(f"<td>{escape(cell)}</td>" for cell in cells) + "</tr>"


def _disposition(run: Run) -> str:
    return run.disposition + (f" ({run.reason})" if run.reason else "") if run.disposition else run.outcome
