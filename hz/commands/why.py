"""`hz why`: the text or JSON of `hz.ops.why` (what happened to a contract's slot, or why nothing did)."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Mapping
from typing import TextIO

import click

from hz.ops.models_why import WhyData


def why_command(
    contract: str, slot: str | None, *, now: str | None, json_output: bool, environ: Mapping[str, str] = os.environ
) -> int:
    from hz.commands.tick import parse_now
    from hz.ops import Context
    from hz.ops.models_why import WhyRequest
    from hz.ops.why import why as explain

    ctx = Context.here(environ, now=None if now is None else parse_now(now))
    data = explain(ctx, WhyRequest(contract=contract, slot=slot))["why"]
    if json_output:
        click.echo(json.dumps(data, indent=2, ensure_ascii=False))
    else:
        render(data, sys.stdout)
    return 0


def render(data: WhyData, out: TextIO) -> None:
    w = out.write
    slot = f" slot {data['slot']}" if data["slot"] else ""
    w(f"{data['contract']}{slot}: {data['verdict']}\n")
    roles = data["roles"]
    if roles["owner"]:
        delegates = ", ".join(roles["maintainers"]) or "none"
        mine = f"; you ({roles['me']}) are its {roles['my_role']}" if roles["my_role"] else ""
        w(f"  owner {roles['owner']} · delegates {delegates}{mine}\n")
    if (lease := data["lease"]) is not None:
        held = "held" if lease["held_now"] else lease["state"] if lease["state"] == "released" else "expired"
        copy = " (as last fetched)" if lease["fetched"] else ""
        w(f"  lease {held}{copy}: {lease['holder']} ({lease['role']}) token {lease['token']} for slot "
          f"{lease['slot']} until {lease['expires']}\n")  # fmt: skip
    if (grace := data["grace"]) is not None:
        w(f"  grace: the owner from {grace['owner_from']}, delegates and Actions from {grace['others_from']}\n")
    for upstream in data["upstream"]:
        waits = f"draft {upstream['pending_draft']} waits for approval" if upstream["pending_draft"] else "settled"
        w(f"  reads {upstream['contract']}: {waits}\n")
    for note in data["notes"]:
        w(f"  note: {note}\n")
