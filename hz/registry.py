"""What this package can read and do: the registry that stage 3 of validation resolves against.

Source schemes map to the module holding their adapter (imported only when a source is fetched).
Operations are named `<module>.<noun>.<verb>`; a publish action must be a write operation and an
`hz:` tool must be a read-only one.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SourceScheme:
    scheme: str
    module: str  # dotted path of the adapter module
    personal: bool  # reads something only the user's own machine has (HZC017 for team contracts)


@dataclass(frozen=True)
class Operation:
    name: str
    read_only: bool


SOURCE_SCHEMES: dict[str, SourceScheme] = {
    s.scheme: s
    for s in (
        SourceScheme("file", "hz.sources.file", personal=True),
        SourceScheme("git", "hz.sources.git", personal=False),
        SourceScheme("feed", "hz.sources.feed", personal=False),
        SourceScheme("contract", "hz.sources.contract", personal=False),
        SourceScheme("github", "hz.sources.github", personal=False),
        SourceScheme("jira", "hz.sources.jira", personal=False),
    )
}

OPERATIONS: dict[str, Operation] = {
    op.name: op
    for op in (
        # writes: usable as publish actions, only after approval
        Operation("state.file.write", read_only=False),
        Operation("github.pull.create", read_only=False),
        Operation("github.issue.comment", read_only=False),
        Operation("jira.issue.comment", read_only=False),
        # reads: usable as hz: tools during a turn
        Operation("git.log.read", read_only=True),
        Operation("file.text.read", read_only=True),
        Operation("feed.item.list", read_only=True),
        Operation("github.pull.list", read_only=True),
        Operation("github.issue.list", read_only=True),
        Operation("jira.issue.search", read_only=True),
        Operation("contract.output.read", read_only=True),
    )
}

# Output target schemes hz can draft into (`state:<path>` on main through a hz/draft branch).
TARGET_SCHEMES: frozenset[str] = frozenset({"state", "file"})
