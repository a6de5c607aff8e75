"""What the contracts on `main` declare, read from a tree of `main` with pygit2 (no work tree, no compile).

The state lint (hz.gitstate.lint_contracts), the receipts rule and the publish sweep read the same
`workflows/` folder of a commit: its `*.prose.md` contracts (bounded in size and depth), its
`_defaults.yaml` and `policies/auto-approve.toml`. Only the frontmatter keys receipts may name are read.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pygit2

    from hz.contract.policy import Policies

FOLDER = "workflows"
DEFAULTS_FILE = "_defaults.yaml"  # hz.contract.defaults reads the same file of the work tree
SUFFIX = ".prose.md"
MAX_CONTRACT_BYTES = 256 * 1024
MAX_DEPTH = 4


@dataclass(frozen=True)
class Declared:
    """What one contract on `main` lets its receipts name."""

    inputs: frozenset[str]
    targets: Mapping[str, str]  # output name -> target template
    owner: str | None = None  # the normalised `@handle` of hz.owner; None: none that a member's handle can be
    maintainers: frozenset[str] = frozenset()  # normalised `@handle`s of hz.maintainers
    publishes: frozenset[tuple[str, str, str, str]] = frozenset()  # (action, output, target, auto_approve or "")
    idempotency: str | None = None  # hz.idempotency as written (None: the default), which names draft branches


def folder(repo: pygit2.Repository, root: Any) -> Any | None:
    try:
        tree: Any = repo[root[FOLDER].id]
    except KeyError:
        return None
    return tree if tree.type_str == "tree" else None


def contract_texts(repo: pygit2.Repository, root: Any) -> Iterator[str]:
    found = folder(repo, root)
    if found is not None:
        for blob in blobs_under(repo, found, 0):
            yield bytes(blob.data).decode("utf-8", "replace")


def blobs_under(repo: pygit2.Repository, tree: Any, depth: int) -> Iterator[Any]:
    """The contract blobs (`*.prose.md`, at most MAX_CONTRACT_BYTES) under `tree`, MAX_DEPTH folders deep."""
    if depth > MAX_DEPTH or tree.type_str != "tree":
        return
    for entry in tree:
        if entry.type_str == "tree":
            yield from blobs_under(repo, repo[entry.id], depth + 1)
        elif entry.type_str == "blob" and bytes(entry.raw_name).endswith(SUFFIX.encode()):
            blob: Any = repo[entry.id]
            if blob.size <= MAX_CONTRACT_BYTES:
                yield blob


def policies(repo: pygit2.Repository, root: Any) -> Policies | None:
    """`policies/auto-approve.toml` at `root` (of main): a pull request's copy grants nothing until merged."""
    from hz.contract.policy import POLICY_FILE, parse_policies

    try:
        blob: Any = repo[root[POLICY_FILE.as_posix()].id]
    except KeyError:
        return None
    if blob.type_str != "blob" or blob.size > MAX_CONTRACT_BYTES:
        return None
    return parse_policies(bytes(blob.data))


def defaults(repo: pygit2.Repository, root: Any) -> dict[str, Any]:
    """The `hz:` mapping of `workflows/_defaults.yaml` at `root`, {} when absent or unreadable: a team
    contract's owner and maintainers may come from it, as they do when hz loads the contract."""
    from hz.contract.yamlload import YamlProblem, load_mapping

    found = folder(repo, root)
    try:
        blob: Any = repo[found[DEFAULTS_FILE].id] if found is not None else None
    except KeyError:
        return {}
    if blob is None or blob.type_str != "blob" or blob.size > MAX_CONTRACT_BYTES:
        return {}
    try:
        hz = load_mapping(bytes(blob.data).decode("utf-8", "replace")).get("hz")
    except YamlProblem:
        return {}
    return hz if isinstance(hz, dict) else {}


def declared(text: str, defaults: dict[str, Any] | None = None) -> tuple[str, Declared] | None:
    """(agent id, what it declares) from a contract's frontmatter, its owner and maintainers falling back
    on `defaults` (its own keys win); None when it has no id or no frontmatter. Inside a tick each text is
    read once (`hz.contract.compiled`): the sweep, the watch and the claim's roles each read all of main's."""
    from hz.contract.compiled import kept

    return kept(("declared", text, repr(defaults) if defaults else None), lambda: _declared(text, defaults))  # type: ignore[no-any-return]


def _declared(text: str, defaults: dict[str, Any] | None) -> tuple[str, Declared] | None:
    from hz.contract.text import normalize, split_frontmatter
    from hz.contract.yamlload import YamlProblem, load_mapping

    split = split_frontmatter(normalize(text))
    if split is None:
        return None
    try:
        data = load_mapping(split.yaml)
    except YamlProblem:
        return None
    hz = data.get("hz")
    if not isinstance(data.get("id"), str) or not isinstance(hz, dict):
        return None
    inputs = _mapping(hz.get("inputs"))
    outputs = _mapping(hz.get("outputs"))
    targets = {str(n): str(o["target"]) for n, o in outputs.items() if isinstance(o, dict) and "target" in o}
    people_of = {**{k: v for k, v in (defaults or {}).items() if k in ("owner", "maintainers")}, **hz}
    maintainers = people_of.get("maintainers")
    people = frozenset(filter(None, map(_handle, maintainers if isinstance(maintainers, list) else [])))
    listed = hz.get("publishes")
    publishes = frozenset(
        (str(p["action"]), str(p["output"]), str(p["target"]), str(p.get("auto_approve") or ""))
        for p in (listed if isinstance(listed, list) else [])
        if isinstance(p, dict) and all(isinstance(p.get(k), str) for k in ("action", "output", "target"))
    )
    owner = _handle(people_of.get("owner"))
    template = hz.get("idempotency")
    idempotency = template if isinstance(template, str) and template else None
    declared = Declared(frozenset(str(name) for name in inputs), targets, owner, people, publishes, idempotency)
    return f"hz-{data['id']}", declared


def _handle(value: Any) -> str | None:
    """A member's handle as the turn engine reads it (hz.gitstate.identity.member_handle); None for
    anything else (a team `@org/team`, a number): no holder's handle equals it, so it gives nobody a role."""
    from hz.gitstate.identity import member_handle

    return member_handle(value) if isinstance(value, str) else None


def _mapping(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}
