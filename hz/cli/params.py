"""Checks of free-text command-line values, made where they enter so a bad one is a usage error (2).

The rule is the operations layer's (hz.ops.checks), so every head refuses the same sentences: a sentence
(`hz heinzel amend --why`, the hint of `hz heinzel retry`) is one line of at most `SENTENCE_MAX` characters.
Checking here keeps a 100k-character paste or a terminal escape from ever reaching the spine's checks.
"""

from __future__ import annotations

import click

from hz.ops.checks import SENTENCE_MAX, sentence_problem

__all__ = ["SENTENCE_MAX", "sentence"]


def sentence(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """A click callback: one line of 1 to SENTENCE_MAX characters, none of them a control character."""
    if value is None:
        return None
    problem = sentence_problem(value)
    if problem is not None:
        raise click.BadParameter(problem, ctx, param)
    return value
