"""A frozen agent: its spine breaks in the middle, so nothing runs for it until the spine is repaired.

A break (a line changed by hand, garbled, or missing a field its kind needs) leaves the reader only the
lines before it. Acting on that shorter history would redo whatever the lost lines recorded as done:
every tick would run the same slot again, pay for it again and draft it again. So an agent whose spine
breaks gets no turn at all (no wake, no model call, no draft) and says why wherever it is shown, until
`hz heinzel repair` sets the untrusted tail aside (or the user restores the line).
"""

from __future__ import annotations

from typing import Any

from hz.errors import HzError


def frozen_reason(problem: str) -> str:
    """`problem` is `Problem.render()` of the break, as the index stores it: `seq 12: <what is wrong>`."""
    return f"its spine breaks at {problem}"


def repair_hint(name: str) -> str:
    return f"hz heinzel repair {name} sets the untrusted lines aside (or restore the line from a backup)"


class FrozenSpine(HzError):
    """A turn was about to start on a spine that breaks: refused, before anything is appended or spent."""

    def __init__(self, name: str, problem: str) -> None:
        super().__init__(f"{name} is frozen: {frozen_reason(problem)}", hint=repair_hint(name))
        self.name = name
        self.problem = problem

    def entry(self) -> dict[str, Any]:
        """The tick report's line for this agent."""
        return frozen_entry(self.name, self.problem)


def frozen_entry(name: str, problem: str) -> dict[str, Any]:
    return {"agent": name, "action": "frozen", "reason": frozen_reason(problem), "hint": repair_hint(name)}
