"""A compile result as plain JSON data and back, so a result can be kept outside the process.

`to_plain` gives only str, int, float, bool, None, lists and dicts; `from_plain` rebuilds the equal
`LoadResult` under a new label, as `hz.contract.load._relabel` would label the original. What comes back
in may have been written by anyone (a cache file is restored from outside), so every value is checked
for its type and range and the frontmatter goes through the model's own validation again: anything
malformed raises `PlainInvalid`, and nothing else escapes.

The shape, kept compact because a cache holds a thousand of these (`FORMAT` changes with it):
`{"format", "diagnostics": [[line, column, code, severity, loc, message, hint]], "draft": contract or
None, "contract": "draft" (the very draft object, as a successful compile gives), None, or a contract}`.
Labels (`path`) are left out: the reader supplies its own.
"""

from __future__ import annotations

from pathlib import Path
from types import MappingProxyType
from typing import Any

from hz.contract.load import Contract, LoadResult
from hz.contract.model import ContractFrontmatter
from hz.contract.sections import UNFINGERPRINTED, Facet, Item, Section
from hz.contract.validate import Locator
from hz.contract.yamlload import YamlMarks
from hz.diagnostic import Diagnostic, Severity

FORMAT = 1
# Lines, columns and counts are far below this in any file hz reads (at most 1 MiB); anything larger
# was not written by `to_plain`.
_MAX_INT = 2**31 - 1
_CONTRACT_KEYS = frozenset(
    {"namespace", "name", "frontmatter", "sections", "text", "source_fingerprint", "contract_fingerprint"}
    | {"section_fingerprints", "title", "form", "yaml", "yaml_line"}
)
_RESULT_KEYS = frozenset({"format", "diagnostics", "draft", "contract"})
_FORMS = frozenset({"file", "embedded"})
_SEVERITIES: dict[str, Severity] = {"error": "error", "warning": "warning"}


class PlainInvalid(ValueError):
    """The plain data is not what `to_plain` writes: wrong shape, wrong types, or a frontmatter the
    model refuses."""


def to_plain(result: LoadResult) -> dict[str, Any]:
    """`result` as JSON data (its labels left out)."""
    draft = result.draft
    contract: Any
    if result.contract is None:
        contract = None
    elif result.contract is draft:
        contract = "draft"
    else:  # no compile gives this, but a result built by hand still travels whole
        contract = _contract_plain(result.contract)
    return {
        "format": FORMAT,
        "diagnostics": [[d.line, d.column, d.code, d.severity, d.loc, d.message, d.hint] for d in result.diagnostics],
        "draft": None if draft is None else _contract_plain(draft),
        "contract": contract,
    }


def from_plain(plain: Any, path: Path) -> LoadResult:
    """The `LoadResult` that `plain` (from `to_plain`) describes, labelled `path`; `PlainInvalid` if
    `plain` is malformed in any way."""
    try:
        return _result(plain, path)
    except PlainInvalid:
        raise
    except Exception as exc:  # a check below that missed a case must still not leak a stranger error
        raise PlainInvalid(f"malformed compile result: {type(exc).__name__}") from None


def _contract_plain(contract: Contract) -> dict[str, Any]:
    where = contract._where
    yaml: str | None = None
    if where is not None and where.marks.text != _yaml_of(contract.text):
        yaml = where.marks.text  # leading blank lines or a second `---` inside: the canonical text lost it
    return {
        "namespace": contract.namespace,
        "name": contract.name,
        # Only the keys the contract set, so defaults are not validated twice and `model_fields_set`
        # comes back the same; durations travel in their canonical spelling ("7d").
        "frontmatter": contract.frontmatter.model_dump(mode="json", by_alias=True, exclude_unset=True),
        "sections": [_section_plain(section) for section in contract.sections.values()],
        "text": contract.text,
        "source_fingerprint": contract.source_fingerprint,
        "contract_fingerprint": contract.contract_fingerprint,
        # in the order of the sections they belong to (every section but the unfingerprinted ones)
        "section_fingerprints": list(contract.section_fingerprints.values()),
        "title": contract.title,
        "form": contract.form,
        "yaml": yaml,
        "yaml_line": None if where is None else where.yaml_line,
    }


def _section_plain(section: Section) -> list[Any]:
    items = [[i.name, i.text, i.line, list(i.facets)] for i in section.items.values()]
    facets = [[f.name, f.text, f.line, f.item] for f in section.facets]
    return [section.name, section.heading, section.text, section.line, section.list_items, items, facets]


def _yaml_of(text: str) -> str:
    """The frontmatter's YAML as the canonical text holds it (`---\\n<yaml>---\\n<body>`)."""
    end = text.find("\n---\n", 3)
    return text[4 : end + 1] if text.startswith("---\n") and end >= 3 else ""


def _result(plain: Any, path: Path) -> LoadResult:
    _keys(plain, _RESULT_KEYS, "result")
    if type(plain["format"]) is not int or plain["format"] != FORMAT:
        raise PlainInvalid(f"not format {FORMAT}, the one this hz reads")
    label = str(path)
    diagnostics = tuple(_diagnostic(d, label) for d in _list(plain["diagnostics"], "diagnostics"))
    draft = None if plain["draft"] is None else _contract(plain["draft"], path)
    main = plain["contract"]
    if type(main) is str and main == "draft":
        if draft is None:
            raise PlainInvalid("the contract is said to be the draft, but there is no draft")
        contract: Contract | None = draft
    else:
        contract = None if main is None else _contract(main, path)
    return LoadResult(contract, diagnostics, draft)


def _diagnostic(plain: Any, label: str) -> Diagnostic:
    if type(plain) is not list or len(plain) != 7:
        raise PlainInvalid("a diagnostic is a list of seven values")
    line, column, code, severity, loc, message, hint = plain
    if type(severity) is not str or severity not in _SEVERITIES:
        raise PlainInvalid("a severity is error or warning")
    severity = _SEVERITIES[severity]
    return Diagnostic(label, _int(line), _int(column), _str(code), severity, _str(loc), _str(message), _str(hint))


def _contract(plain: Any, path: Path) -> Contract:
    _keys(plain, _CONTRACT_KEYS, "contract")
    text = _str(plain["text"])
    form = plain["form"]
    if type(form) is not str or form not in _FORMS:
        raise PlainInvalid("a frontmatter form is file or embedded")
    sections: dict[str, Section] = {}
    for entry in _list(plain["sections"], "sections"):
        section = _section(entry)
        if sections.setdefault(section.name, section) is not section:
            raise PlainInvalid(f"section {section.name!r} given twice")
    names = [name for name in sections if name not in UNFINGERPRINTED]
    values = _list(plain["section_fingerprints"], "section_fingerprints")
    if len(values) != len(names):
        raise PlainInvalid("not one fingerprint for each fingerprinted section")
    fingerprints = {name: _str(value) for name, value in zip(names, values, strict=True)}
    frontmatter = _frontmatter(plain["frontmatter"])
    name = _str(plain["name"])
    if name != frontmatter.name:
        raise PlainInvalid(f"the name {name!r} differs from the frontmatter's {frontmatter.name!r}")
    where = None
    if plain["yaml_line"] is not None:
        yaml = _yaml_of(text) if plain["yaml"] is None else _str(plain["yaml"])
        where = Locator(YamlMarks(yaml), _int(plain["yaml_line"]))
    elif plain["yaml"] is not None:
        raise PlainInvalid("a frontmatter text without its first line")
    title = plain["title"]
    return Contract(
        path=path,
        namespace=_str(plain["namespace"]),
        name=name,
        frontmatter=frontmatter,
        sections=MappingProxyType(sections),
        text=text,
        source_fingerprint=_str(plain["source_fingerprint"]),
        contract_fingerprint=_str(plain["contract_fingerprint"]),
        section_fingerprints=MappingProxyType(fingerprints),
        title=None if title is None else _str(title),
        form=form,
        _where=where,
    )


def _frontmatter(plain: Any) -> ContractFrontmatter:
    if type(plain) is not dict:
        raise PlainInvalid("the frontmatter is not a mapping")
    try:
        return ContractFrontmatter.model_validate(plain)
    except Exception as exc:  # ValidationError, or whatever a validator of hostile data may raise
        raise PlainInvalid(f"the frontmatter does not validate: {exc}") from None


def _section(plain: Any) -> Section:
    if type(plain) is not list or len(plain) != 7:
        raise PlainInvalid("a section is a list of seven values")
    name, heading, text, line, list_items, items, facets = plain
    named: dict[str, Item] = {}
    for entry in _list(items, "items"):
        item = _item(entry)
        if named.setdefault(item.name, item) is not item:
            raise PlainInvalid(f"item {item.name!r} given twice")
    return Section(
        _str(name),
        _str(heading),
        _str(text),
        _int(line),
        named,
        tuple(_facet(f) for f in _list(facets, "facets")),
        _int(list_items),
    )


def _item(plain: Any) -> Item:
    if type(plain) is not list or len(plain) != 4:
        raise PlainInvalid("an item is a list of four values")
    name, text, line, facets = plain
    return Item(_str(name), _str(text), _int(line), tuple(_str(f) for f in _list(facets, "item facets")))


def _facet(plain: Any) -> Facet:
    if type(plain) is not list or len(plain) != 4:
        raise PlainInvalid("a facet is a list of four values")
    name, text, line, item = plain
    return Facet(_str(name), _str(text), _int(line), None if item is None else _str(item))


def _keys(plain: Any, keys: frozenset[str], what: str) -> None:
    if type(plain) is not dict:
        raise PlainInvalid(f"the {what} is not a mapping")
    if plain.keys() != keys:
        raise PlainInvalid(f"the {what} does not have exactly the keys {', '.join(sorted(keys))}")


def _str(value: Any) -> str:
    if type(value) is not str:
        raise PlainInvalid(f"expected a string, got {type(value).__name__}")
    return value


def _int(value: Any) -> int:
    if type(value) is not int or not 0 <= value <= _MAX_INT:
        raise PlainInvalid(f"expected a whole number up to {_MAX_INT}, got {type(value).__name__}")
    return value


def _list(value: Any, what: str) -> list[Any]:
    if type(value) is not list:
        raise PlainInvalid(f"{what}: expected a list, got {type(value).__name__}")
    return value
