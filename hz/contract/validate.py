"""Stage 1 of validation: the frontmatter against the models, with errors in the format's own words.

pydantic reports where a value is wrong; this module says so the way an author reads the file
(`hz.owner: '@' is not a GitHub handle …`), at the line and column of the YAML node, with an HZC code
and a hint. Codes that the models raise themselves (HZC011, HZC016) keep their code.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from hz.contract.model import PATTERN_NAMES, ContractFrontmatter
from hz.contract.schema import installed_schema
from hz.contract.yamlload import Loc, YamlMarks
from hz.diagnostic import Diagnostic


@dataclass(frozen=True)
class Locator:
    """File positions of frontmatter nodes: YAML positions shifted by where the YAML starts."""

    marks: YamlMarks
    yaml_line: int

    def value(self, loc: Loc) -> tuple[int, int]:
        line, column = self.marks.value(loc)
        return self.yaml_line + line - 1, column

    def key(self, loc: Loc) -> tuple[int, int]:
        line, column = self.marks.key(loc)
        return self.yaml_line + line - 1, column


def dotted(loc: Loc) -> str:
    """`('hz', 'publishes', 0, 'action')` -> `hz.publishes[0].action`."""
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "frontmatter"


def check_frontmatter(
    data: dict[str, Any], *, path: str, stem: str | None, where: Locator
) -> tuple[ContractFrontmatter | None, list[Diagnostic]]:
    """Validate a migrated, default-filled mapping; the model, or None and the reasons."""
    from pydantic import ValidationError

    from hz.contract.textcheck import text_diagnostics  # here: it imports `dotted` from this module

    controls = text_diagnostics(data, path=path, locate=where.value)  # whatever else is wrong with the text
    try:
        frontmatter = ContractFrontmatter.model_validate(data)
    except ValidationError as exc:
        return None, sorted([*_rephrase(exc.errors(), data, path, where), *controls], key=_place)
    found: list[Diagnostic] = controls
    if stem is not None and frontmatter.name != stem:
        line, column = where.value(("name",))
        found.append(
            Diagnostic(
                path,
                line,
                column,
                "HZC010",
                "error",
                "name",
                f"name '{frontmatter.name}' does not match the file name '{stem}.prose.md'",
                f"rename the file to {frontmatter.name}.prose.md, or set name: {stem}",
            )
        )
    from hz.contract.pathcheck import path_diagnostics  # here: it imports `dotted` from this module

    found += path_diagnostics(frontmatter, path=path, locate=where.value)
    if frontmatter.hz.schedule is None and not frontmatter.hz.inputs:
        line, column = where.key(("hz",))
        found.append(
            Diagnostic(
                path,
                line,
                column,
                "HZC019",
                "warning",
                "hz",
                "nothing wakes this contract: it has no hz.schedule and no hz.inputs",
                "add a schedule or an input; until then it runs only when started by hand",
            )
        )
    return frontmatter, found


def _place(diagnostic: Diagnostic) -> tuple[int, int, str]:
    return diagnostic.line, diagnostic.column, diagnostic.code


def _rephrase(errors: Iterable[Any], data: Any, path: str, where: Locator) -> list[Diagnostic]:
    grouped: dict[Loc, list[Any]] = {}
    for error in errors:
        loc = _clean(error["loc"], data) + tuple((error.get("ctx") or {}).get("at", ()))
        if error["type"] == "missing":
            loc += (error["loc"][-1],)  # a missing key is not in the data, but it is what to name
        grouped.setdefault(loc, []).append(error)
    found = [_diagnostic(loc, group, path, where) for loc, group in grouped.items()]
    return sorted(found, key=lambda d: (d.line, d.column, d.code))


def _clean(loc: Iterable[Any], data: Any) -> Loc:
    """The part of pydantic's loc that names nodes of the file.

    pydantic adds the names of union branches and validator wrappers (`literal['slot']`) and `[key]`
    for a bad mapping key; walking the data keeps exactly the parts that are keys or indexes in it.
    """
    out: list[str | int] = []
    node = data
    for part in loc:
        if _has(node, part):
            node = node[part]
            out.append(part)
    return tuple(out)


def _has(node: Any, part: Any) -> bool:
    if isinstance(node, dict):
        return part in node
    return isinstance(node, list | tuple) and isinstance(part, int) and 0 <= part < len(node)


def _diagnostic(loc: Loc, group: list[Any], path: str, where: Locator) -> Diagnostic:
    first = group[0]
    kind = first["type"]
    code = kind.upper() if kind.startswith("hzc") else "HZC002"
    message = _alternatives(group) if len(group) > 1 else _message(first)
    on_key = kind == "extra_forbidden" or "[key]" in first["loc"]
    line, column = where.key(loc) if on_key else where.value(loc)
    return Diagnostic(path, line, column, code, "error", dotted(loc), message, _hint(kind, loc, first))


def _alternatives(group: list[Any]) -> str:
    """One message for a value that matched none of a union's branches."""
    wanted = dict.fromkeys(_expected(e) for e in group)
    return f"{_shown(group[0].get('input'))} must be {' or '.join(wanted)}"


def _expected(error: Any) -> str:
    kind, ctx = error["type"], error.get("ctx") or {}
    if kind == "duration":
        return "a duration (such as 15m or 7d)"
    if kind == "duration_too_long":
        return "a duration of at most 3650d"
    if kind == "literal_error":
        return str(ctx.get("expected", "?"))
    if kind == "string_pattern_mismatch":
        return PATTERN_NAMES.get(ctx.get("pattern", ""), "valid")
    return _message(error)


def _message(error: Any) -> str:
    kind, value, ctx = error["type"], error.get("input"), error.get("ctx") or {}
    maker = _MESSAGES.get(kind)
    return maker(value, ctx, error) if maker else str(error["msg"])


def _shown(value: Any) -> str:
    if isinstance(value, str):
        return repr(value) if len(value) <= 60 else repr(value[:57] + "...")
    if value is None:
        return "empty"
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list | tuple):
        return "a list"
    if isinstance(value, bool):
        return "true" if value else "false"
    return f"{value!r} ({type(value).__name__})"


def _limit(ctx: dict[str, Any], key: str) -> Any:
    return ctx.get(key, "?")


_MESSAGES: dict[str, Callable[[Any, dict[str, Any], Any], str]] = {
    "missing": lambda v, c, e: f"required key '{e['loc'][-1]}' is missing",
    "extra_forbidden": lambda v, c, e: f"unknown key '{e['loc'][-1]}'",
    "string_pattern_mismatch": lambda v, c, e: (
        f"{_shown(v)} is not {PATTERN_NAMES.get(c.get('pattern', ''), 'valid here')}"
    ),
    "duration_too_long": lambda v, c, e: f"{_shown(v)} is longer than 3650d, the longest duration hz takes",
    "string_too_long": lambda v, c, e: f"is too long: at most {_limit(c, 'max_length')} characters",
    "string_too_short": lambda v, c, e: "must not be empty",
    "literal_error": lambda v, c, e: f"must be {c.get('expected', '?')}, not {_shown(v)}",
    "string_type": lambda v, c, e: f"must be text, not {_shown(v)}",
    "int_type": lambda v, c, e: f"must be a whole number, not {_shown(v)}",
    "int_from_float": lambda v, c, e: f"must be a whole number, not {_shown(v)}",
    "int_parsing": lambda v, c, e: f"must be a whole number, not {_shown(v)}",
    "float_type": lambda v, c, e: f"must be a number, not {_shown(v)}",
    "float_parsing": lambda v, c, e: f"must be a number, not {_shown(v)}",
    "finite_number": lambda v, c, e: f"must be a finite number, not {_shown(v)}",
    "bool_type": lambda v, c, e: f"must be true or false, not {_shown(v)}",
    "bool_parsing": lambda v, c, e: f"must be true or false, not {_shown(v)}",
    "dict_type": lambda v, c, e: f"must be a mapping of keys to values, not {_shown(v)}",
    "model_type": lambda v, c, e: f"must be a mapping of keys to values, not {_shown(v)}",
    "model_attributes_type": lambda v, c, e: f"must be a mapping of keys to values, not {_shown(v)}",
    "tuple_type": lambda v, c, e: f"must be a list, not {_shown(v)}",
    "list_type": lambda v, c, e: f"must be a list, not {_shown(v)}",
    "too_short": lambda v, c, e: (
        f"needs at least {_limit(c, 'min_length')} entr{'y' if c.get('min_length') == 1 else 'ies'}"
    ),
    "too_long": lambda v, c, e: f"takes at most {_limit(c, 'max_length')} entries",
    "greater_than_equal": lambda v, c, e: f"must be at least {_limit(c, 'ge')}, not {_shown(v)}",
    "greater_than": lambda v, c, e: f"must be more than {_limit(c, 'gt')}, not {_shown(v)}",
    "less_than_equal": lambda v, c, e: f"must be at most {_limit(c, 'le')}, not {_shown(v)}",
}

_HINTS: dict[str, str] = {
    "hzc011": "a cron has five fields (minute hour day-of-month month day-of-week); "
    "a zone is an IANA name such as Europe/Berlin",
    "hzc016": "name an input of hz.inputs, or <input>.<facet> with a facet that input lists",
    "duration": "write a whole number and a unit: 30s, 15m, 2h, 7d or 1w",
    "duration_too_long": "write at most 3650d (or 521w): ten years is the longest window, recheck, backoff or timeout",
    "unique": "list each value once",
    "publish_output": "name one of the outputs under hz.outputs",
    "too_long": "a contract this large is most likely a mistake; split the work into several contracts",
}

# OpenProse kinds other than the one hz serves, and what to do with a file of that kind.
_KIND_HINTS: dict[str, str] = {
    "gateway": "a gateway (something driven from outside) is an input source in hz, not a contract: "
    "name it under hz.inputs of the contract that reads it",
    "function": "hz keeps states true rather than running functions: describe the state the function maintains "
    "(### Goal) and set kind: responsibility",
    "pattern": "a pattern is not run by hz; keep it out of workflows/ or turn it into a responsibility",
    "test": "a test is not run by hz; keep it out of workflows/ or turn it into a responsibility",
}


def _hint(kind: str, loc: Loc, error: Any) -> str:
    if kind == "extra_forbidden":
        name = str(loc[-1]) if loc else ""
        if name.startswith("x-"):
            return "x-* keys for other tools are allowed only at the top level of the frontmatter"
        places = [where for where, keys in _key_places() if name in keys]
        if places:  # a real key, only in another place: suggesting it to itself would say nothing
            return f"'{name}' belongs under {' or '.join(places)}, not here"
        close = difflib.get_close_matches(name, _known_keys(), n=1)
        if close:
            return f"did you mean '{close[0]}'?"
        return "remove it; keys for other tools go at the top level and start with x-" if len(loc) == 1 else "remove it"
    if kind == "string_pattern_mismatch" and loc[-1:] == ("owner",):
        return 'write the handle in quotes, such as owner: "@someone" (YAML reads a bare @ as an error)'
    if loc == ("kind",):
        given = error.get("input")
        told = _KIND_HINTS.get(given, "") if isinstance(given, str) else ""
        return told or "write kind: responsibility, the one kind hz serves (a state that stays true)"
    if kind == "missing":
        return f"add the key; every key and its type is described in {installed_schema()}"
    if kind == "literal_error":
        return f"write {(error.get('ctx') or {}).get('expected', 'one of the allowed values')}"
    return _HINTS.get(kind, "")


def _key_places() -> list[tuple[str, frozenset[str]]]:
    """Where each group of keys goes, as a person would write it, and the keys of that place."""
    from hz.contract import model

    places = (
        ("the frontmatter's top level", model.ContractFrontmatter),
        ("hz", model.Hz),
        ("an input (hz.inputs.<name>)", model.Input),
        ("an output (hz.outputs.<name>)", model.Output),
        ("an entry of hz.publishes", model.Publish),
        ("hz.agent", model.Agent),
        ("hz.retries", model.Retries),
        ("hz.concurrency", model.Concurrency),
        ("hz.cost", model.Cost),
        ("an entry of hz.schedule (- cron: …)", model.Cron),
    )
    return [(where, frozenset(i.alias or n for n, i in cls.model_fields.items())) for where, cls in places]


def _known_keys() -> list[str]:
    from hz.contract import model

    names: set[str] = set()
    for cls in (
        model.ContractFrontmatter,
        model.Hz,
        model.Input,
        model.Output,
        model.Publish,
        model.Agent,
        model.Retries,
        model.Concurrency,
        model.Cost,
        model.Cron,
    ):
        for field_name, info in cls.model_fields.items():
            names.add(info.alias or field_name)
    return sorted(names)
