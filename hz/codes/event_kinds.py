"""The event kinds: what each records, its payload's fields, and where it lives.

Two stores use event kinds. The spine (`<agent dir>/session.jsonl` under `$HZ_HOME`) is one agent's
private, hash-chained log of everything it did; its kinds are in `hz.session.kinds`. `hz/state` is the
team's branch of textless receipts, one event per file; its kinds are in `hz.gitstate.events`. Some
names exist in both with different payloads: the receipt is the few facts a team may share. The field
lists here are checked against the payload models by tests/test_codes_catalog.py.
"""

from __future__ import annotations

from hz.codes.entry import Kind

_TURN_STATE = ("turn", "cause", "causes?", "keys", "contract_version", "contract_fp", "token", "role")
_ENDED_STATE = (
    "turn",
    "cause",
    "causes?",
    "keys",
    "disposition",
    "reason?",
    "moved?",
    "cost_usd?",
    "tokens?",
    "tokens_cached?",
    "duration_s?",
    "contract_fp?",
    "input_fps?",
    "draft_hash?",
)

SPINE: tuple[Kind, ...] = (
    Kind(
        "turn.started",
        "spine",
        "A turn began: why (its causes and idempotency keys), under which contract version, with which skills "
        "and lessons, and, for a retry or resume, which turn and step it continues.",
        (
            "cause",
            "causes?",
            "keys?",
            "contract_version",
            "skills?",
            "lessons_seq?",
            "vocabulary?",
            "parent_turn?",
            "from_step?",
            "hint?",
            "lease_token?",
        ),
    ),
    Kind(
        "turn.step",
        "spine",
        "A checkpoint: one of the turn's steps (gather, think, outcome, act, finish) is done. What it "
        "produced is referenced by hash, never copied in; a crashed turn resumes after its last step.",
        ("step", "inputs?", "outcome?", "body_ref?", "tokens?", "tokens_cached?", "usd?"),
    ),
    Kind("turn.waiting", "spine", "The turn paused at a step until a time or an event.", ("step", "until?", "on?")),
    Kind(
        "turn.resumed",
        "spine",
        "A waiting turn went on, and what woke it (a timer, a source, an approval, an answer).",
        ("woken_by", "step?"),
    ),
    Kind(
        "turn.steered",
        "spine",
        "The user steered a running turn; the steering text is stored in a turn body and named by hash.",
        ("request_id", "hash"),
    ),
    Kind(
        "turn.requested", "spine", "A turn was asked for (by the user or a cause) before it started.", ("cause", "key")
    ),
    Kind(
        "turn.skipped",
        "spine",
        "A due turn did not run: nothing it reads moved, a check or `Done when` was unmet, or a cap or "
        "throttle held it back. Records what was looked at and when it is next due.",
        ("causes", "keys", "reason", "moved?", "inputs?", "usd?", "next_due?", "cap?"),
    ),
    Kind(
        "turn.finished",
        "spine",
        "A turn ended with its disposition (drafted, asked, learned, proposed, skipped, failed, abandoned): "
        "cost, tokens, duration, the fingerprints it worked from, its output's hash and its report line. Its "
        "`usd` is every request the turn paid for, across waits, crashes and resumes (the spend ledger's sum); "
        "`duration_s` is its own running time: waits and the time a killed process lay dead are left out.",
        (
            "disposition",
            "reason?",
            "cause",
            "causes?",
            "usd?",
            "tokens?",
            "tokens_cached?",
            "duration_s?",
            "contract_version?",
            "contract_fingerprint?",
            "inputs?",
            "output_hash?",
            "body_ref?",
            "report?",
            "step?",
            "error?",
            "next_due?",
            "cap?",
            "flags?",
        ),
    ),
    Kind(
        "effect.started",
        "spine",
        "An effect with a side outside hz (a write, a publish) is about to run.",
        ("key", "effect"),
    ),
    Kind("effect.done", "spine", "The effect ran; the hash of what it wrote, when there is one.", ("key", "hash?")),
    Kind("effect.failed", "spine", "The effect failed, and the error it failed with.", ("key", "error")),
    Kind(
        "draft.placed",
        "spine",
        "A draft of an output was written for review: its key, asset, hash, contract version and where it "
        "was placed (a file, a branch).",
        ("key", "asset", "hash", "contract_version", "place?"),
    ),
    Kind(
        "approval.observed",
        "spine",
        "hz saw what became of a draft: approved (by whom, how much of it the approver changed) or not.",
        ("key", "decision", "approver?", "share_changed?", "output_fp?"),
    ),
    Kind(
        "lesson.recorded",
        "spine",
        "The agent learned a lesson (one sentence), possibly from the edits an approver made to a draft.",
        ("lesson_id", "sentence", "hunks?", "approval_key?"),
    ),
    Kind(
        "lesson.dismissed", "spine", "The user dismissed a lesson; it is no longer given to the agent.", ("lesson_id",)
    ),
    Kind("question.asked", "spine", "The agent asked the user a question instead of guessing.", ("key", "question")),
    Kind(
        "question.answered",
        "spine",
        "The user answered a question; the answer is in a turn body, named by hash.",
        ("key", "request_id?", "hash?"),
    ),
    Kind(
        "context.edit",
        "spine",
        "An edit to the context the agent is given (a target and its replacement).",
        ("target", "replacement?"),
    ),
    Kind(
        "usage",
        "spine",
        "Tokens and money spent on housekeeping outside a turn (writing a summary, a lesson, a handoff).",
        ("kind", "tokens?", "tokens_cached?", "usd?"),
    ),
    Kind(
        "summary.written",
        "spine",
        "A summary in a fixed shape (wants, decisions, open questions, next deadline, sources) that lets "
        "older turns be folded away; summaries chain through `previous_seq`.",
        (
            "asset",
            "wants",
            "decisions?",
            "open_questions?",
            "next_deadline?",
            "sources?",
            "previous_seq?",
            "kept_turns?",
        ),
    ),
    Kind(
        "amendment.proposed",
        "spine",
        "The agent or the user proposed a change to the contract, against a base version, and what it widens; "
        "for a team contract, the draft branch its review waits on.",
        (
            "amendment_id",
            "by",
            "base_version",
            "contract_fingerprint",
            "source_fingerprint",
            "sentence?",
            "widens?",
            "place?",
        ),
    ),
    Kind(
        "amendment.refused",
        "spine",
        "An agent's amendment was refused because it widens the contract (HZC050), and which keys it widened.",
        ("amendment_id", "code?", "widens"),
    ),
    Kind("amendment.declined", "spine", "The user declined a proposed amendment.", ("amendment_id",)),
    Kind(
        "contract.amended",
        "spine",
        "An approved amendment became the contract's next version, with its fingerprints, assets and inputs.",
        (
            "version",
            "amendment_id",
            "contract_fingerprint",
            "source_fingerprint",
            "assets?",
            "inputs?",
            "by?",
            "next_due?",
        ),
    ),
    Kind(
        "heinzel.created",
        "spine",
        "The agent was created: its id, name, namespace, owner's handle, and whether it came from a file, a "
        "sentence or adoption in a repository.",
        ("agent_id", "name", "namespace", "handle?", "origin", "source?", "repository?"),
    ),
    Kind(
        "heinzel.bound",
        "spine",
        "An agent adopted before repositories were recorded (or before the first commit) was bound to the "
        "repository a tick found it in.",
        ("root?", "remote?", "path?"),
    ),
    Kind("heinzel.renamed", "spine", "The agent got a new name.", ("name", "previous")),
    Kind(
        "heinzel.paused", "spine", "The agent was paused, by the user or because pinned content changed.", ("reason?",)
    ),
    Kind("heinzel.unpaused", "spine", "The agent runs again, and when it is next due.", ("next_due?",)),
    Kind("heinzel.retired", "spine", "The agent was retired; it no longer runs.", ()),
    Kind("heinzel.unretired", "spine", "A retired agent was brought back, and when it is next due.", ("next_due?",)),
    Kind(
        "contract.proposed",
        "spine",
        "Version 1 of the contract was compiled and shown to the user; the agent waits for its approval.",
        ("version?", "name", "contract_fingerprint", "source_fingerprint", "assets?", "inputs?"),
    ),
    Kind(
        "contract.approved",
        "spine",
        "A contract version was approved, by whom, and the next due time.",
        ("version", "by?", "next_due?"),
    ),
    Kind(
        "contract.refreshed",
        "spine",
        "A team contract's text on main changed without moving its contract fingerprint (schedule, owner, "
        "maintainers, wording): the version's text was replaced by main's at that commit, under the same "
        "number, and the next due time follows its schedule.",
        ("version", "commit", "source_fingerprint", "next_due?"),
    ),
    Kind(
        "spine.repaired",
        "spine",
        "The spine was repaired: a torn last line (a crash mid-append) was cut off, or `hz heinzel repair` "
        "set damaged lines aside. Records where, how many bytes and their hash.",
        ("offset", "dropped_bytes", "dropped_hash"),
    ),
    Kind(
        "spine.compacted",
        "spine",
        "The first line of a compacted spine: the lines of turns older than `[heinzel] retention_days` were "
        "folded into it (`hz heinzel prune`). Records the hash of the last folded line (the next line "
        "continues from it) and of all their bytes, the folded turns by disposition, their spend by cause, "
        "the inputs' last fingerprints, and the events among them that are still live.",
        ("head", "folded_hash", "folded_bytes", "folded_lines", "turns?", "usd?", "inputs?", "kept?"),
    ),
)

STATE: tuple[Kind, ...] = (
    Kind(
        "turn.started",
        "hz/state",
        "A member's machine (or an Actions run) began a team contract's turn for a slot, under the lease "
        "token it holds and in which role.",
        _TURN_STATE,
    ),
    Kind(
        "turn.finished",
        "hz/state",
        "A team turn ended: its disposition, cost, tokens, duration, which inputs moved, the fingerprints it "
        "worked from and its draft's hash.",
        _ENDED_STATE,
    ),
    Kind(
        "turn.skipped",
        "hz/state",
        "A team turn was due but did not run, and why (the same fields as turn.finished).",
        _ENDED_STATE,
    ),
    Kind(
        "draft.placed",
        "hz/state",
        "A team turn placed a draft for review (a branch and pull request): its key, asset and hash.",
        ("turn", "key", "asset", "hash"),
    ),
    Kind(
        "approval.observed",
        "hz/state",
        "A member brought a team draft's text to main: who approved (the merger, else the committer, through "
        "the roster on main), how much they changed, the fingerprint of the output on main, and whether the "
        "approver is the member whose agent drafted it.",
        ("key", "asset", "approver", "share_changed", "output_fp", "self_approved?"),
    ),
    Kind(
        "draft.rejected",
        "hz/state",
        "A team draft was rejected by a person (`hz reject`, or its pull request closed unmerged), or its "
        "branch deleted with nothing of it on main: who rejected it, `@unknown` when nobody is known.",
        ("key", "asset", "by?"),
    ),
    Kind(
        "draft.superseded",
        "hz/state",
        "A pending team draft was replaced by a newer draft of the same idempotency key, named by `by`; "
        "written with the newer draft's placing.",
        ("key", "asset", "by"),
    ),
    Kind(
        "approval.seconded",
        "hz/state",
        "A second member approved a draft its own author's member merged, as `[review] require_other_member` "
        "asks; its publishes waited for this.",
        ("key", "asset", "approver"),
    ),
    Kind(
        "contract.amended", "hz/state", "A team contract's new version, by its fingerprint.", ("version", "fingerprint")
    ),
    Kind(
        "publish.done",
        "hz/state",
        "One `hz.publishes` action of an approved draft ran: which action, where to, and the hash of what "
        "was written; the publish key is also left at the target, so it never runs twice.",
        ("key", "draft_key", "action", "target", "hash"),
    ),
)

KINDS: tuple[Kind, ...] = SPINE + STATE
