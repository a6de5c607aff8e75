"""The hook's role rule agrees with the role the turn engine claims (Identity.role_for) for any team."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from hz.gitstate.identity import Identity
from hz.gitstate.lint_contracts import Declared, role_problem

HANDLES = st.sampled_from(["@ann", "@bob", "@eve", "@Ann", "@a-1"])
ROLES = ("owner", "delegate", "actions")


@given(handle=HANDLES, owner=HANDLES, maintainers=st.frozensets(HANDLES, max_size=3))
def test_a_member_may_hold_what_the_engine_claims_and_nothing_it_would_not(
    handle: str, owner: str, maintainers: frozenset[str]
) -> None:
    me = Identity(f"{handle}/m-0000000a", handle, False, "m-0000000a")
    declared = Declared(frozenset(), {}, owner, maintainers)
    claimed = me.role_for(owner, tuple(sorted(maintainers)))
    allowed = {role for role in ROLES if role_problem(declared, me.holder, role) is None}
    if claimed is None:
        assert allowed == set()
    else:
        assert claimed in allowed
        assert allowed <= {"owner", "delegate"}


@given(run=st.integers(min_value=0, max_value=10**20 - 1), owner=HANDLES, maintainers=st.frozensets(HANDLES))
def test_an_actions_run_holds_as_actions_only(run: int, owner: str, maintainers: frozenset[str]) -> None:
    me = Identity(f"actions:{run}", None, True)
    declared = Declared(frozenset(), {}, owner, maintainers)
    assert me.role_for(owner, tuple(maintainers)) == "actions"
    assert {role for role in ROLES if role_problem(declared, me.holder, role) is None} == {"actions"}
