"""Plain-text handling of a contract file: normalization, the frontmatter split, comments, tidying.

A contract's frontmatter comes in two forms: between `---` lines (the canonical file form), or as a
leading fenced code block with the info string `yaml` (the embedded form, because rich editors turn
`---` into a horizontal rule). Both become the `---` form before anything is fingerprinted.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import Literal

_FENCE_OPEN = re.compile(r"^(?P<fence>`{3,}|~{3,})[ \t]*yaml[ \t]*$")
_COMMENT = re.compile(r"<!--.*?(?:-->|\Z)", re.DOTALL)
_MARK = "\x00"  # stands in for a removed comment while lines are sorted out


def normalize(text: str) -> str:
    """NFC, LF line endings and no byte-order mark: the form every later step assumes."""
    text = text.lstrip("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    return unicodedata.normalize("NFC", text)


@dataclass(frozen=True)
class Split:
    """A normalized contract cut into its YAML and its Markdown body.

    `yaml_line` and `body_line` are the 1-based file lines where each part starts, so a position inside
    either part maps back to the file.
    """

    yaml: str
    body: str
    yaml_line: int
    body_line: int
    form: Literal["file", "embedded"]


def split_frontmatter(text: str) -> Split | None:
    """The frontmatter and body of a normalized text, or None when it has no frontmatter."""
    lines = text.split("\n")
    if lines and lines[0].rstrip() == "---":
        return _split_dashes(lines)
    first = next((i for i, line in enumerate(lines) if line.strip()), None)
    if first is not None and (match := _FENCE_OPEN.match(lines[first].strip())):
        return _split_fenced(lines, first, match.group("fence"))
    return None


def _split_dashes(lines: list[str]) -> Split | None:
    for end in range(1, len(lines)):
        if lines[end].rstrip() == "---":
            return _make(lines, 1, end, "file")
    return None


def _split_fenced(lines: list[str], start: int, fence: str) -> Split | None:
    for end in range(start + 1, len(lines)):
        closing = lines[end].strip()
        if closing.startswith(fence[0] * len(fence)) and not closing.strip(fence[0]):
            return _make(lines, start + 1, end, "embedded")
    return None


def _make(lines: list[str], yaml_start: int, yaml_end: int, form: Literal["file", "embedded"]) -> Split:
    yaml = "".join(line + "\n" for line in lines[yaml_start:yaml_end])
    body = "\n".join(lines[yaml_end + 1 :])
    return Split(yaml, body, yaml_start + 1, yaml_end + 2, form)


def strip_comments(text: str) -> str:
    """Remove HTML comments; a line that held nothing but comments disappears with them."""
    if "<!--" not in text:
        return text
    marked = _COMMENT.sub(_MARK, text)
    kept = [
        line.replace(_MARK, "")
        for line in marked.split("\n")
        if not (_MARK in line and not line.replace(_MARK, "").strip())
    ]
    return "\n".join(kept)


def tidy(text: str) -> str:
    """Trailing whitespace stripped, blank-line runs collapsed to one, no blank lines at either end."""
    out: list[str] = []
    for line in text.split("\n"):
        line = line.rstrip()
        if line or (out and out[-1]):
            out.append(line)
    while out and not out[-1]:
        out.pop()
    return "\n".join(out)


def canonical_yaml(yaml: str) -> str:
    """The frontmatter as written, trailing whitespace and surrounding blank lines removed."""
    tidied = "\n".join(line.rstrip() for line in yaml.split("\n")).strip("\n")
    return tidied + "\n" if tidied else ""


def canonical_text(yaml: str, canonical_body: str) -> str:
    """The canonical full text: the `---` form, whichever form the contract was written in."""
    body = canonical_body.strip("\n")
    return f"---\n{canonical_yaml(yaml)}---\n" + (f"\n{body}\n" if body else "")
