"""Loading the frontmatter as YAML 1.2, strictly, with the positions of its nodes on request.

ruamel.yaml's safe loader reads YAML 1.2, so `on:` stays a string key and `yes`/`no` stay strings.
A duplicate key or a key that is not a string (a number, `null`, a `%YAML 1.1` boolean) is HZC004:
the file never silently means whatever the last duplicate said.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cache
from typing import Any

Loc = tuple[str | int, ...]
Position = tuple[int, int]  # 1-based line, column within the YAML text


class YamlProblem(Exception):
    """The YAML could not become a mapping of string keys: HZC001 or HZC004 at a position."""

    def __init__(
        self, code: str, message: str, line: int, column: int, loc: str = "frontmatter", hint: str = ""
    ) -> None:
        super().__init__(message)
        self.hint = hint
        self.code = code
        self.message = message
        self.line = line
        self.column = column
        self.loc = loc


def _yaml(*, pure: bool = True) -> Any:
    """A fresh loader each time: a `%YAML 1.1` directive would otherwise stick to a shared one."""
    from ruamel.yaml import YAML

    return YAML(typ="safe", pure=pure)


@cache
def _c_yaml() -> Any:
    """Shared, because texts with a directive never reach it (see `load_mapping`)."""
    yaml = _yaml(pure=False)
    yaml.Resolver = _yaml12_resolver()
    return yaml


@cache
def _yaml12_resolver() -> type:
    from ruamel.yaml.nodes import ScalarNode
    from ruamel.yaml.resolver import VersionedResolver, implicit_resolvers
    from ruamel.yaml.tag import Tag

    table: dict[str | None, list[tuple[str, Any]]] = {}
    for versions, tag, regexp, first in implicit_resolvers:  # as VersionedResolver fills it for 1.2
        if (1, 2) in versions:
            starts: list[str | None] = [None] if first is None else list(first)
            for char in starts:
                table.setdefault(char, []).append((tag, regexp))
    implicit = {char: (*found, *table.get(None, ())) for char, found in table.items() if char is not None}
    anywhere = tuple(table.get(None, ()))

    class Yaml12Resolver(VersionedResolver):
        """YAML 1.2 always. ruamel works the version out again for every scalar, by way of two caught
        exceptions when the C parser is in use; without directives the answer cannot change. It also
        builds the table of implicit types again for every load, and a new list for every scalar: here
        both are made once (the same rules, tried in the same order)."""

        @property
        def processing_version(self) -> tuple[int, int]:
            return (1, 2)

        def resolve(self, kind: Any, value: Any, implicit_: Any) -> Any:
            if kind is ScalarNode and implicit_[0]:
                for tag, regexp in implicit.get(value[:1], anywhere):
                    if regexp.match(value):
                        return Tag(suffix=tag)
                implicit_ = (False, implicit_[1])  # as ruamel goes on: no implicit type matched
            return super().resolve(kind, value, implicit_)

    return Yaml12Resolver


@cache
def _c_loader() -> type:
    """What `_c_yaml().load` builds for every text (a class made on the spot, a `YAML` object's
    bookkeeping), made once: the C parser composing, the safe constructor, the 1.2 resolver. Without
    ruamel's C extension this import fails, and `load_mapping` reads every text with the pure parser."""
    from _ruamel_yaml import CParser  # type: ignore[import-not-found]  # where ruamel.yaml takes it from
    from ruamel.yaml.constructor import SafeConstructor

    resolver = _yaml12_resolver()

    class Loader(CParser, SafeConstructor, resolver):  # type: ignore[misc,valid-type]
        def __init__(self, stream: str) -> None:
            CParser.__init__(self, stream)
            self._parser = self._composer = self
            SafeConstructor.__init__(self, loader=self)
            self.allow_duplicate_keys = False
            resolver.__init__(self, version=None, loadumper=self)  # type: ignore[misc]

    return Loader


def _load_c(text: str) -> Any:
    """`_c_yaml().load(text)`, the same data or the same failure, without its set-up for every text."""
    loader = _c_loader()(text)
    try:
        return loader.get_single_data()
    finally:
        loader.dispose()


def load_mapping(text: str) -> dict[str, Any]:
    """The YAML as a plain dict with string keys, or YamlProblem."""
    # The C parser (ruamel.yaml.clib) is several times faster, but it ignores `%YAML` directives and
    # words its errors differently; a text with a directive, or one that fails, goes through the
    # pure-Python parser, so every machine reports the same thing.
    _check_depth(text)
    if "%YAML" not in text:
        try:
            data = _load_c(text)
        except Exception:  # any failure of the C path is reported by the pure one, or not at all
            data = _load_pure(text)
    else:
        data = _load_pure(text)
    if not isinstance(data, dict):
        raise YamlProblem("HZC001", "the frontmatter must be a YAML mapping of keys to values", 1, 1)
    _check_keys(text, data)
    return data


def _load_pure(text: str) -> Any:
    from ruamel.yaml.constructor import DuplicateKeyError
    from ruamel.yaml.error import MarkedYAMLError, YAMLError

    try:
        return _yaml().load(text)
    except DuplicateKeyError as exc:
        raise _problem("HZC004", exc) from None
    except MarkedYAMLError as exc:
        raise _problem("HZC001", exc) from None
    except YAMLError as exc:  # unmarked errors (a bad directive, say) still belong to the file
        raise YamlProblem("HZC001", f"the frontmatter is not valid YAML: {exc}", 1, 1) from None
    except RecursionError:
        raise YamlProblem("HZC001", f"the frontmatter nests deeper than {MAX_DEPTH} levels", 1, 1) from None
    except ValueError:  # the one the constructor lets through: Python's limit on digits of a number
        line, column = _long_number(text)
        raise YamlProblem("HZC001", "the frontmatter holds a number of more than 4,300 digits", line, column) from None


_LONG_NUMBER = re.compile(r"(?<![0-9])[0-9]{4301}")  # from where a run starts, so the search stays linear


def _long_number(text: str) -> Position:
    found = _LONG_NUMBER.search(text)
    if found is None:
        return 1, 1
    before = text[: found.start()]
    return before.count("\n") + 1, found.start() - before.rfind("\n")


def _problem(code: str, exc: Any) -> YamlProblem:
    mark = exc.problem_mark or exc.context_mark
    line, column = (mark.line + 1, mark.column + 1) if mark is not None else (1, 1)
    problem = str(exc.problem or exc.context or "").strip()
    if code == "HZC004":
        message = f"{problem}; YAML keys must be unique, and hz never lets a later one win"
    else:
        message = f"the frontmatter is not valid YAML: {problem}"
    return YamlProblem(code, message, line, column)


MAX_DEPTH = 32  # no contract nests deeper than about six levels
MAX_VALUES = 20_000  # counting every use of an alias, so `&a`/`*a` bombs stop here


def _check_keys(text: str, data: dict[str, Any]) -> None:
    """Every key a string, and the tree (aliases expanded) small and shallow enough to validate.

    Walked without recursion and in document order, so the first offending key is the one reported.
    """
    stack: list[tuple[Any, Loc]] = [(data, ())]
    seen = 0
    while stack:
        value, loc = stack.pop()
        seen += 1
        if seen > MAX_VALUES:
            raise YamlProblem(
                "HZC001", f"the frontmatter holds more than {MAX_VALUES:,} values (aliases counted)", 1, 1
            )
        if len(loc) > MAX_DEPTH:
            line, column = YamlMarks(text).value(loc[:MAX_DEPTH])
            raise YamlProblem("HZC001", f"the frontmatter nests deeper than {MAX_DEPTH} levels", line, column)
        if isinstance(value, str) and not _is_unicode(value):
            line, column = YamlMarks(text).value(loc)
            raise YamlProblem("HZC001", _SURROGATE, line, column, _dotted(loc) or "frontmatter", _SURROGATE_HINT)
        if isinstance(value, dict):
            for index, key in enumerate(value):
                if not isinstance(key, str) or not _is_unicode(key):
                    line, column = YamlMarks(text).nth_key(loc, index)
                    message = (
                        _SURROGATE
                        if isinstance(key, str)
                        else f"key {key!r} is not a string (YAML read it as {type(key).__name__}); put it in quotes"
                    )
                    code = "HZC001" if isinstance(key, str) else "HZC004"
                    hint = _SURROGATE_HINT if code == "HZC001" else ""
                    raise YamlProblem(code, message, line, column, _dotted(loc) or "frontmatter", hint)
            stack.extend(((item, (*loc, key)) for key, item in reversed(value.items())))
        elif isinstance(value, list):
            stack.extend(((item, (*loc, index)) for index, item in reversed(list(enumerate(value)))))


# An escape such as "\\ud800" makes half of a UTF-16 pair, which is no character: it can be neither
# printed nor stored, and pydantic fails on it while explaining any other error.
_SURROGATE = 'the text holds an escaped half of a UTF-16 pair (such as "\\ud800"), which is no character'
_SURROGATE_HINT = "write the character itself, or escape it whole: \\U0001F600 rather than \\ud83d\\ude00"


def _is_unicode(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


# Every level of nesting starts at one of these characters: `[`, `{`, a `-` entry, a `?` or `:` key.
_OPENERS = "[{-?:"
_COUNT_BEFORE_PARSING = 1_000  # a real frontmatter has a few dozen; more may nest too deep to compose


def _check_depth(text: str) -> None:
    """Refuse nesting far past MAX_DEPTH before the text is composed into nodes.

    Composing recurses once per level: about 1,000 levels ends in a RecursionError (seconds late), and
    the C parser's composer recurses in C, so 100,000 nested `[` crashed the process. The events of a
    parse come one by one without recursion; counting them stops at the first level too deep. A text
    with few opening characters cannot nest deeply, so it skips this pass. Anything this pass leaves
    (one level past MAX_DEPTH and less) is left to `_check_keys`, which names the key path.
    """
    if sum(text.count(opener) for opener in _OPENERS) <= _COUNT_BEFORE_PARSING:
        return
    depth = 0
    try:
        for event in (_c_yaml() if "%YAML" not in text else _yaml()).parse(text):
            kind = type(event).__name__
            if kind in ("MappingStartEvent", "SequenceStartEvent"):
                depth += 1
                if depth > MAX_DEPTH + 1:
                    mark = event.start_mark
                    raise YamlProblem(
                        "HZC001",
                        f"the frontmatter nests deeper than {MAX_DEPTH} levels",
                        mark.line + 1,
                        mark.column + 1,
                    )
            elif kind in ("MappingEndEvent", "SequenceEndEvent"):
                depth -= 1
    except YamlProblem:
        raise
    except Exception:  # not YAML: loading it says where and why
        return


def _dotted(loc: Loc) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


@dataclass
class YamlMarks:
    """Positions of the nodes of a YAML text by key path, composed only when first asked for.

    Loading stays fast because the node tree is built only for a file that has something to report.
    """

    text: str
    _values: dict[Loc, Position] = field(default_factory=dict, init=False)
    _keys: dict[Loc, Position] = field(default_factory=dict, init=False)
    _order: dict[Loc, list[Position]] = field(default_factory=dict, init=False)
    _built: bool = field(default=False, init=False)

    def value(self, loc: Loc) -> Position:
        """The position of the value at `loc`, or of its nearest ancestor that exists."""
        self._build()
        return _nearest(self._values, loc)

    def key(self, loc: Loc) -> Position:
        """The position of the key naming `loc` (for an unknown key), else as `value`."""
        self._build()
        return self._keys.get(loc) or _nearest(self._values, loc)

    def nth_key(self, loc: Loc, index: int) -> Position:
        """The position of the index-th key of the mapping at `loc` (a key that is not a string)."""
        self._build()
        keys = self._order.get(loc, [])
        return keys[index] if index < len(keys) else _nearest(self._values, loc)

    def _build(self) -> None:
        if self._built:
            return
        self._built = True
        node = _compose(self.text)
        if node is not None:
            for loc, key_node, value_node in _walk(node):
                self._values[loc] = _position(value_node)
                if key_node is not None:
                    self._keys[loc] = _position(key_node)
                    self._order.setdefault(loc[:-1], []).append(_position(key_node))


def _compose(text: str) -> Any:
    """The node tree of `text`, or None. The C composer when the text allows it (as `load_mapping`
    decides): the pure one took 20 ms a contract, which made placing a finding on each of a thousand
    contracts downstream of a broken one cost 18 s."""
    attempts = (_c_yaml, _yaml) if "%YAML" not in text else (_yaml,)
    for make in attempts:
        try:
            return make().compose(text)
        except Exception:  # marks are a nicety: a text that cannot compose points at its start
            continue
    return None


def _position(node: Any) -> Position:
    return node.start_mark.line + 1, node.start_mark.column + 1


def _nearest(table: dict[Loc, Position], loc: Loc) -> Position:
    for end in range(len(loc), -1, -1):
        if (found := table.get(loc[:end])) is not None:
            return found
    return 1, 1


def _walk(root: Any) -> Iterator[tuple[Loc, Any, Any]]:
    """(loc, key node, value node) of every node in document order, without recursion.

    Bounded like `_check_keys`: an alias that contains itself or a deep tree cannot make this run away.
    """
    from ruamel.yaml.nodes import MappingNode, SequenceNode

    yield (), None, root
    stack: list[tuple[Any, Loc]] = [(root, ())]
    seen = 0
    while stack and seen < MAX_VALUES:
        node, loc = stack.pop()
        if len(loc) >= MAX_DEPTH:
            continue
        children: list[tuple[Loc, Any, Any]] = []
        if isinstance(node, MappingNode):
            children = [((*loc, str(key.value)), key, value) for key, value in node.value]
        elif isinstance(node, SequenceNode):
            children = [((*loc, index), None, value) for index, value in enumerate(node.value)]
        for child, key, value in children:
            seen += 1
            yield child, key, value
        stack.extend((value, child) for child, _, value in reversed(children))
