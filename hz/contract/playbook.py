"""`workflows/_playbook.yaml`: the team's hints of where sources worth reading may turn up.

The file is reviewed on `main` like the contracts. It holds one key, `hints:`, a list of hints, each
naming a slug (`name`), a source reference with a glob in its path (`match`, only `file:` for now), the
contracts it is for (`for`: names, or tags written `tag:<tag>`; left out, every contract) and one short
line the user reads (`why`). The daily discovery pass (`hz.tick.discover`) lists what each hint matches.

Unknown keys and wrong values are HZC020 at the line and column of the offending node; YAML that does
not parse keeps the loader's HZC001/HZC004. A broken playbook gives no hints at all: half a playbook
would propose sources its authors may not have meant.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hz.diagnostic import Diagnostic

PLAYBOOK_FILE = "_playbook.yaml"
CODE = "HZC020"
SCHEMES = ("file",)  # the schemes a hint may match; others need a lister first
MAX_WHY = 200
_SLUG = re.compile(r"^[a-z][a-z0-9]*(-[a-z0-9]+)*$")
_TAG = re.compile(r"^tag:[a-z][a-z0-9]*(-[a-z0-9]+)*$")
_HINT_KEYS = ("name", "match", "for", "why")
_HINT = "fix workflows/_playbook.yaml; until then no hint proposes anything"


@dataclass(frozen=True)
class Hint:
    name: str
    scheme: str  # `file`
    pattern: str  # the path glob after the scheme, relative to the repository root
    targets: tuple[str, ...] | None  # contract names and `tag:<tag>`; None: every contract
    why: str

    @property
    def match(self) -> str:
        return f"{self.scheme}:{self.pattern}"

    def applies(self, contract: str, tags: tuple[str, ...]) -> bool:
        if self.targets is None:
            return True
        return contract in self.targets or any(f"tag:{tag}" in self.targets for tag in tags)


def playbook_path(root: Path) -> Path:
    return root / "workflows" / PLAYBOOK_FILE


def load_playbook(root: Path) -> tuple[tuple[Hint, ...], list[Diagnostic]]:
    """The hints of the repository's playbook (none when it is absent or broken) and what is wrong."""
    from hz.contract.yamlload import YamlMarks, YamlProblem, load_mapping
    from hz.repo_paths import read_file

    shown = f"workflows/{PLAYBOOK_FILE}"
    if not os.path.lexists(playbook_path(root)):
        return (), []
    data = read_file(root, shown)  # the path rule: no link into .git or out, no FIFO, bounded
    if not isinstance(data, bytes):
        return (), [_unreadable(shown, data.reason)]
    try:
        text = data.decode("utf-8")
        loaded = load_mapping(text)
    except YamlProblem as problem:
        where = "playbook" if problem.loc == "frontmatter" else problem.loc
        message = problem.message.replace("the frontmatter", "the playbook")
        return (), [Diagnostic(shown, problem.line, problem.column, problem.code, "error", where, message, _HINT)]
    except UnicodeDecodeError as exc:
        return (), [_unreadable(shown, str(exc))]
    checker = _Checker(shown, YamlMarks(text))
    hints = checker.playbook(loaded)
    return (hints, []) if not checker.found else ((), sorted(checker.found))


def _unreadable(shown: str, reason: str) -> Diagnostic:
    return Diagnostic(shown, 1, 1, "HZC001", "error", "file", f"the playbook cannot be read: {reason}", _HINT)


@dataclass
class _Checker:
    """Walks the loaded mapping, collecting one HZC020 per problem, placed at its YAML node."""

    shown: str
    marks: Any  # hz.contract.yamlload.YamlMarks
    found: list[Diagnostic] = field(default_factory=list)

    def problem(self, loc: tuple[str | int, ...], message: str, *, key: bool = False) -> None:
        line, column = self.marks.key(loc) if key else self.marks.value(loc)
        self.found.append(Diagnostic(self.shown, line, column, CODE, "error", _dotted(loc), message, _HINT))

    def playbook(self, data: Mapping[str, Any]) -> tuple[Hint, ...]:
        for key in data:
            if key != "hints":
                self.problem((key,), f"unknown key '{key}': a playbook holds only `hints:`", key=True)
        hints = data.get("hints")
        if not isinstance(hints, list):
            self.problem(("hints",) if "hints" in data else (), "`hints:` must be a list of hints")
            return ()
        found: list[Hint] = []
        for index, item in enumerate(hints):
            hint = self.hint(index, item)
            if hint is not None and hint.name in {h.name for h in found}:
                self.problem(("hints", index, "name"), f"hint name '{hint.name}' is used twice; names are unique")
            elif hint is not None:
                found.append(hint)
        return tuple(found)

    def hint(self, index: int, item: Any) -> Hint | None:
        loc: tuple[str | int, ...] = ("hints", index)
        if not isinstance(item, dict):
            self.problem(loc, "a hint is a mapping with name, match, for and why")
            return None
        before = len(self.found)
        for key in item:
            if key not in _HINT_KEYS:
                self.problem((*loc, key), f"unknown key '{key}': a hint has {', '.join(_HINT_KEYS)}", key=True)
        for key in ("name", "match", "why"):
            if key not in item:
                self.problem(loc, f"the hint lacks `{key}`")
        name, match, why = item.get("name"), item.get("match"), item.get("why")
        if "name" in item and not (isinstance(name, str) and _SLUG.match(name)):
            self.problem((*loc, "name"), "`name` must be a slug: lower-case words joined by hyphens")
        scheme, pattern = self.match(loc, match) if "match" in item else ("", "")
        if "why" in item and not _is_line(why):
            self.problem((*loc, "why"), f"`why` must be one line of at most {MAX_WHY} characters")
        targets = self.targets(loc, item["for"]) if "for" in item else None
        if len(self.found) > before:
            return None
        return Hint(str(name), scheme, pattern, targets, str(why).strip())

    def match(self, loc: tuple[str | int, ...], value: Any) -> tuple[str, str]:
        where = (*loc, "match")
        if not isinstance(value, str) or ":" not in value:
            self.problem(where, "`match` must be a source reference such as file:docs/incidents/*.md")
            return "", ""
        scheme, pattern = value.split(":", 1)
        if scheme not in SCHEMES:
            self.problem(where, f"hints can match only {', '.join(s + ':' for s in SCHEMES)} sources for now")
        elif not _inside_pattern(pattern):
            self.problem(where, "the path must be relative to the repository root, without `..` or `.git`")
        return scheme, pattern

    def targets(self, loc: tuple[str | int, ...], value: Any) -> tuple[str, ...] | None:
        where = (*loc, "for")
        items = [value] if isinstance(value, str) else value
        if not isinstance(items, list) or not items:
            self.problem(where, "`for` must list contract names or tags as tag:<tag>")
            return None
        for position, item in enumerate(items):
            if not (isinstance(item, str) and (_SLUG.match(item) or _TAG.match(item))):
                at = where if isinstance(value, str) else (*where, position)
                self.problem(at, f"{item!r} is neither a contract name nor a tag written tag:<tag>")
        return tuple(str(i) for i in items)


def _inside_pattern(pattern: str) -> bool:
    """A glob the repository's path rule keeps as an input: relative, no `..`, never `.git` in any spelling."""
    from hz.repo_paths import problem

    return pattern == pattern.strip() and problem(pattern, "input") is None


def _is_line(value: Any) -> bool:
    return isinstance(value, str) and bool(value.strip()) and "\n" not in value.strip() and len(value) <= MAX_WHY


def _dotted(loc: tuple[str | int, ...]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "playbook"
