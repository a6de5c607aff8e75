"""Text out of Jira's field values: plain strings as they are, Atlassian documents (v3's rich text) as
their words.

An Atlassian document is a tree of nodes (`doc`, `paragraph`, `text`, `hardBreak`, `mention`, …); its
words are the `text` of text nodes, a mention's or an emoji's `attrs.text`, and a space between blocks.
The tree is walked with a loop and a node budget, so no document exhausts the stack or the clock.
"""

from __future__ import annotations

from typing import Any

MAX_NODES = 100_000
_INLINE = frozenset({"text", "mention", "emoji", "date", "status", "inlineCard", "hardBreak"})


def plain(value: Any) -> str | None:
    """A string as it is; an Atlassian document as its words; None for anything else."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict) and value.get("type") == "doc":
        return document_text(value)
    return None


def document_text(doc: dict[str, Any]) -> str:
    words: list[str] = []
    stack: list[Any] = [doc]
    for _ in range(MAX_NODES):
        if not stack:
            break
        node = stack.pop()
        if not isinstance(node, dict):
            continue
        kind = node.get("type")
        if kind == "text" and isinstance(node.get("text"), str):
            words.append(node["text"])
        elif kind in _INLINE:
            attrs = node.get("attrs")
            said = attrs.get("text") or attrs.get("url") if isinstance(attrs, dict) else None
            words.append(str(said) if isinstance(said, str) else " ")
        elif kind != "doc":
            words.append(" ")  # a block (paragraph, list item, table cell) ends a run of words
        content = node.get("content")
        if isinstance(content, list):
            stack.extend(reversed(content))
    return " ".join("".join(words).split())
