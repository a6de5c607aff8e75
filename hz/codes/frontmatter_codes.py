"""The HZC0xx codes: findings about a contract's frontmatter, its YAML, schema, names, schedules, paths
and the registries its fields name (publish actions, tools, source providers, policies)."""

from __future__ import annotations

from hz.codes.contract_example import BASE, DIGEST, OUTPUTS, STAGE1, STAGE3, one, publishing, reading, variant
from hz.codes.entry import Code

FRONTMATTER_CODES: tuple[Code, ...] = (
    Code(
        "HZC001",
        "no frontmatter, or YAML that does not parse",
        "error",
        STAGE1,
        "A contract starts with a `---` block of YAML (or a fenced ```yaml block) that hz reads as its "
        "frontmatter. The file has none, the YAML is broken, or it is not a mapping, so nothing else in it "
        "can be checked. The same code is used for a `workflows/_defaults.yaml` hz cannot read.",
        one("# Weekly digest\n\n### Goal\n\nThe digest lists every commit of the past week.\n"),
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
        one(variant(('owner: "@alice"', "owner: alice"))),
        "Correct the value the message names; the JSON schema named in the hint lists every key and type.",
    ),
    Code(
        "HZC003",
        "the schema is newer than this hz",
        "error",
        STAGE1,
        "`hz.schema` names a version of the format this hz does not know, so it cannot tell what the keys "
        "mean. The contract was written for a newer hz.",
        one(variant(("schema: 1", "schema: 9"))),
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
        one(variant(("  scope: team\n", "  scope: team\n  scope: personal\n"))),
        "Keep one of the repeated keys; quote a key YAML would read as a boolean or number (`'on':`).",
    ),
    Code(
        "HZC010",
        "`name` differs from the file name",
        "error",
        STAGE1,
        "A contract's `name` is its identity and must equal its file's name without `.prose.md`, so the "
        "file a name resolves to is never in doubt.",
        one(BASE, "workflows/weekly.prose.md"),
        "Rename the file to `NAME.prose.md`, or change `name:` to the file's stem.",
    ),
    Code(
        "HZC011",
        "an invalid schedule or time zone",
        "error",
        STAGE1,
        "`hz.schedule` is not a five-field cron expression hz can run (a field out of range, a date that "
        "never comes such as 30 February), or its `tz` is not an IANA zone known to this machine.",
        one(variant(('schedule: "0 7 * * MON"', 'schedule: "0 25 * * MON"'))),
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
        one(publishing("state.file.wrte")),
        "Use an action the registry knows (the hint's suggestion), or install the module that provides it.",
    ),
    Code(
        "HZC013",
        "a publish action that only reads",
        "error",
        STAGE3,
        "A publish writes somewhere once its draft is approved; the action named is a read-only operation, "
        "so publishing it would do nothing.",
        one(publishing("git.log.read")),
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
        one(variant((OUTPUTS, '  tools: ["hz:state.file.write"]\n' + OUTPUTS))),
        "List only read operations (`hz:git.log.read`); declare writes as `hz.publishes`.",
    ),
    Code(
        "HZC015",
        "no source provider for a scheme",
        "error",
        STAGE3,
        "An input's `source` starts with a scheme (`git:`, `file:`, `feed:`, …) that no installed source "
        "module reads, so the input could never be gathered.",
        one(reading("fed:items")),
        "Fix the scheme's spelling (the hint suggests one), or install the module that provides it.",
    ),
    Code(
        "HZC016",
        "`on` names an unknown input or facet",
        "error",
        STAGE1,
        "`hz.on` lists which inputs wake the contract (`input` or `input.facet`); an entry names an input "
        "the contract does not declare, or a facet that input does not list.",
        one(variant((OUTPUTS, "  on: [histroy]\n" + OUTPUTS))),
        "Name a key of `hz.inputs` (and one of its `facets`), or drop `on` to wake on every input.",
    ),
    Code(
        "HZC017",
        "a team contract reads a personal source",
        "error",
        STAGE3,
        "A `scope: team` contract runs on whichever member's machine holds the lease, so it may only read "
        "what every member can see. A `file:` input or a personal mailbox exists on one machine only.",
        one(reading("file:notes/todo.md")),
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
        one(publishing("state.file.write", "      auto_approve: digest-auto\n")),
        "Add or renew `[policy.NAME]` in `policies/auto-approve.toml` with a scope that covers the target, "
        "or drop `auto_approve`.",
    ),
    Code(
        "HZC019",
        "nothing wakes the contract",
        "warning",
        STAGE1,
        "The contract has neither a `schedule` nor any `inputs`, so no tick ever starts it on its own.",
        one(
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
        one(variant(('target: "state:reports/digest.md"', 'target: "file:.git/hooks/post-commit"'))),
        "Write the path relative to the repository root, below a folder of the repository's own files.",
    ),
    Code(
        "HZC022",
        "a source URI its scheme can never read",
        "error",
        STAGE3,
        "The scheme is known, but the rest of the URI has a shape its reader cannot use: `git:` reads a "
        "repository on disk, not a URL (`git:https://…`); `feed:` reads a file, not `feed://host/…`.",
        one(reading("git:https://example.invalid/team/repo.git")),
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
        one(variant(("title: Weekly digest", 'title: "Weekly digest \\u202Eexe.txt"'))),
        "Delete the character; YAML's escapes (`\\u202e`) count as the character they spell.",
    ),
)
