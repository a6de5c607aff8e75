"""A child process that runs one approved draft's publishes: `python -m tests.review.publish_child ARGS.json`.

ARGS: root, draft_key, output, text, publishes [[action, output, target]], outbox (a folder), environ,
forge (true: the forge the environment names).
Each publish.done goes to a real outbox (hz.gitstate.outbox), as a tick queues it for hz/state.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from hz.gitstate.events import PublishDone
from hz.gitstate.outbox import Outbox
from hz.review.forge import forge_for
from hz.review.publish import PublishContext, done_event, done_keys, run_publishes


@dataclass(frozen=True)
class Spec:
    action: str
    output: str
    target: str


def queue_to(outbox: Outbox) -> object:
    def record(done: PublishDone) -> None:
        lease = done.draft_key.split("@", 1)[0]
        outbox.put([done_event(done, ts=datetime.now(UTC), lease=lease, token=1)])

    return record


def main(path: str) -> None:
    args = json.loads(Path(path).read_text())
    outbox = Outbox(Path(args["outbox"]))
    ctx = PublishContext(
        root=Path(args["root"]),
        draft_key=args["draft_key"],
        output=args["output"],
        text=args["text"],
        publishes=[Spec(*p) for p in args["publishes"]],
        record=queue_to(outbox),  # type: ignore[arg-type]
        environ=args["environ"],
        forge=forge_for(Path(args["root"]), args["environ"]) if args.get("forge") else None,
        done=done_keys(outbox.events()),
    )
    results = run_publishes(ctx)
    if ctx.forge is not None:
        ctx.forge.close()  # type: ignore[attr-defined]
    print(json.dumps([r.status for r in results]))


if __name__ == "__main__":
    main(sys.argv[1])
