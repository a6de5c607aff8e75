"""Checks of free-text command-line values, made where they enter so a bad one is a usage error (2).

A sentence (`hz heinzel amend --why`, the hint of `hz heinzel retry`) is kept on the agent's spine, whose
field for it holds one line of at most `SENTENCE_MAX` characters (`Sentence` in hz.session.vocabulary;
a test keeps the two equal). Checking here keeps a 100k-character paste or a terminal escape from ever
reaching the spine's checks.
"""

from __future__ import annotations

import unicodedata

import click

SENTENCE_MAX = 1000


def sentence(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """A click callback: one line of 1 to SENTENCE_MAX characters, none of them a control character."""
    if value is None:
        return None
    if not value.strip():
        raise click.BadParameter("is empty; say in a few words what you mean", ctx, param)
    if len(value) > SENTENCE_MAX:
        raise click.BadParameter(f"is {len(value)} characters long; one sentence is at most {SENTENCE_MAX}", ctx, param)
    control = next((c for c in value if unicodedata.category(c) == "Cc"), None)
    if control is not None:
        raise click.BadParameter(f"holds the control character {control!r}; write one plain line", ctx, param)
    return value
