"""The test files that take longest are handed to the xdist workers first.

With `--dist loadfile` each file is one unit of work, given out in the order of the collection; xdist's
default (`--loadscope-reorder`) sorts the units by their number of tests, largest first, which put the
files of one or two long tests (the team soak, the pre-commit build, the review loop) at the very end of
the run, where one worker went on alone for a minute or two while the others had finished. The pytest
options turn that sorting off (`--no-loadscope-reorder`) and this puts the long files first instead, so
the last units given out are short ones.

HEAVY lists the files CI measured slowest, longest first; a file missing from it only starts in its
place in the collection, and a file listed but gone is ignored. Files with a `slow` test come next.
"""

from __future__ import annotations

import pytest

HEAVY = (
    "tests/turn/test_team_soak.py",
    "tests/spend/test_attack_crash_points.py",
    "tests/e2e/test_team_guarded.py",
    "tests/review/test_approval_outsiders.py",
    "tests/compile/test_init_precommit_hooks.py",
    "tests/review/test_review_loop.py",
    "tests/gitstate/test_long_lease_chain.py",
    "tests/gitstate/test_event_shapes.py",
    "tests/spend/test_attack_sentence.py",
    "tests/review/test_forge_hostile_tick.py",
    "tests/review/test_idempotency_template.py",
    "tests/spend/test_attack_resume.py",
    "tests/review/test_team_amend.py",
    "tests/turn/test_team_downstream_once.py",
    "tests/e2e/test_team_guide.py",
    "tests/review/test_team_wake.py",
    "tests/turn/test_team_downstream.py",
    "tests/review/test_lessons_placed_elsewhere.py",
    "tests/turn/test_no_state_owner_only.py",
    "tests/gitstate/test_lint_property.py",
)


def order(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Reorder `items` in place: the HEAVY files in their order, then files with a `slow` test, then the
    rest as collected; the tests of one file keep their order and stay together."""
    rank = {name: i for i, name in enumerate(HEAVY)}
    slow = {item.path for item in items if item.get_closest_marker("slow") is not None}
    root = config.rootpath

    def key(item: pytest.Item) -> tuple[int, int]:
        try:
            name = item.path.relative_to(root).as_posix()
        except ValueError:
            name = ""
        if name in rank:
            return (0, rank[name])
        return (1, 0) if item.path in slow else (2, 0)

    items.sort(key=key)  # stable: the rest keeps the collection's order
