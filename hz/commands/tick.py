"""`hz tick`: one deterministic tick, reported in one line per turn (or as JSON)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from hz.errors import EXIT_ERROR, EXIT_OK, HzError

# A pinned clock stays where date arithmetic has room on both sides: a tick looks back over input
# windows and schedules and forward to the next slot, and Python's dates end at the years 1 and 9999.
EARLIEST_NOW = datetime(1970, 1, 1, tzinfo=UTC)
LATEST_NOW = datetime(9000, 1, 1, tzinfo=UTC)


def parse_now(value: str) -> datetime:
    """The `--now` of a tick, as an aware time (UTC when it names no offset)."""
    example = "e.g. --now 2026-10-30T15:00Z"
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise HzError(f"--now {value!r} is not an ISO 8601 time", hint=example) from None
    moment = moment if moment.tzinfo else moment.replace(tzinfo=UTC)
    if not EARLIEST_NOW <= moment < LATEST_NOW:
        raise HzError(f"--now {value!r} is not between the years 1970 and 8999 (UTC)", hint=example)
    return moment


def repo_root(environ: Mapping[str, str] = os.environ) -> Path | None:
    """The repository the tick runs in, when it runs in one: drafts of its contracts go there."""
    from hz.errors import NotInRepository
    from hz.repo import find_root

    try:
        return find_root()
    except NotInRepository:
        return None


def run_tick_command(*, now: datetime | None, as_json: bool, environ: Mapping[str, str] = os.environ) -> int:
    from hz.secrets import scrub
    from hz.tick.daemon import tick

    report = tick(root=repo_root(environ), environ=environ, now=now)
    if as_json:
        import json

        text = json.dumps(report.to_json(), indent=2, sort_keys=True)
    else:
        text = "\n".join(render_report(report, environ))
    print(scrub(text, environ))  # an agent's error may quote a server, a CLI or a git remote
    # an agent hz could not work on is an error; a turn that failed is a result, shown in its line
    return EXIT_ERROR if any(e["action"] in {"error", "frozen"} for e in report.woken) else EXIT_OK


def render_report(report: object, environ: Mapping[str, str] = os.environ) -> list[str]:
    """The report's lines, scrubbed of the environment's secrets: `hz daemon run`, `hz heinzel chat` and
    `wake` print them too, and an agent's error may quote a server, a CLI or a git remote."""
    from hz.secrets import secrets_of
    from hz.spend import money
    from hz.tick.report import TickReport

    assert isinstance(report, TickReport)
    lines: list[str] = []
    for entry in report.woken:
        if entry["action"] in ("error", "warning"):
            lines.append(f"{entry['agent']}: {entry['action']}: {entry[entry['action']]}")
            continue
        if entry["action"] == "frozen":
            lines.extend([f"{entry['agent']}: frozen: {entry['reason']}", f"  hint: {entry['hint']}"])
            continue
        if entry["action"] == "not-owner":  # said once per agent: the next wakes are skipped silently
            said = f"{entry['agent']}: not run here: {entry['reason']} ({entry['detail']})"
            lines.extend([said, f"  hint: {entry['hint']}"])
            continue
        if entry["action"] == "queued":
            causes = ", ".join(entry["causes"])
            lines.append(f"{entry['agent']}: awake in another process; {causes} queued for its next turn")
            continue
        if (bookkept := _bookkeeping(entry)) is not None:
            lines.append(bookkept)
            continue
        what = entry.get("disposition") or entry.get("reason") or entry["action"]
        usd = f" {money.usd(entry['usd'])} USD" if entry.get("usd") else ""
        detail = f" ({entry['reason']})" if entry.get("reason") and entry.get("disposition") else ""
        why = f": {entry['error']}" if entry.get("error") else ""
        why = f": {money.cap_text(entry['cap'])}" if entry.get("cap") else why
        flagged = "".join(f"; flagged: {money.FLAGS[flag]}" for flag in entry.get("flags", ()))
        lines.append(f"{entry['agent']}: {entry['action']} -> {what}{detail}{usd}{why}{flagged}")
    named = {str(entry.get("agent")) for entry in report.woken}  # a skip's line says its reason already
    quiet = ("ran", "not-due", "unreached")  # said by a turn's own line, no news, or the fetch's error
    lines.extend(
        f"{d['contract']}: {d['state']}: {d['reason']}"
        for d in report.team
        if d["contract"] not in named and d["state"] not in quiet
    )
    lines.extend(f"{name}: deferred to the next tick (max_wakes_per_tick)" for name in report.deferred)
    lines.extend(f"{name}: busy in another process" for name in report.busy)
    if not lines:
        lines.append("nothing due")
    secrets = secrets_of(environ)
    return [secrets.scrub(line) for line in lines]


def _bookkeeping(entry: dict[str, Any]) -> str | None:
    """A line for a draft's fate (hz.review.approval_sweep, or the owner's spine taking a rejection over):
    which draft, approved by whom, or which publish. It is not a turn, so "action -> disposition" would
    only say the action twice."""
    if entry["action"] == "voided":  # an event file nobody can read: said by the first tick that meets it
        return f"{entry['agent']}: ignored {entry['path']}: {entry['error']}"
    if entry["action"] not in {"approved", "rejected", "superseded", "published"} or "key" not in entry:
        return None
    said = f"{entry['agent']}: {entry['key']}"
    if entry["action"] == "approved":
        share = round(100 * float(entry.get("share_changed", 0.0)))
        own = ", self-approved: the member whose agent drafted it" if entry.get("self_approved") else ""
        return f"{said} approved by {entry.get('approver', 'someone')} ({share}% of it changed{own})"
    if entry["action"] == "published":
        return f"{said} published: {entry['publish']} to {entry['target']} ({entry['status']})"
    by = f" by {entry['by']}" if entry.get("by") else ""
    return f"{said} {entry['action']}{by}"
