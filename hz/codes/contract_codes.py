"""The HZC codes: findings about contracts (`workflows/*.prose.md`), their playbook and their graph.

Stage 1 reads the frontmatter (YAML, schema, names, schedules, paths), stage 2 the Markdown body (its
sections against the frontmatter), stage 3 the contract among others (registries of actions, tools and
sources, policies, the graph of `contract:` inputs, layers). Each example is a set of files that
`hz workflow validate` reports the code for; they are variations of one clean contract, `BASE`.
"""

from __future__ import annotations

from hz.codes.entry import Code

BASE = """\
---
name: digest
kind: responsibility
description: Keeps a weekly digest of the repository's history.
hz:
  schema: 1
  title: Weekly digest
  owner: "@alice"
  scope: team
  schedule: "0 7 * * MON"
  inputs:
    history:
      source: "git:."
      window: 7d
  outputs:
    digest:
      target: "state:reports/digest.md"
      facets: [summary]
---

# Weekly digest

### Goal

The digest lists every commit of the past week.

### Requires

- `history`: the commits of the past seven days.

### Maintains

- `digest`: one Markdown page.

#### summary

Material: what changed.

### Done when

- [ ] every commit is listed once
"""

DIGEST = "workflows/digest.prose.md"


def variant(*swaps: tuple[str, str], text: str = BASE) -> str:
    """`text` with each (old, new) replaced once; the meta-test proves the result still raises its code."""
    for old, new in swaps:
        text = text.replace(old, new, 1)
    return text


def _one(text: str, path: str = DIGEST) -> tuple[tuple[str, str], ...]:
    return ((path, text),)


_SOURCE = ('      source: "git:."\n', '      source: "{}"\n')


def _reading(uri: str, text: str = BASE) -> str:
    return variant((_SOURCE[0], _SOURCE[1].format(uri)), text=text)


def _named(name: str, text: str = BASE) -> str:
    return variant(("name: digest", f"name: {name}"), text=text)


_PUBLISH = "  publishes:\n    - action: {}\n      output: digest\n      target: state:reports/digest-copy.md\n{}"
_OUTPUTS = "  outputs:\n"


def _publishing(action: str, extra: str = "") -> str:
    return variant((_OUTPUTS, _PUBLISH.format(action, extra) + _OUTPUTS))


STAGE1 = "stage 1: frontmatter"
STAGE2 = "stage 2: body"
STAGE3 = "stage 3: registries and graph"

CODES: tuple[Code, ...] = (
    Code(
        "HZC001",
        "no frontmatter, or YAML that does not parse",
        "error",
        STAGE1,
        "A contract starts with a `---` block of YAML (or a fenced ```yaml block) that hz reads as its "
        "frontmatter. The file has none, the YAML is broken, or it is not a mapping, so nothing else in it "
        "can be checked. The same code is used for a `workflows/_defaults.yaml` hz cannot read.",
        _one("# Weekly digest\n\n### Goal\n\nThe digest lists every commit of the past week.\n"),
        "Start the file with `---`, the frontmatter as YAML, and a closing `---`; the message names the line "
        "where the YAML stopped making sense. `hz workflow new NAME` writes a skeleton that validates.",
    ),
    Code(
        "HZC002",
        "the frontmatter does not match the schema",
        "error",
        STAGE1,
        "A key is missing, unknown, or holds a value of the wrong type or shape (a handle without `@`, a "
        "duration that is not `7d`, a list where one value belongs). The message names the key path.",
        _one(variant(('owner: "@alice"', "owner: alice"))),
        "Correct the value the message names; the JSON schema named in the hint lists every key and type.",
    ),
    Code(
        "HZC003",
        "the schema is newer than this hz",
        "error",
        STAGE1,
        "`hz.schema` names a version of the format this hz does not know, so it cannot tell what the keys "
        "mean. The contract was written for a newer hz.",
        _one(variant(("schema: 1", "schema: 9"))),
        "Update hz (`pip install -U` the package your team uses), or write `schema:` as a version this hz supports.",
    ),
    Code(
        "HZC004",
        "a duplicate or non-string key",
        "error",
        STAGE1,
        "A mapping repeats a key, or has a key that YAML reads as something other than text: YAML 1.1 reads "
        "a bare `on`, `yes` or `off` as a boolean, so `on:` silently becomes `true:`. hz refuses both rather "
        "than guess which value was meant.",
        _one(variant(("  scope: team\n", "  scope: team\n  scope: personal\n"))),
        "Keep one of the repeated keys; quote a key YAML would read as a boolean or number (`'on':`).",
    ),
    Code(
        "HZC010",
        "`name` differs from the file name",
        "error",
        STAGE1,
        "A contract's `name` is its identity and must equal its file's name without `.prose.md`, so the "
        "file a name resolves to is never in doubt.",
        _one(BASE, "workflows/weekly.prose.md"),
        "Rename the file to `NAME.prose.md`, or change `name:` to the file's stem.",
    ),
    Code(
        "HZC011",
        "an invalid schedule or time zone",
        "error",
        STAGE1,
        "`hz.schedule` is not a five-field cron expression hz can run (a field out of range, a date that "
        "never comes such as 30 February), or its `tz` is not an IANA zone known to this machine.",
        _one(variant(('schedule: "0 7 * * MON"', 'schedule: "0 25 * * MON"'))),
        "Write a cron expression with minute 0-59, hour 0-23, day 1-31, month 1-12 and weekday 0-7 or MON-SUN, "
        "and a zone such as `Europe/Berlin`.",
    ),
    Code(
        "HZC012",
        "an unknown publish action",
        "error",
        STAGE3,
        "`hz.publishes[].action` names an operation no installed module offers. The hint suggests the "
        "closest known action.",
        _one(_publishing("state.file.wrte")),
        "Use an action the registry knows (the hint's suggestion), or install the module that provides it.",
    ),
    Code(
        "HZC013",
        "a publish action that only reads",
        "error",
        STAGE3,
        "A publish writes somewhere once its draft is approved; the action named is a read-only operation, "
        "so publishing it would do nothing.",
        _one(_publishing("git.log.read")),
        "Name a write action (for example `state.file.write` or `github.issue.comment`), or move the read to "
        "`hz.tools` or an input.",
    ),
    Code(
        "HZC014",
        "an `hz:` tool that is unknown or writes",
        "error",
        STAGE3,
        "`hz.tools` lists what the agent may call while it thinks; an `hz:` tool must be a read-only "
        "operation hz knows. Writes go through drafts and `hz.publishes`, where a person approves them.",
        _one(variant((_OUTPUTS, '  tools: ["hz:state.file.write"]\n' + _OUTPUTS))),
        "List only read operations (`hz:git.log.read`); declare writes as `hz.publishes`.",
    ),
    Code(
        "HZC015",
        "no source provider for a scheme",
        "error",
        STAGE3,
        "An input's `source` starts with a scheme (`git:`, `file:`, `feed:`, …) that no installed source "
        "module reads, so the input could never be gathered.",
        _one(_reading("fed:items")),
        "Fix the scheme's spelling (the hint suggests one), or install the module that provides it.",
    ),
    Code(
        "HZC016",
        "`on` names an unknown input or facet",
        "error",
        STAGE1,
        "`hz.on` lists which inputs wake the contract (`input` or `input.facet`); an entry names an input "
        "the contract does not declare, or a facet that input does not list.",
        _one(variant((_OUTPUTS, "  on: [histroy]\n" + _OUTPUTS))),
        "Name a key of `hz.inputs` (and one of its `facets`), or drop `on` to wake on every input.",
    ),
    Code(
        "HZC017",
        "a team contract reads a personal source",
        "error",
        STAGE3,
        "A `scope: team` contract runs on whichever member's machine holds the lease, so it may only read "
        "what every member can see. A `file:` input or a personal mailbox exists on one machine only.",
        _one(_reading("file:notes/todo.md")),
        "Read the repository through `git:.` instead, or make the contract `scope: personal`.",
    ),
    Code(
        "HZC018",
        "an `auto_approve` request no policy grants",
        "warning",
        STAGE3,
        "A publish asks for `auto_approve: POLICY`, but `policies/auto-approve.toml` has no such policy, it "
        "has expired, or it does not cover this action and target. The contract still runs; its drafts "
        "wait for a person's approval.",
        _one(_publishing("state.file.write", "      auto_approve: digest-auto\n")),
        "Add or renew `[policy.NAME]` in `policies/auto-approve.toml` with a scope that covers the target, "
        "or drop `auto_approve`.",
    ),
    Code(
        "HZC019",
        "nothing wakes the contract",
        "warning",
        STAGE1,
        "The contract has neither a `schedule` nor any `inputs`, so no tick ever starts it on its own.",
        _one(
            variant(
                ('  schedule: "0 7 * * MON"\n', ""),
                ('  inputs:\n    history:\n      source: "git:."\n      window: 7d\n', ""),
                ("### Requires\n\n- `history`: the commits of the past seven days.\n\n", ""),
            )
        ),
        "Add `schedule:` or an input whose changes should wake it.",
    ),
    Code(
        "HZC020",
        "a broken discovery playbook",
        "error",
        "the playbook (workflows/_playbook.yaml)",
        "`workflows/_playbook.yaml` holds the team's hints for discovering new work. A hint lacks a key, "
        "has one hz does not know, or a wrong value (a name that is not a slug, a `match` outside the "
        "repository, a `why` over 200 characters).",
        (("workflows/_playbook.yaml", "hints:\n  - name: incidents\n    match: file:docs/incidents/*.md\n"),),
        "Give every hint `name`, `match` (a `file:` glob relative to the repository) and a one-line `why`.",
    ),
    Code(
        "HZC021",
        "a path outside the repository's rule",
        "error",
        STAGE1,
        "An output target or `file:` input must be a relative path inside the repository: no `..`, no "
        "absolute path, nothing under `.git`, and no committed link leading out of the repository.",
        _one(variant(('target: "state:reports/digest.md"', 'target: "file:.git/hooks/post-commit"'))),
        "Write the path relative to the repository root, below a folder of the repository's own files.",
    ),
    Code(
        "HZC022",
        "a source URI its scheme can never read",
        "error",
        STAGE3,
        "The scheme is known, but the rest of the URI has a shape its reader cannot use: `git:` reads a "
        "repository on disk, not a URL (`git:https://…`); `feed:` reads a file, not `feed://host/…`.",
        _one(_reading("git:https://example.invalid/team/repo.git")),
        "Use the form the hint shows: `git:.` or a path for a local repository, a path for a feed file.",
    ),
    Code(
        "HZC023",
        "a team contract without `id:` under `[state]`",
        "warning",
        STAGE3,
        "The repository's `hz.toml` has `[state]`, so team contracts run under leases named for their `id` "
        "and record receipts under it on `hz/state`. Without an `id` no tick ever takes the contract up.",
        (("hz.toml", "[state]\n"), (DIGEST, BASE)),
        "Add `id:` with a fresh 26-character ULID to the frontmatter; never copy another contract's id.",
    ),
    Code(
        "HZC024",
        "a bidi override or control character in contract text",
        "error",
        STAGE1,
        "A string of the frontmatter (the title, the description, any other) holds a character that "
        "reorders text or controls a terminal: a right-to-left override (U+202E), another bidi embedding, "
        "mark or isolate, or a control character other than a tab or a line end. The title reaches pull "
        "request titles and pages, where such a character makes it read as something it is not.",
        _one(variant(("title: Weekly digest", 'title: "Weekly digest \\u202Eexe.txt"'))),
        "Delete the character; YAML's escapes (`\\u202e`) count as the character they spell.",
    ),
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
    Code(
        "HZC101",
        "`### Goal` is missing or empty",
        "error",
        STAGE2,
        "Every contract states its goal, the state the world is in when the work is done, under `### Goal`.",
        _one(variant(("### Goal\n\nThe digest lists every commit of the past week.\n\n", ""))),
        "Add `### Goal` with one sentence that describes the finished state.",
    ),
    Code(
        "HZC102",
        "the goal is not one sentence about a state",
        "warning",
        STAGE2,
        "A goal reads best as one sentence describing a state (`The digest lists …`). Several sentences, or "
        "one that starts with a verb of activity (`Write …`, `Update …`), usually describe steps instead.",
        _one(variant(("The digest lists every commit", "Write a digest of every commit"))),
        "Rewrite the goal as one sentence about what is true when the work is done; move steps elsewhere.",
    ),
    Code(
        "HZC103",
        "frontmatter and body disagree on inputs or outputs",
        "error",
        STAGE2,
        "Each key of `hz.inputs` needs an item under `### Requires`, each key of `hz.outputs` one under "
        "`### Maintains` (written `` - `name`: … ``), and every such item must name a declared key.",
        _one(variant(("- `history`: the commits of the past seven days.", "- the commits of the past week."))),
        "Add the missing `` - `name`: … `` item, or remove the key from the frontmatter.",
    ),
    Code(
        "HZC104",
        "output facets differ from the body's headings",
        "error",
        STAGE2,
        "An output's `facets` must be the `####` headings under its item in `### Maintains`, in the same "
        "order: they are the parts downstream contracts read.",
        _one(variant(("#### summary", "#### overview"))),
        "Make the `####` headings and the `facets` list the same names in the same order.",
    ),
    Code(
        "HZC105",
        "an unknown or repeated section",
        "warning",
        STAGE2,
        "A `###` section hz does not know is kept and passed to the agent as written; a known section that "
        "appears twice counts only the first time; sections written one level too high are named too.",
        _one(variant(("### Done when", "### Notes\n\nAsk @bob about release weeks.\n\n### Done when"))),
        "Rename the section to a known one if that was meant; otherwise leave it, or merge the repeats.",
    ),
    Code(
        "HZC106",
        "an OpenProse section hz does not support",
        "error",
        STAGE2,
        "`### Criteria` and `### Execution` belong to retired or unsupported OpenProse forms; hz would "
        "silently ignore what they say.",
        _one(variant(("### Done when", "### Criteria\n\n- every commit is listed\n\n### Done when"))),
        "Move criteria into `### Done when` as checklist items; leave the execution to the agent.",
    ),
    Code(
        "HZC107",
        "`### Done when` is missing or has no items",
        "error",
        STAGE2,
        "`### Done when` lists checks (`- [ ] …`) that must all hold before a draft is offered; without "
        "them the agent cannot tell when it is finished.",
        _one(variant(("- [ ] every commit is listed once\n", "Whenever it looks right.\n"))),
        "Add at least one `- [ ] …` item under `### Done when`.",
    ),
    Code(
        "HZC201",
        "a cycle among contracts",
        "error",
        STAGE3,
        "Contracts read each other through `contract:` inputs in a circle, so none can go first. Every "
        "contract on the cycle is disabled, and so is every contract that reads one of them.",
        (
            ("workflows/digest.prose.md", _reading("contract:team/notes#summary")),
            ("workflows/notes.prose.md", _named("notes", _reading("contract:team/digest#summary"))),
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
        _one(_reading("contract:team/nowhere#summary")),
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
            ("workflows/notes.prose.md", _named("notes", variant(("scope: team", "scope: personal")))),
            ("workflows/digest.prose.md", _reading("contract:team/notes#summary")),
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
