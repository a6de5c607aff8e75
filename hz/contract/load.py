"""Loading a contract: text in, a compiled `Contract` or diagnostics out, never an exception.

The steps, in order: normalize (NFC, LF), split the frontmatter (either form), load the YAML strictly,
read `hz.schema` and migrate, apply directory defaults, validate the frontmatter (stage 1), parse the
body and check it against the frontmatter (stage 2), then fingerprint. Stage 3 (registry, layers,
graph) needs every contract at once and lives in `hz.contract.resolve` and `hz.contract.project`.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

from hz.contract.fingerprint import contract_fingerprint, section_fingerprints, source_fingerprint
from hz.contract.model import ContractFrontmatter
from hz.contract.sections import Section
from hz.contract.validate import Locator
from hz.diagnostic import Diagnostic, has_errors

SUFFIX = ".prose.md"


@dataclass(frozen=True)
class Contract:
    """A contract that passed stages 1 and 2: its model, its sections and its fingerprints."""

    path: Path
    namespace: str
    name: str
    frontmatter: ContractFrontmatter  # migrated, defaults filled
    sections: Mapping[str, Section]  # normalized section name ("done when") -> Section
    text: str  # canonical full text, `---` form
    source_fingerprint: str
    contract_fingerprint: str
    section_fingerprints: Mapping[str, str]
    title: str | None = None  # the optional `#` title of the body
    form: str = "file"  # how the frontmatter was written: "file" (---) or "embedded" (```yaml)
    _where: Locator | None = field(default=None, repr=False, compare=False)

    @property
    def qualified_name(self) -> str:
        return f"{self.namespace}:{self.name}"

    @property
    def body(self) -> str:
        """The canonical Markdown body, comments included (what the author wrote)."""
        return self.text.split("\n---\n", 1)[1].lstrip("\n")

    @property
    def agent_body(self) -> str:
        """The canonical body without HTML comments: author notes are never shown to an agent."""
        from hz.contract.text import strip_comments, tidy

        return tidy(strip_comments(self.body)) + "\n"

    def locate(self, loc: tuple[str | int, ...]) -> tuple[int, int]:
        """1-based line and column of the YAML node at `loc` (its nearest existing ancestor if absent)."""
        return self._where.value(loc) if self._where else (1, 1)

    def locate_key(self, loc: tuple[str | int, ...]) -> tuple[int, int]:
        """Like `locate`, but the position of the key itself (where an unknown or extra key is named)."""
        return self._where.key(loc) if self._where else (1, 1)


@dataclass(frozen=True)
class LoadResult:
    contract: Contract | None  # None when an error prevents compiling
    diagnostics: tuple[Diagnostic, ...]
    # The contract as far as it compiled: set when the frontmatter validated even though the body did
    # not, so stage 3 can still check what the frontmatter names and report it in the same run.
    draft: Contract | None = None

    @property
    def ok(self) -> bool:
        return not has_errors(self.diagnostics)


def stem_of(path: Path) -> str:
    """`weekly-digest.prose.md` -> `weekly-digest` (the name a contract's `name` must equal)."""
    name = path.name
    return name[: -len(SUFFIX)] if name.endswith(SUFFIX) else path.stem


def load_contract(
    path: Path, *, text: str | None = None, namespace: str = "team", defaults: Mapping[str, Any] | None = None
) -> LoadResult:
    """Load the contract at `path` (or `text`, read from there); its name must equal the file stem."""
    if text is None:
        from hz.textfile import UnreadableFile, read_bytes_file

        try:  # bounded, and never waiting on a FIFO or a device named like a contract
            data = read_bytes_file(path, hint="")
        except UnreadableFile as exc:
            return _failed(str(path), 1, 1, "HZC001", f"the file {exc.reason}", READ_HINT, "file")
        decoded = decode(data)
        if isinstance(decoded, Diagnostic):
            return LoadResult(None, (decoded.at(str(path)),))
        text = decoded
    return _load(text, path=path, namespace=namespace, defaults=defaults, stem=stem_of(path))


READ_HINT = "a contract is a regular UTF-8 text file of at most 1 MiB; move anything else out of the folder"


def decode(data: bytes, path: str = "") -> str | Diagnostic:
    """A contract's bytes as text, or HZC001 saying what they look like and how to make them UTF-8."""
    looks, encoding = _looks_like(data)
    try:
        text = data.decode("utf-8")
        if encoding not in ("UTF-16", "UTF-32"):
            return text
        start = data.index(b"\x00")  # UTF-16 of plain ASCII decodes, as letters between zero bytes
    except UnicodeDecodeError as exc:
        start = exc.start
    line = data[:start].count(b"\n") + 1
    column = start - data.rfind(b"\n", 0, start)
    message = f"the file is not UTF-8 text (byte {start} is {data[start]:#04x}); it looks like {looks}"
    shown = path or "FILE"
    hint = (
        f"save it as UTF-8 (iconv -f {encoding} -t UTF-8 {shown} > {shown}.utf8, then replace the file)"
        if encoding
        else "this is not a contract: move it out of the contracts' folder"
    )
    return Diagnostic(path, line, column, "HZC001", "error", "file", message, hint)


def _looks_like(data: bytes) -> tuple[str, str | None]:
    """What undecodable bytes most likely are, and the encoding to convert from (None: not text)."""
    head = data[:1024]
    zeros = head.count(b"\x00") / max(len(head), 1)  # text in UTF-16 is about half zeros, UTF-32 three quarters
    if data.startswith((b"\xff\xfe\x00\x00", b"\x00\x00\xfe\xff")) or zeros > 0.6:
        return "UTF-32", "UTF-32"
    if data.startswith((b"\xff\xfe", b"\xfe\xff")) or zeros > 0.3:
        return "UTF-16", "UTF-16"
    if zeros:
        return "binary data", None
    return "Windows (CP1252) or Latin-1 text", "CP1252"


def load_text(
    text: str, *, path: str = "<text>", namespace: str = "team", defaults: Mapping[str, Any] | None = None
) -> LoadResult:
    """Load a contract from text; `path` is only a label for diagnostics, so no file-name check."""
    return _load(text, path=Path(path), namespace=namespace, defaults=defaults, stem=None)


def _load(text: str, *, path: Path, namespace: str, defaults: Mapping[str, Any] | None, stem: str | None) -> LoadResult:
    """A compile, or inside `hz.contract.compiled.shared()` the one of the same text earlier in the tick.

    The label (`path`) only names the file in diagnostics and `Contract.path`, so a kept result is handed
    out again under the new label. The stem adds one finding only, when the validated name differs from
    it; a result is kept under no stem whenever the stem changed nothing. Inside
    `hz.contract.compile_cache.kept_in` (an Actions run's tick) a result also outlives the process."""
    from hz.contract import compile_cache, compiled

    applied = repr(dict(defaults)) if defaults else None  # {} applies as None does
    key = ("load", text, namespace, applied)
    kept: LoadResult | None = compiled.peek(key)
    if kept is not None and _stem_agrees(kept, stem):
        return _relabel(kept, path)
    stored = compile_cache.key_of(text, namespace, applied) if compile_cache.active() else None
    found: LoadResult | None = compile_cache.lookup(stored, path) if stored else None
    if found is not None and _stem_agrees(found, stem):
        compiled.keep(key, found)
        return found
    result = _compile(text, path=path, namespace=namespace, defaults=defaults, stem=stem)
    if _stem_agrees(result, stem):
        compiled.keep(key, result)
        if stored:
            compile_cache.record(stored, result)
    return result


def _stem_agrees(result: LoadResult, stem: str | None) -> bool:
    """Whether `result` is what a compile under `stem` gives: the stem adds a finding only when the
    validated name differs from it, so a result kept under no stem serves any stem its name matches."""
    return stem is None or result.draft is None or result.draft.name == stem


def _relabel(result: LoadResult, path: Path) -> LoadResult:
    """`result` as a compile of the same text labelled `path` gives it."""
    import dataclasses

    label = str(path)
    contract = result.draft or result.contract
    if contract is not None and contract.path == path and all(d.path == label for d in result.diagnostics):
        return result
    draft = dataclasses.replace(result.draft, path=path) if result.draft is not None else None
    main = None if result.contract is None else draft if result.contract is result.draft else (
        dataclasses.replace(result.contract, path=path))  # fmt: skip
    return LoadResult(main, tuple(d.at(label) for d in result.diagnostics), draft)


def _compile(
    text: str, *, path: Path, namespace: str, defaults: Mapping[str, Any] | None, stem: str | None
) -> LoadResult:
    from hz.contract import text as texts
    from hz.contract.bodycheck import Declared, check_body
    from hz.contract.migrate import SchemaTooNew, migrate
    from hz.contract.sections import parse_body
    from hz.contract.validate import check_frontmatter
    from hz.contract.yamlload import YamlMarks, YamlProblem, load_mapping

    label = str(path)
    text = texts.normalize(text)
    lone = _lone_surrogate(text)
    if lone is not None:  # only a text handed over as a string can hold one: no file decodes to it
        line, column = lone
        message = "the text holds a lone surrogate code point, which no UTF-8 file can hold"
        return _failed(label, line, column, "HZC001", message, "pass the contract as the UTF-8 text of a file", "file")
    split = texts.split_frontmatter(text)
    if split is None:
        return _failed(
            label,
            1,
            1,
            "HZC001",
            "no frontmatter: the file must start with a --- line or a ```yaml block",
            "start the file with the frontmatter between two --- lines (`hz workflow new` writes a skeleton)",
        )
    where = Locator(YamlMarks(split.yaml), split.yaml_line)
    body = parse_body(split.body, split.body_line)

    def body_findings(declared: Declared) -> list[Diagnostic]:
        # The body is checked even when the frontmatter failed, so every stage's findings come in one run.
        return check_body(declared, body, path=label, body_line=split.body_line, where=where.value)

    try:
        data = load_mapping(split.yaml)
    except YamlProblem as problem:
        hint = problem.hint or (
            "quote the key, or remove the duplicate" if problem.code == "HZC004" else "fix the YAML syntax"
        )
        line = split.yaml_line + problem.line - 1
        failed = Diagnostic(label, line, problem.column, problem.code, "error", problem.loc, problem.message, hint)
        return LoadResult(None, (failed, *body_findings(Declared(None, None))))
    try:
        data = migrate(data)
    except SchemaTooNew as exc:  # a newer format's body may follow other rules: not checked
        line, column = where.value(("hz", "schema"))
        hint = "this contract was written for a newer hz: upgrade hz, then run the command again"
        return _failed(label, line, column, "HZC003", str(exc), hint)
    data = apply_defaults(data, defaults)
    frontmatter, found = check_frontmatter(data, path=label, stem=stem, where=where)
    if frontmatter is None:
        return LoadResult(None, (*found, *body_findings(Declared.guessed(data))))
    found += body_findings(Declared.of(frontmatter))
    sections: dict[str, Section] = {}
    for section in body.sections:
        sections.setdefault(section.name, section)  # of two same-named sections the first counts
    section_fps = section_fingerprints(body.sections)
    canonical = texts.canonical_text(split.yaml, body.canonical)
    contract = Contract(
        path=path,
        namespace=namespace,
        name=frontmatter.name,
        frontmatter=frontmatter,
        sections=MappingProxyType(sections),
        text=canonical,
        source_fingerprint=source_fingerprint(canonical),
        contract_fingerprint=contract_fingerprint(frontmatter, section_fps),
        section_fingerprints=MappingProxyType(section_fps),
        title=body.title,
        form=split.form,
        _where=where,
    )
    return LoadResult(None if has_errors(found) else contract, tuple(found), contract)


def _lone_surrogate(text: str) -> tuple[int, int] | None:
    """Line and column of the first code point UTF-8 cannot encode (fingerprints hash UTF-8), else None."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        return text.count("\n", 0, exc.start) + 1, exc.start - text.rfind("\n", 0, exc.start)
    return None


def _failed(
    path: str, line: int, column: int, code: str, message: str, hint: str, loc: str = "frontmatter"
) -> LoadResult:
    return LoadResult(None, (Diagnostic(path, line, column, code, "error", loc, message, hint),))


def apply_defaults(data: dict[str, Any], defaults: Mapping[str, Any] | None) -> dict[str, Any]:
    """Deep-merge directory defaults (the `hz:` mapping of `_defaults.yaml`) under the file's own keys.

    `tz` is not a key of `hz:`: it is the time zone of every schedule entry that names none.
    """
    if not defaults or not isinstance(data.get("hz"), dict):
        return data
    extra = {key: value for key, value in defaults.items() if key != "tz"}
    hz = _merge(extra, data["hz"])
    zone = defaults.get("tz")
    if isinstance(zone, str) and "schedule" in hz:
        hz["schedule"] = _with_zone(hz["schedule"], zone)
    return {**data, "hz": hz}


def _merge(under: Mapping[str, Any], over: Mapping[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(dict(under))
    for key, value in over.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _merge(out[key], value)
        else:
            out[key] = value
    return out


def _with_zone(schedule: Any, zone: str) -> Any:
    def one(entry: Any) -> Any:
        if isinstance(entry, str):
            return {"cron": entry, "tz": zone}
        if isinstance(entry, dict) and "tz" not in entry:
            return {**entry, "tz": zone}
        return entry

    return [one(e) for e in schedule] if isinstance(schedule, list) else one(schedule)
