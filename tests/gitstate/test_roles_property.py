"""The hook's role rule agrees with the role the turn engine claims (Identity.role_for) for any team."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from hz.gitstate.identity import Identity
from hz.gitstate.lint_contracts import role_problem
from hz.gitstate.main_declared import Declared
from hz.gitstate.main_declared import declared as _read

HANDLES = st.sampled_from(["@ann", "@bob", "@eve", "@Ann", "@a-1"])
NAMES = st.sampled_from(["@ann", "@bob", "@eve", "@Ann", "@a-1", "ann", "@acme/platform", "@bob/"])
"""What a contract may write as owner or maintainer: members, with or without the @, and teams."""
ROLES = ("owner", "delegate", "actions")


@given(handle=HANDLES, owner=NAMES, maintainers=st.frozensets(NAMES, max_size=3))
def test_a_member_may_hold_what_the_engine_claims_and_nothing_it_would_not(
    handle: str, owner: str, maintainers: frozenset[str]
) -> None:
    """A team as owner or maintainer makes nobody that role, in the engine (no error) as in the hook."""
    me = Identity(f"{handle}/m-0000000a", handle, False, "m-0000000a")
    declared = _declared(owner, maintainers)
    claimed = me.role_for(owner, tuple(sorted(maintainers)))
    allowed = {role for role in ROLES if role_problem(declared, me.holder, role) is None}
    if claimed is None:
        assert allowed == set()
    else:
        assert claimed in allowed
        assert allowed <= {"owner", "delegate"}


@given(run=st.integers(min_value=0, max_value=10**20 - 1), owner=NAMES, maintainers=st.frozensets(NAMES))
def test_an_actions_run_holds_as_actions_only(run: int, owner: str, maintainers: frozenset[str]) -> None:
    me = Identity(f"actions:{run}", None, True)
    declared = _declared(owner, maintainers)
    assert me.role_for(owner, tuple(maintainers)) == "actions"
    assert {role for role in ROLES if role_problem(declared, me.holder, role) is None} == {"actions"}


def _declared(owner: str, maintainers: frozenset[str]) -> Declared:
    """What the hook reads from a contract with this owner and these maintainers (hz.gitstate.lint_contracts)."""
    text = f"---\nid: X\nhz:\n  owner: {json.dumps(owner)}\n  maintainers: {json.dumps(sorted(maintainers))}\n---\n"
    found = _read(text)
    assert found is not None
    return found[1]
