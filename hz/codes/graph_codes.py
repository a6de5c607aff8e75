"""The HZC2xx and HZC3xx codes: findings about a contract among others, the graph of `contract:` inputs
and the layers (team, module, personal) a name may live in."""

from __future__ import annotations

from hz.codes.contract_example import BASE, STAGE3, named, one, reading, variant
from hz.codes.entry import Code

GRAPH_CODES: tuple[Code, ...] = (
    Code(
        "HZC201",
        "a cycle among contracts",
        "error",
        STAGE3,
        "Contracts read each other through `contract:` inputs in a circle, so none can go first. Every "
        "contract on the cycle is disabled, and so is every contract that reads one of them.",
        (
            ("workflows/digest.prose.md", reading("contract:team/notes#summary")),
            ("workflows/notes.prose.md", named("notes", reading("contract:team/digest#summary"))),
        ),
        "Remove one `contract:` input of the cycle; a contract that reads itself keeps that input out of `hz.on`.",
    ),
    Code(
        "HZC202",
        "a `contract:` input that cannot be read",
        "error",
        STAGE3,
        "A `contract:` input names a contract that does not exist, a facet its output does not declare, or "
        "a contract that does not compile (then this one is disabled until that one is fixed).",
        one(reading("contract:team/nowhere#summary")),
        "Fix the name or facet (the hint suggests the closest), or fix the upstream contract first.",
    ),
    Code(
        "HZC203",
        "a team contract reads a personal contract",
        "error",
        STAGE3,
        "A `scope: team` contract may not depend on a `scope: personal` one: the personal contract's output "
        "exists only on its owner's machine.",
        (
            ("workflows/notes.prose.md", named("notes", variant(("scope: team", "scope: personal")))),
            ("workflows/digest.prose.md", reading("contract:team/notes#summary")),
        ),
        "Make the upstream contract `scope: team`, or the reading contract `scope: personal`.",
    ),
    Code(
        "HZC301",
        "the same name in two layers without `overrides`",
        "error",
        STAGE3,
        "A personal contract (in your config home, or a project's `.heinzel/workflows/`) has the name of a "
        "team or module contract. A bare name would then mean two things; the local one is refused.",
        (
            ("workflows/digest.prose.md", BASE),
            ("$HZ_CONFIG_HOME/workflows/digest.prose.md", variant(("scope: team", "scope: personal"))),
        ),
        "Rename the local contract, or declare `hz.overrides: team:NAME` where overriding is allowed.",
    ),
    Code(
        "HZC302",
        "a local contract declares `scope: team`",
        "error",
        STAGE3,
        "Only the team repository's `workflows/` holds team contracts; a contract in your config home or a "
        "project's `.heinzel/workflows/` runs for you alone.",
        (("$HZ_CONFIG_HOME/workflows/digest.prose.md", BASE),),
        "Set `scope: personal`, or move the contract into the team repository's `workflows/`.",
    ),
)
