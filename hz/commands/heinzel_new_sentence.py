"""`hz heinzel new NAME --say "…"`: the text of `hz.ops.new` for an agent proposed from a sentence."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import TYPE_CHECKING, Literal, TextIO

if TYPE_CHECKING:
    from hz.runners.base import Runner


def new_from_sentence_command(
    out: TextIO,
    name: str,
    sentence: str,
    *,
    namespace: str,
    environ: Mapping[str, str],
    now: datetime | None = None,
    runner: Runner | None = None,
) -> int:
    """`runner` is the seam for tests; None means the user's configured default runner."""
    from hz.ops import Context
    from hz.ops.models_actions import NewRequest
    from hz.ops.new import new_agent

    space: Literal["me", "project", "team"] = namespace  # type: ignore[assignment]  # click's Choice
    request = NewRequest(name=name, say=sentence, namespace=space)
    result = new_agent(Context(environ=environ, now=now), request, runner=runner)
    out.write("".join(line + "\n" for line in result["said"]))
    return 0
