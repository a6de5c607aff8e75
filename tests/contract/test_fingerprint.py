"""Fingerprint rules: cosmetic edits never move `contract_fingerprint`, material edits always do,
when/who/how-much keys never do, and arbitrary text yields diagnostics, never an exception."""

from __future__ import annotations

import random
from dataclasses import dataclass

from hypothesis import given, settings
from hypothesis import strategies as st

from hz.contract.load import Contract, load_text

from .samples import GOOD, variant

TOP = {
    "name": ["name: weekly-digest"],
    "kind": ["kind: responsibility"],
    "description": ["description: Keeps a weekly digest of what changed here, for people who missed the week."],
}
HZ = {
    "schema": ["  schema: 1"],
    "title": ["  title: {q}Weekly change digest{q}"],
    "owner": ['  owner: "@hz-maintainer"'],
    "scope": ["  scope: team"],
    "schedule": ['  schedule: "0 8 * * MON"'],
    "on": ["  on: [commits]"],
    "inputs": ["  inputs:", "    commits:", "      source: {q}git:log{q}", "      window: 7d", "{default_input}"],
    "outputs": [
        "  outputs:",
        "    digest:",
        '      target: "state:reports/digest/{{slot:%G-W%V}}.md"',
        "      facets: [summary, changes]",
        "{default_output}",
    ],
}
BODY = [
    ("# Weekly change digest", []),
    ("### Goal", ["The digest for the past ISO week lists every change merged to main."]),
    ("### Requires", ["- `commits`: the commits on main in the past seven days."]),
    ("### Maintains", ["- `digest`: a short Markdown page."]),
    ("#### summary", ["Material: the gist of the week.", "Immaterial: the order of sentences."]),
    ("#### changes", ["- one line per commit", "- grouped by area"]),
    ("### Steps", ["1. read the log", "2. group the commits"]),
    ("### Done when", ["- [ ] every commit of the week appears once", "- [ ] nothing is listed twice"]),
]


@dataclass(frozen=True)
class Style:
    seed: int
    quote: str
    explicit_defaults: bool
    heading_shift: int
    embedded: bool
    spaces: bool
    blank_runs: bool
    comments: bool


def render(style: Style) -> str:
    rng = random.Random(style.seed)
    top = list(TOP.items())
    rng.shuffle(top)
    hz = list(HZ.items())
    rng.shuffle(hz)
    values = {
        "q": style.quote,
        "default_input": "      stage: published\n      required: true" if style.explicit_defaults else "",
        "default_output": "      format: markdown" if style.explicit_defaults else "",
    }
    lines = [line for _, chunk in top for line in chunk] + ["hz:"]
    lines += [line.format(**values) for _, chunk in hz for line in chunk]
    if style.explicit_defaults:
        lines += ["  timeout: 15m", "  catch_up: latest", "  publishes: []", "  tools: []"]
    yaml = [line for line in lines if line]
    body = _body(style, rng)
    if style.embedded:
        return "```yaml\n" + "\n".join(yaml) + "\n```\n" + body
    return "---\n" + "\n".join(_pad(yaml, style, rng)) + "\n---\n" + body


def _pad(lines: list[str], style: Style, rng: random.Random) -> list[str]:
    return [line + " " * rng.randint(0, 3) if style.spaces else line for line in lines]


def _body(style: Style, rng: random.Random) -> str:
    out: list[str] = []
    for heading, content in BODY:
        hashes, _, text = heading.partition(" ")
        level = len(hashes) if hashes == "#" else len(hashes) + style.heading_shift
        out += ["", "#" * level + " " + text, ""] + (["", ""] if style.blank_runs and rng.random() < 0.5 else [])
        for line in content:
            if line.startswith("- ") and rng.random() < 0.6:
                line = rng.choice("*+") + line[1:]
            if style.comments and rng.random() < 0.4:
                if rng.random() < 0.5:
                    out.append("<!-- an author's note -->")
                else:
                    line += " <!-- aside -->"
            out.append(line)
    return "\n".join(_pad(out, style, rng)) + "\n"


styles = st.builds(
    Style,
    seed=st.integers(0, 10_000),
    quote=st.sampled_from(["", '"', "'"]),
    explicit_defaults=st.booleans(),
    heading_shift=st.sampled_from([-1, 0, 1]),
    embedded=st.booleans(),
    spaces=st.booleans(),
    blank_runs=st.booleans(),
    comments=st.booleans(),
)
PLAIN = Style(0, "", False, 0, False, False, False, False)


def _contract(text: str) -> Contract:
    result = load_text(text)
    assert result.contract is not None, result.diagnostics
    return result.contract


BASE = _contract(render(PLAIN))


@settings(max_examples=60, deadline=None)
@given(styles)
def test_cosmetic_edits_keep_the_contract_fingerprint(style: Style) -> None:
    contract = _contract(render(style))
    assert contract.contract_fingerprint == BASE.contract_fingerprint
    assert dict(contract.section_fingerprints) == dict(BASE.section_fingerprints)


@settings(max_examples=30, deadline=None)
@given(styles)
def test_file_and_embedded_forms_share_every_fingerprint(style: Style) -> None:
    file_form = _contract(render(Style(**{**style.__dict__, "embedded": False})))
    embedded = _contract(render(Style(**{**style.__dict__, "embedded": True, "spaces": False})))
    assert embedded.form == "embedded"
    assert embedded.contract_fingerprint == file_form.contract_fingerprint
    if not style.spaces:
        assert embedded.text == file_form.text
        assert embedded.source_fingerprint == file_form.source_fingerprint


MATERIAL = [
    ("The digest for the past ISO week lists every change", "The digest for the past ISO week lists every merge"),
    ('target: "state:reports/digest/', 'target: "state:reports/weekly/'),
    ("window: 7d", "window: 14d"),
    ('source: "git:log"', 'source: ["git:log", "feed:https://example.invalid/a.xml"]'),
    ("  outputs:", "  tools: ['hz:git.log.read']\n  outputs:"),
    ("      window: 7d\n", "      window: 7d\n      required: false\n"),
    ("Material: one line per commit.", "Material: one line per commit, with its author."),
    ("- [ ] every commit of the week appears once", "- [ ] every commit of the week appears once, newest first"),
    ("### Done when", "### Invariants\n\nNever rewrite history.\n\n### Done when"),
    ("### Done when", "### Steps\n\n1. Read the log first.\n\n### Done when"),
    ("      facets: [summary, changes]", "      facets: [summary, changes]\n      format: json"),
]
WHEN_WHO = [
    ('schedule: "0 8 * * MON"', 'schedule: [{cron: "0 9 * * TUE", tz: Europe/Vienna}]'),
    ('owner: "@hz-maintainer"', 'owner: "@someone-else"\n  maintainers: ["@org/team"]'),
    ("  scope: team", "  scope: team\n  tags: [digest, weekly]\n  agent: {runner: codex, model: deep, max_turns: 5}"),
    ("  scope: team", "  scope: team\n  cost: {max_tokens: 5000, max_usd_per_day: 0.5}\n  timeout: 2h"),
    ("  scope: team", "  scope: team\n  retries: {max: 4, backoff: 1h}\n  concurrency: {limit: 2, behavior: skip}"),
    ("  scope: team", "  scope: team\n  catch_up: all\n  freshness: slot\n  idempotency: '{contract}:{slot}'"),
    ("title: Weekly change digest", "title: The digest"),
    ("description: Keeps", "version: 2.0.0\nid: 01HZX3V8Q9W7E6R5T4Y3U2I1O0\ndescription: Keeps"),
    ("on: [commits]", "on: [commits.log]"),
    ("### Goal", "### Description\n\nBackground for readers.\n\n### Continuity\n\nWakes on Mondays.\n\n### Goal"),
]


def test_every_material_edit_moves_the_fingerprint() -> None:
    base = _contract(GOOD).contract_fingerprint
    seen = {base}
    for old, new in MATERIAL:
        fingerprint = _contract(variant(old, new)).contract_fingerprint
        assert fingerprint not in seen, (old, new)
        seen.add(fingerprint)


def test_when_who_and_how_much_keys_never_move_it() -> None:
    base = _contract(GOOD)
    for old, new in WHEN_WHO:
        text = variant(old, new).replace("01HZX3V8Q9W7E6R5T4Y3U2I1O0", "01HZX3V8Q9W7E6R5T4Y3V2K1M0")
        contract = _contract(text)
        assert contract.contract_fingerprint == base.contract_fingerprint, (old, new)
        assert contract.source_fingerprint != base.source_fingerprint


def test_a_comment_moves_only_the_source_fingerprint() -> None:
    base = _contract(GOOD)
    edited = _contract(variant("### Goal\n", "### Goal\n<!-- ask the team first -->\n"))
    assert edited.contract_fingerprint == base.contract_fingerprint
    assert edited.source_fingerprint != base.source_fingerprint
    assert "ask the team" not in edited.sections["goal"].text


@settings(max_examples=150, deadline=None)
@given(st.text())
def test_arbitrary_text_gives_diagnostics_not_exceptions(text: str) -> None:
    result = load_text(text)
    assert result.contract is None
    assert result.diagnostics


@settings(max_examples=150, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab:-#`[]{}\n @!&*|>'\"%?,.0123456789 \t"))), st.text())
def test_arbitrary_frontmatter_and_body_never_raise(yaml: str, body: str) -> None:
    for text in (f"---\n{yaml}\n---\n{body}", f"```yaml\n{yaml}\n```\n{body}", GOOD.replace("# Weekly", body)):
        result = load_text(text)
        assert result.contract is not None or result.diagnostics


_handles = st.from_regex(r"@[a-z][a-z0-9-]{0,10}[a-z0-9]", fullmatch=True)
_words = st.text(alphabet="abcdefghij klmno", min_size=1, max_size=30).map(str.strip).filter(bool)
_WHEN_WHO_KEYS = {
    "schedule": st.sampled_from(
        ['"0 9 * * *"', '{cron: "15 6 * * 1-5", tz: Asia/Tokyo}', '["0 1 * * *", "0 13 * * *"]']
    ),
    "owner": _handles.map(lambda h: f'"{h}"'),
    "maintainers": st.lists(_handles, min_size=1, max_size=3, unique=True).map(
        lambda hs: "[" + ", ".join(f'"{h}"' for h in hs) + "]"
    ),
    "tags": st.lists(st.from_regex(r"[a-z][a-z0-9]{0,8}", fullmatch=True), max_size=3, unique=True).map(
        lambda t: f"[{', '.join(t)}]"
    ),
    "freshness": st.sampled_from(["slot", "1d", "36h"]),
    "agent": st.sampled_from(["{runner: codex}", "{model: deep, effort: high}", "{runner: claude-code, max_turns: 9}"]),
    "timeout": st.sampled_from(["5m", "1h", "90s"]),
    "retries": st.sampled_from(["{max: 0}", "{max: 5, backoff: 1h}"]),
    "concurrency": st.sampled_from(["{limit: 3}", "{behavior: skip}"]),
    "catch_up": st.sampled_from(["all", "skip", "latest"]),
    "cost": st.sampled_from(["{max_tokens: 1000}", "{max_usd_per_day: 0.25}"]),
    "idempotency": st.sampled_from(["'{contract}:{slot}'", "'{memo_key}'"]),
    "render_on_schedule": st.sampled_from(["always", "if-moved"]),
    "title": _words,
}


@settings(max_examples=60, deadline=None)
@given(st.fixed_dictionaries({}, optional=_WHEN_WHO_KEYS), _words)
def test_when_who_and_how_much_never_move_the_fingerprint(keys: dict[str, str], description: str) -> None:
    required = {"title": "Weekly change digest", "owner": '"@hz-maintainer"'}
    text = GOOD
    for key in ("schedule", *required):
        text = "".join(line for line in text.splitlines(keepends=True) if not line.startswith(f"  {key}:"))
    extra = "".join(f"  {key}: {value}\n" for key, value in {**required, **keys}.items())
    text = text.replace("  scope: team\n", "  scope: team\n" + extra).replace(
        "description: Keeps a weekly digest", f"description: {description}. Keeps a weekly digest"
    )
    assert _contract(text).contract_fingerprint == _contract(GOOD).contract_fingerprint


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(["Goal", "Requires", "Maintains", "Done when", "summary", "changes"]), _words)
def test_any_added_words_in_an_intent_section_move_the_fingerprint(heading: str, words: str) -> None:
    marker = {"Goal": "### Goal\n\n", "Requires": REQUIRES_LINE, "Maintains": "- `digest`: a short Markdown page.",
              "Done when": "- [ ] every commit of the week appears once", "summary": "Material: the gist of the week.",
              "changes": "Material: one line per commit."}[heading]  # fmt: skip
    edited = (
        variant(marker, marker + " " + words) if not marker.endswith("\n") else variant(marker, marker + words + " ")
    )
    assert _contract(edited).contract_fingerprint != _contract(GOOD).contract_fingerprint


REQUIRES_LINE = "- `commits`: the commits on main in the past seven days."
