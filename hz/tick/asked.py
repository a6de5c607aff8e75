"""Markers for messages the tick must look at: `<store root>/.asked/<agent id>@<request id>`.

A chat message goes to the agent's inbox first; when no turn of this process takes it in (the agent was
awake in another process, or this process died), it would wait for that agent's next turn. So the
writer leaves one empty marker file per request, after the inbox file and before trying the lock, and
removes it once the spine took the request in. The idle tick lists this one folder (usually empty or
absent), which costs one system call however many agents there are. Markers hold no text.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from hz.fsio import private_dir

ASKED = ".asked"  # not `hz-…`, so the index never mistakes it for a spine


def mark(store_root: Path, agent_id: str, request_id: str) -> None:
    folder = private_dir(store_root / ASKED)
    flags = os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC
    os.close(os.open(folder / f"{agent_id}@{request_id}", flags, 0o600))


def marked(store_root: Path) -> list[dict[str, str]]:
    """Every marker as {agent, request_id}, in name order; one directory listing."""
    try:
        names = sorted(os.listdir(os.path.join(store_root, ASKED)))
    except (FileNotFoundError, NotADirectoryError):
        return []
    found: list[dict[str, str]] = []
    for name in names:
        agent, sep, request_id = name.partition("@")
        if sep and agent and request_id:
            found.append({"agent": agent, "request_id": request_id})
    return found


def unmark(store_root: Path, agent_id: str, request_ids: Iterable[str]) -> None:
    for request_id in request_ids:
        (store_root / ASKED / f"{agent_id}@{request_id}").unlink(missing_ok=True)
