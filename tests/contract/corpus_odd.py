"""A corpus of odd contract files, made by the tests: encodings, YAML oddities, huge numbers and durations,
deep nesting, alias bombs, empty and binary files, and things that are not files at all.

`write_corpus(folder)` writes every shape into `folder` (a layer's `workflows/`) next to two good
contracts, `good-one` and `good-two`, that must keep working whatever lies beside them. Each shape is
named for what it is, so a failing assertion says which one broke.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from .samples import GOOD, variant

GOOD_NAMES = ("good-one", "good-two")

Maker = Callable[[str], bytes]


def _named(name: str, text: str = GOOD) -> str:
    return text.replace("weekly-digest", name)


def _edit(old: str, new: str) -> Maker:
    return lambda name: _named(name, variant(old, new)).encode("utf-8")


def _encoded(encoding: str, accented: str = "Kéeps €") -> Maker:
    return lambda name: _named(name, variant("Keeps", accented)).encode(encoding)


def _raw(data: bytes) -> Maker:
    return lambda name: data


def _text(text: str) -> Maker:
    return lambda name: text.encode("utf-8")


def _frontmatter(yaml: str) -> Maker:
    return lambda name: f"---\n{yaml}\n---\n\n### Goal\n\nIt holds.\n".encode()


def _body(old: str, new: str) -> Maker:
    return _edit(old, new)


_BOMB = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{chr(98 + n)}: &{chr(98 + n)} [*{chr(97 + n)}, *{chr(97 + n)}, *{chr(97 + n)}, *{chr(97 + n)}]\n"
    for n in range(9)
)

SHAPES: dict[str, Maker] = {
    # encodings and bytes
    "cp1252": _encoded("cp1252"),
    "latin-1": _encoded("latin-1", "Kéeps"),
    "utf-16": _encoded("utf-16"),
    "utf-16-be": _encoded("utf-16-be"),
    "utf-32": _encoded("utf-32"),
    "utf-8-bom": lambda name: b"\xef\xbb\xbf" + _named(name).encode(),
    "double-bom": lambda name: b"\xef\xbb\xbf\xef\xbb\xbf" + _named(name).encode(),
    "bom-in-yaml": _edit("  scope: team\n", "  scope: \ufeffteam\n"),
    "crlf": lambda name: _named(name).replace("\n", "\r\n").encode(),
    "cr-only": lambda name: _named(name).replace("\n", "\r").encode(),
    "nul-bytes": _edit("title: Weekly change digest", "title: Weekly\x00digest"),
    "control-chars": _edit("title: Weekly change digest", "title: Weekly\x07\x1b[31m digest"),
    "lone-surrogate-escape": _edit("title: Weekly change digest", 'title: "\\ud800 digest"'),
    "overlong-utf8": lambda name: _named(name).encode().replace(b"Keeps", b"K\xc0\xafeeps"),
    "truncated-utf8": lambda name: _named(name).encode() + b"\xe2\x82",
    "binary-png": _raw(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)) * 4),
    "binary-random": _raw(bytes((n * 131 + 7) % 256 for n in range(4096))),
    "empty": _raw(b""),
    "only-whitespace": _raw(b"\n \n\t\n"),
    "nfd-text": _edit("title: Weekly change digest", "title: Wee\u0301kly change digest"),
    # YAML oddities
    "duplicate-key": _edit("  scope: team\n", "  scope: team\n  scope: team\n"),
    "tab-indent": _edit("  scope: team\n", "\tscope: team\n"),
    "unknown-tag": _edit("window: 7d", "window: !later 7d"),
    "python-tag": _edit("window: 7d", "window: !!python/object:os.system [ls]"),
    "binary-tag": _edit("window: 7d", "window: !!binary aGVsbG8="),
    "set-tag": _edit("on: [commits]", "on: !!set {commits: null}"),
    "yaml-1.1-directive": lambda name: (
        "```yaml\n%YAML 1.1\n---\n" + _named(name)[4:].replace("\n---\n", "\n```\n", 1)
    ).encode(),
    "tag-directive": lambda name: ("```yaml\n%TAG !e! tag:example.com,2000:\n---\n" + _named(name)[4:]).encode(),
    "two-documents": _edit("  scope: team\n", "  scope: team\n...\n---\nextra: 1\n"),
    "merge-key": _edit("  inputs:\n", "  <<: {extra: 1}\n  inputs:\n"),
    "complex-key": _edit("  scope: team\n", "  scope: team\n  ? [a, b]\n  : c\n"),
    "null-key": _edit("  scope: team\n", "  scope: team\n  ~: c\n"),
    "bool-key": _edit("  scope: team\n", "  scope: team\n  true: c\n"),
    "alias-bomb": _frontmatter(_BOMB + "name: x"),
    "self-alias": _frontmatter("a: &a [*a]\nname: x"),
    "undefined-alias": _edit("window: 7d", "window: *nowhere"),
    "deep-nesting-40": _edit("window: 7d", "window: " + "[" * 40 + "]" * 40),
    "deep-nesting-100k": _edit("window: 7d", "window: " + "[" * 100_000),
    "deep-mapping": _edit("window: 7d", "window: " + "{a: " * 50 + "x" + "}" * 50),
    "unclosed-flow": _edit("on: [commits]", "on: [commits"),
    "unclosed-quote": _edit("title: Weekly change digest", 'title: "Weekly change digest'),
    "not-a-mapping": _frontmatter("- a\n- b"),
    "scalar-frontmatter": _frontmatter("just words"),
    "empty-frontmatter": _text("---\n---\n\n### Goal\n\nIt holds.\n"),
    "null-hz": _edit("hz:\n  schema: 1\n", "hz: ~\nx-old:\n  schema: 1\n"),
    "hz-is-a-list": _frontmatter("name: hz-is-a-list\nkind: responsibility\ndescription: d\nhz: [1, 2]"),
    "unclosed-frontmatter": _text("---\nname: x\nhz:\n  schema: 1\n"),
    "only-dashes": _text("---\n"),
    "long-string": _edit("title: Weekly change digest", "title: " + "x" * 200_000),
    "many-keys": _edit("  scope: team\n", "  scope: team\n" + "".join(f"  x{n}: {n}\n" for n in range(5000))),
    # numbers and durations
    "window-huge-weeks": _edit("window: 7d", "window: 99999999999w"),
    "window-5000-digits": _edit("window: 7d", "window: " + "9" * 5000 + "d"),
    "number-5000-digits": _edit("window: 7d", "window: " + "9" * 5000),
    "float-overflow": _edit("window: 7d", "window: 1e400"),
    "nan": _edit("window: 7d", "window: .nan"),
    "negative-duration": _edit("window: 7d", "window: -7d"),
    "zero-duration": _edit("window: 7d", "window: 0s"),
    "schema-huge": _edit("schema: 1", "schema: 99999999999999999999999999"),
    "schema-negative": _edit("schema: 1", "schema: -1"),
    "schema-float": _edit("schema: 1", "schema: 1.0"),
    "schema-string": _edit("schema: 1", 'schema: "1"'),
    "schedule-huge-numbers": _edit('"0 8 * * MON"', '"0 8 99999999999999999999 * *"'),
    "schedule-many-fields": _edit('"0 8 * * MON"', '"' + " ".join(["*"] * 5000) + '"'),
    "timestamp-value": _edit("window: 7d", "window: 2026-12-01T00:00:00Z"),
    "date-title": _edit("title: Weekly change digest", "title: 2026-12-01"),
    "max-turns-huge": _edit("  scope: team\n", "  scope: team\n  agent: {max_turns: " + "9" * 300 + "}\n"),
    "cost-inf": _edit("  scope: team\n", "  scope: team\n  cost: {max_usd_per_day: .inf}\n"),
    # bodies
    "level-shift": lambda name: _named(name).replace("\n### ", "\n## ").replace("\n#### ", "\n### ").encode(),
    "no-body": lambda name: _named(name).split("\n# Weekly")[0].encode(),
    "unclosed-fence": _body("### Done when", "```\n### Done when"),
    "unclosed-comment": _body("### Done when", "<!-- never closed\n### Done when"),
    "deep-blockquote": _body("### Done when", ">" * 5000 + " deep\n\n### Done when"),
    "deep-list": _body("### Done when", "".join("  " * n + "- x\n" for n in range(300)) + "\n### Done when"),
    "many-sections": _body(
        "### Done when", "".join(f"### Part {n}\n\nText.\n\n" for n in range(3000)) + "### Done when"
    ),
    "retired-and-bad-kind": lambda name: (
        _named(name, variant("kind: responsibility", "kind: gateway")).replace("### Done when", "### Criteria").encode()
    ),
    "dashed-facet": _body("#### summary", "#### pkg-core"),
    "setext-headings": _body("### Goal\n", "Goal\n---\n"),
}

# Shapes that are not regular files; each maker builds the thing at `path`.
SPECIAL: dict[str, Callable[[Path, Path], None]] = {
    "directory": lambda path, folder: path.mkdir(),
    "fifo": lambda path, folder: os.mkfifo(path),
    "link-inside": lambda path, folder: path.symlink_to(folder / "good-one.prose.md"),
    "link-outside": lambda path, folder: path.symlink_to(folder.parent.parent / "outside.prose.md"),
    "link-broken": lambda path, folder: path.symlink_to(folder / "nowhere.prose.md"),
    "link-loop": lambda path, folder: path.symlink_to(path),
    "link-into-git": lambda path, folder: path.symlink_to(folder.parent / ".git" / "HEAD"),
}


def write_corpus(folder: Path) -> list[str]:
    """Every shape written into `folder`, plus the good contracts; the stems of what was written."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder.parent.parent / "outside.prose.md").write_text(_named("outside"))
    for name in GOOD_NAMES:
        (folder / f"{name}.prose.md").write_text(_named(name))
    for name, make in SHAPES.items():
        (folder / f"{name}.prose.md").write_bytes(make(name))
    for name, build in SPECIAL.items():
        build(folder / f"{name}.prose.md", folder)
    return [*GOOD_NAMES, *SHAPES, *SPECIAL]


def write_odd_names(folder: Path) -> None:
    """Good contracts under names that are odd themselves: Latin-1 bytes, a leading dash, no stem."""
    text = _named("odd-name").encode()
    os.close(os.open(bytes(folder) + b"/caf\xe9.prose.md", os.O_WRONLY | os.O_CREAT, 0o644))
    with open(bytes(folder) + b"/caf\xe9.prose.md", "wb") as handle:
        handle.write(text)
    (folder / "-rf.prose.md").write_bytes(text)
    (folder / ".prose.md").write_bytes(text)
    (folder / "with space.prose.md").write_bytes(text)


# Shapes hz reads as valid contracts (odd only in form); every other shape must be reported as an error.
VALID = frozenset(
    {"cr-only", "crlf", "utf-8-bom", "nfd-text", "set-tag", "schema-float", "level-shift", "many-sections"}
    | {"deep-blockquote", "double-bom", "setext-headings"}
)
