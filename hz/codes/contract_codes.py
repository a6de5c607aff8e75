"""The HZC codes: findings about contracts (`workflows/*.prose.md`), their playbook and their graph.

Stage 1 reads the frontmatter (YAML, schema, names, schedules, paths), stage 2 the Markdown body (its
sections against the frontmatter), stage 3 the contract among others (registries of actions, tools and
sources, policies, the graph of `contract:` inputs, layers). Each example is a set of files that
`hz workflow validate` reports the code for; they are variations of one clean contract, `BASE`
(`hz.codes.contract_example`). The codes are filed by number: `hz.codes.frontmatter_codes` (HZC0xx),
the amendment code here (HZC050), `body_codes` (HZC1xx) and `graph_codes` (HZC2xx, HZC3xx).
"""

from __future__ import annotations

from hz.codes.body_codes import BODY_CODES
from hz.codes.entry import Code
from hz.codes.frontmatter_codes import FRONTMATTER_CODES
from hz.codes.graph_codes import GRAPH_CODES

# The one code found outside `hz workflow validate`: an agent's amendment, when it is proposed.
AMENDMENT_CODES: tuple[Code, ...] = (
    Code(
        "HZC050",
        "an amendment that widens the contract",
        "error",
        "agent amendments",
        "An agent proposed an amendment to its own contract that reaches further than the approved version: "
        "a new input or source, a new target or publish, a new tool, a higher cost cap, more wakes, another "
        "approver. An agent may narrow or reword its contract, never widen it; the amendment is refused and "
        "recorded as `amendment.refused`.",
        (
            ("the approved contract (excerpt)", '  inputs:\n    history:\n      source: "git:."\n'),
            (
                "the agent's amendment (excerpt): a new input",
                '  inputs:\n    history:\n      source: "git:."\n    releases:\n      source: "feed:releases.xml"\n',
            ),
        ),
        "A person makes the change: edit the contract file (or `hz heinzel` with your approval), then the "
        "agent works under the wider contract.",
        proof="tests",
    ),
)

# In the order of the reference (`hz explain --list`, docs/codes.md): by number.
CODES: tuple[Code, ...] = FRONTMATTER_CODES + AMENDMENT_CODES + BODY_CODES + GRAPH_CODES
