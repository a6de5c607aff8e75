"""The HZS codes: findings of the `hz/state` lint (`hz state lint`, and the server hook on a push).

`hz/state` is the team's append-only branch of receipts: one canonical JSON line per event file, no
text, nothing ever changed. The examples of the codes a single event file shows are that file as
`hz state lint` would find it added by a commit (the meta-test lints each one); the others need a
history, a lease chain or a hook, and their examples say what such a push holds.
"""

from __future__ import annotations

from hz.codes.entry import Code

EVENT_PATH = "events/hz-01JB0000000000000000000001/fa/turn.started-fa2e910c631113e1cdc2a6ab.json"
EVENT = (
    '{"data":{"cause":"schedule","contract_fp":"sha256:2e7d2c03a9507ae265ecf5b5356885a53393a2029d241394997265a1'
    'a25aefc6","contract_version":1,"keys":["hz-01JB0000000000000000000001@2026-10-30T15:00:00Z"],"role":"own'
    'er","token":1,"turn":"t-01JB0000000000000000000001"},"id":"hz-01JB0000000000000000000001","key":"hz-01JB0'
    '000000000000000000001@2026-10-30T15:00:00Z","kind":"turn.started","lease":"hz-01JB0000000000000000000001",'
    '"token":1,"ts":"2026-10-30T15:00:00Z","v":1}\n'
)


def _event(*swaps: tuple[str, str], path: str = EVENT_PATH) -> tuple[tuple[str, str], ...]:
    """A proper `turn.started` event file with each (old, new) replaced once."""
    text = EVENT
    for old, new in swaps:
        text = text.replace(old, new, 1)
    return ((path, text),)


def _story(text: str) -> tuple[tuple[str, str], ...]:
    return (("the push", text),)


LINT = "hz/state lint"
HOOK = "hz/state hook (server)"

CODES: tuple[Code, ...] = (
    Code(
        "HZS001",
        "a path outside the layout",
        "error",
        LINT,
        "hz/state holds only event files at `events/<hz id>/<xx>/<kind>-<digest>.json`; the commit added a "
        "file anywhere else, or a folder with nothing in it.",
        _event(path="events/notes.json"),
        "Nothing but hz writes hz/state; remove the commit (the branch is protected, so an administrator "
        "restores it from the last clean commit) and let hz record events itself.",
        proof="event",
    ),
    Code(
        "HZS002",
        "an event file changed",
        "error",
        LINT,
        "hz/state is append-only: a line once written is a receipt others rely on. The commit changed or "
        "removed a line of an existing event file.",
        _story("a commit that edits the `cost_usd` of an existing turn.finished event"),
        "Revert the change; a correction is a new event, never an edit.",
        proof="tests",
    ),
    Code(
        "HZS003",
        "an event file deleted",
        "error",
        LINT,
        "hz/state is append-only; the commit deleted an event file.",
        _story("a commit that removes events/hz-…/fa/turn.started-….json"),
        "Restore the file; receipts are never removed.",
        proof="tests",
    ),
    Code(
        "HZS004",
        "not exactly one line",
        "error",
        LINT,
        "An event file is exactly one line that ends in a newline, and at most the size hz allows for a line.",
        _event(('"v":1}\n', '"v":1}')),
        "Let hz write events; it writes one canonical line and a newline.",
        proof="event",
    ),
    Code(
        "HZS005",
        "not a JSON object",
        "error",
        LINT,
        "The event file's line is not JSON, or is JSON but not an object.",
        _event(('{"data"', '["data"')),
        "Let hz write events; a damaged file is replaced by a restore of the branch, never edited.",
        proof="event",
    ),
    Code(
        "HZS006",
        "an unknown event kind",
        "error",
        LINT,
        "The event's `kind` is not one hz/state records (`hz explain --list` shows them). Either the event "
        "was written by hand, or by an hz newer than the lint's.",
        _event(('"kind":"turn.started"', '"kind":"turn.chatted"')),
        "Write events only through hz; update the hz that runs the lint (the server hook, the lint job) "
        "when the team's members run a newer one.",
        proof="event",
    ),
    Code(
        "HZS007",
        "an unknown field",
        "error",
        LINT,
        "The event, or its `data`, has a field its kind does not define. Unknown fields are refused so "
        "nothing can ride along on a receipt.",
        _event(('"cause":"schedule"', '"cause":"schedule","colour":"red"')),
        "Write events only through hz.",
        proof="event",
    ),
    Code(
        "HZS008",
        "a field named like text",
        "error",
        LINT,
        "hz/state holds ids, hashes, numbers and fixed words, never prose: a field called `body`, `text`, "
        "`draft`, `summary`, `message` or the like is refused whatever it holds.",
        _event(('"cause":"schedule"', '"cause":"schedule","summary":"we shipped it"')),
        "Keep text in the repository (drafts, pull requests) and put only its hash on hz/state.",
        proof="event",
    ),
    Code(
        "HZS009",
        "a value of the wrong type",
        "error",
        LINT,
        "A field holds a value its type does not allow: a role that is not `owner`, `delegate` or "
        "`actions`, a hash without `sha256:`, a number where an id belongs.",
        _event(('"role":"owner"', '"role":"boss"')),
        "Write events only through hz.",
        proof="event",
    ),
    Code(
        "HZS010",
        "something shaped like an e-mail address",
        "error",
        LINT,
        "Any string of the event, or a commit's author or committer, looks like an e-mail address. "
        "hz/state is read by the whole team and kept forever: addresses never go there.",
        _event(('"cause":"schedule"', '"cause":"ann@example.com"')),
        "Commit with hz's own identity (hz sets it when it writes hz/state); never put an address in an event.",
        proof="event",
    ),
    Code(
        "HZS011",
        "the path does not match the event",
        "error",
        LINT,
        "An event's path follows from its id, kind and key; this file sits where another event belongs, "
        "or its envelope disagrees with itself (a token other than its payload's).",
        _event(
            ('"lease":"hz-01JB0000000000000000000001","token":1', '"lease":"hz-01JB0000000000000000000001","token":2')
        ),
        "Write events only through hz; it derives the path from the event.",
        proof="event",
    ),
    Code(
        "HZS012",
        "a commit hz would not write",
        "error",
        LINT,
        "hz writes commits of one shape: one parent, its own header fields, a message that counts the "
        "events it adds, no signature. A merge, an extra header, another message or a signature is refused; "
        "so is a lease ref that points at anything but such a commit.",
        _story("a merge commit on hz/state, or a commit whose message says 'fix typo'"),
        "Push only what hz writes; never merge into hz/state.",
        proof="tests",
    ),
    Code(
        "HZS013",
        "hz/state or a lease rewound or deleted",
        "error",
        HOOK,
        "A push that is not a fast-forward of hz/state or of a lease ref, or that deletes one. Rewinding a "
        "lease would hand out a token twice.",
        _story("git push --force origin <older commit>:hz/state"),
        "Never force-push hz refs; protect them with a ruleset or `hz state install-hook`.",
        proof="tests",
    ),
    Code(
        "HZS014",
        "a malformed lease record or token",
        "error",
        LINT,
        "A lease commit's tree must hold only its record, in canonical form, for that lease; its token goes "
        "up by one for a new holder or slot, and its times are plausible by the server's clock.",
        _story("a lease commit whose record jumps from token 3 to token 7"),
        "Take and renew leases only through hz (`hz tick`, `hz lease`).",
        proof="tests",
    ),
    Code(
        "HZS015",
        "not the canonical bytes of the event",
        "error",
        LINT,
        "An event file must be exactly the bytes hz writes for it: RFC 8785 JSON (sorted keys, no spaces, "
        "no duplicate keys) and one newline. Anything else could say the same event twice in different bytes.",
        _event(('{"data":{', '{"data": {')),
        "Write events only through hz.",
        proof="event",
    ),
    Code(
        "HZS016",
        "a ref hz does not write",
        "error",
        HOOK,
        "The server hook accepts under `refs/hz/*` only the refs hz writes (hz/state, leases); other refs "
        "there, and `refs/replace/*`, are refused.",
        _story("git push origin HEAD:refs/hz/scratch"),
        "Keep your own refs outside `refs/hz/`.",
        proof="tests",
    ),
    Code(
        "HZS017",
        "a token its lease did not give",
        "error",
        LINT,
        "An event carries the lease and fencing token its writer held. The lease's chain never gave that "
        "token, gave it for another slot, or the event belongs to another agent's lease.",
        _story("a turn.started for slot 09:00 with token 4, where token 4 was given for slot 08:00"),
        "Write only under a lease you hold (hz does); a member fenced off by a newer token stops writing.",
        proof="tests",
    ),
    Code(
        "HZS018",
        "the hook could not check the push",
        "error",
        HOOK,
        "The server hook refuses what it cannot verify: it could not read the objects of the push, or "
        "reading them failed part way. Nothing is accepted unchecked.",
        _story("a push whose pack the hook cannot read"),
        "Push again; if it persists, run `hz state lint` on the server repository and read its error.",
        proof="tests",
    ),
    Code(
        "HZS019",
        "a name the contract on main does not declare",
        "error",
        LINT,
        "Where the repository has `main`, the contract ids, assets and leases named on hz/state must be ones "
        "its contracts declare.",
        _story("a draft.placed for asset `state:reports/secret.md`, which no contract on main outputs"),
        "Declare the asset or contract on main first (a reviewed change), then let hz record events for it.",
        proof="tests",
    ),
    Code(
        "HZS020",
        "a lease holder without the lease's role",
        "error",
        HOOK,
        "A lease names a holder and a role (owner, delegate, actions); the contract on main does not give "
        "that holder that role.",
        _story("a lease taken as owner by @mallory of a contract whose owner is @alice"),
        "Name the member as owner or maintainer in the contract on main, or let the rightful holder run it.",
        proof="tests",
    ),
    Code(
        "HZS021",
        "a slot started twice",
        "error",
        LINT,
        "A second `turn.started` for a slot that already started under another token (however the slot's "
        "time is spelled): two members ran the same work.",
        _story("two turn.started events for slot 2026-10-30T15:00:00Z, under tokens 1 and 2"),
        "Nothing to repair on hz/state; find why two members ran (clock skew, a lost lease) in `hz lease log`.",
        proof="tests",
    ),
    Code(
        "HZS022",
        "a time ahead of the clock",
        "error",
        LINT,
        "An event says it was written more than a day after the clock (the server's, for the hook) reads "
        "now. A time from "
        "the future would stay recent in every reader's window (publish retries, the approval sweep) for as "
        "long as it likes.",
        _story("a draft.placed with ts 2099-12-31T00:00:00Z pushed today"),
        "Set the clock of the machine that wrote it (hz stamps events with the tick's time; `--now` in the "
        "future is refused by the hook), then let hz write the receipt again.",
        proof="tests",
    ),
    Code(
        "HZS023",
        "a receipt that does not follow",
        "error",
        LINT,
        "A receipt of a team draft's fate or publish that hz/state and main do not bear out: an approval, "
        "rejection, supersession or seconding of a draft never placed or decided already, an approver or "
        "rejector the roster on main does not list, or a publish.done before its approval or for an action "
        "and target the contract on main does not declare.",
        _story("an approval.observed by @ceo-leaves-in-march for a draft key no draft.placed has"),
        "Nothing hz wrote: refuse the pusher (protect hz/state). Readers ignore such a receipt; a member "
        "missing from [team.members] on main is added there by pull request.",
        proof="tests",
    ),
    Code(
        "HZS024",
        "a draft's hash that is not its branch's file",
        "error",
        LINT,
        "A draft.placed whose hash is not sha256 of the file at its asset's path on the draft branch commit "
        "that names its key (`Hz-Draft:`): the hook compares with the branch pushed with it, `hz state lint` "
        "with the draft commits hz wrote that the clone has. An unchecked hash is 256 chosen bits.",
        _story(
            "a draft.placed with hash sha256:5072…, pushed with hz/draft/<id>/report whose reports/w45.md "
            "hashes to sha256:9f86…"
        ),
        "Nothing hz wrote: hz hashes the file it commits. Refuse the pusher, and let the tick place the draft again.",
        proof="tests",
    ),
    Code(
        "HZS025",
        "a version main does not have",
        "error",
        LINT,
        "An event names a contract version (`contract.amended`'s version, `turn.started`'s contract_version, "
        "the v<n> of a draft or approval key) higher than main's count of that contract plus one. Main's "
        "count is the first-parent commits of main that changed the contract's file (or its directory "
        "defaults); one past it is allowed for a home that had the contract before main did.",
        _story("a contract.amended with version 1000000000000 for a contract main changed twice"),
        "Nothing hz wrote: hz numbers versions by main's commits. Refuse the pusher; if a member's home is "
        "ahead, let its next tick take main's version.",
        proof="tests",
    ),
    Code(
        "HZS026",
        "an archive step hz would not write",
        "error",
        LINT,
        "An archive step (`hz-state: archive N events`) moves closed work at least a day old off the tip: "
        "it deletes exactly the event files it counts, appends one line per period to `archive/<yyyy-mm>` "
        "naming its parent, its horizon and the count and digest of what that period lost, and adds a mark "
        "of each moved event younger than the horizon to `archive/<yyyy-mm-dd>`. This one did something "
        "else: it added or changed an event, its line or its marks do not match what it moved, it moved a "
        "pending draft, a fate without its draft, an event less than a day old or an approval younger than "
        "the horizon, deleted a day file the horizon has not passed, or its horizon is newer than a week ago "
        "or older than the last one.",
        _story(
            "an archive step that deletes a draft.placed nobody decided, or whose line counts 3 events "
            "of 2026-10 where it moved 2"
        ),
        "Nothing hz wrote: refuse the pusher and run `hz state compact`, which builds the step from the tip.",
        proof="tests",
    ),
    Code(
        "HZS027",
        "an event older than the archive horizon, or archived already",
        "error",
        LINT,
        "An event whose time (or, for a turn.started or a draft.placed, whose slot) is older than the newest "
        "horizon in the tip's `archive/` index, or whose mark a day file of `archive/` holds. Work that old "
        "was archived already or is too late to record, and a marked event was recorded and moved off the "
        "tip: adding it again would put a second copy of an identity the archive holds back on the tip.",
        _story("a draft.rejected of 2026-10-04 pushed again after an archive step with horizon 2026-10-28"),
        "hz's writer drops such events itself; `hz state log` shows the archived copy. Nothing to redo.",
        proof="tests",
    ),
)
