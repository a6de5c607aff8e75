"""The HZC1xx codes: findings about a contract's Markdown body, its sections against the frontmatter."""

from __future__ import annotations

from hz.codes.contract_example import STAGE2, one, variant
from hz.codes.entry import Code

BODY_CODES: tuple[Code, ...] = (
    Code(
        "HZC101",
        "`### Goal` is missing or empty",
        "error",
        STAGE2,
        "Every contract states its goal, the state the world is in when the work is done, under `### Goal`.",
        one(variant(("### Goal\n\nThe digest lists every commit of the past week.\n\n", ""))),
        "Add `### Goal` with one sentence that describes the finished state.",
    ),
    Code(
        "HZC102",
        "the goal is not one sentence about a state",
        "warning",
        STAGE2,
        "A goal reads best as one sentence describing a state (`The digest lists …`). Several sentences, or "
        "one that starts with a verb of activity (`Write …`, `Update …`), usually describe steps instead.",
        one(variant(("The digest lists every commit", "Write a digest of every commit"))),
        "Rewrite the goal as one sentence about what is true when the work is done; move steps elsewhere.",
    ),
    Code(
        "HZC103",
        "frontmatter and body disagree on inputs or outputs",
        "error",
        STAGE2,
        "Each key of `hz.inputs` needs an item under `### Requires`, each key of `hz.outputs` one under "
        "`### Maintains` (written `` - `name`: … ``), and every such item must name a declared key.",
        one(variant(("- `history`: the commits of the past seven days.", "- the commits of the past week."))),
        "Add the missing `` - `name`: … `` item, or remove the key from the frontmatter.",
    ),
    Code(
        "HZC104",
        "output facets differ from the body's headings",
        "error",
        STAGE2,
        "An output's `facets` must be the `####` headings under its item in `### Maintains`, in the same "
        "order: they are the parts downstream contracts read.",
        one(variant(("#### summary", "#### overview"))),
        "Make the `####` headings and the `facets` list the same names in the same order.",
    ),
    Code(
        "HZC105",
        "an unknown or repeated section",
        "warning",
        STAGE2,
        "A `###` section hz does not know is kept and passed to the agent as written; a known section that "
        "appears twice counts only the first time; sections written one level too high are named too.",
        one(variant(("### Done when", "### Notes\n\nAsk @bob about release weeks.\n\n### Done when"))),
        "Rename the section to a known one if that was meant; otherwise leave it, or merge the repeats.",
    ),
    Code(
        "HZC106",
        "an OpenProse section hz does not support",
        "error",
        STAGE2,
        "`### Criteria` and `### Execution` belong to retired or unsupported OpenProse forms; hz would "
        "silently ignore what they say.",
        one(variant(("### Done when", "### Criteria\n\n- every commit is listed\n\n### Done when"))),
        "Move criteria into `### Done when` as checklist items; leave the execution to the agent.",
    ),
    Code(
        "HZC107",
        "`### Done when` is missing or has no items",
        "error",
        STAGE2,
        "`### Done when` lists checks (`- [ ] …`) that must all hold before a draft is offered; without "
        "them the agent cannot tell when it is finished.",
        one(variant(("- [ ] every commit is listed once\n", "Whenever it looks right.\n"))),
        "Add at least one `- [ ] …` item under `### Done when`.",
    ),
)
