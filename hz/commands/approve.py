"""`hz approve ITEM`: the text of `hz.ops.decide.approve` (a proposed agent, an amendment or a draft)."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import TextIO


def approve_command(out: TextIO, item: str, *, environ: Mapping[str, str], now: datetime | None = None) -> int:
    from hz.ops import Context
    from hz.ops.decide import approve
    from hz.ops.models_actions import ApproveRequest

    result = approve(Context.here(environ, now), ApproveRequest(item=item))  # its repository: a team draft's
    out.write(result["said"] + "\n")
    return 0
