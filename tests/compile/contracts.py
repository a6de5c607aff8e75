"""Writing small valid contracts into layer directories, so each test states only what it varies."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path


def contract(
    name: str,
    *,
    scope: str = "team",
    inputs: Mapping[str, str | Sequence[str]] | None = None,
    facets: Sequence[str] = ("summary",),
    on: Sequence[str] | None = None,
    extra: str = "",
) -> str:
    """A contract that passes stages 1 and 2. `extra` is YAML appended under `hz:` (indented by two)."""
    inputs = {"commits": "git:log"} if inputs is None else inputs
    lines = [
        "---",
        f"name: {name}",
        "kind: responsibility",
        f"description: Keeps {name} current for the team.",
        "hz:",
        "  schema: 1",
        f"  title: {name}",
        '  owner: "@alice"',
        f"  scope: {scope}",
    ]
    if on is not None:
        lines.append(f"  on: [{', '.join(on)}]")
    if inputs:
        lines.append("  inputs:")
        for input_name, source in inputs.items():
            shown = source if isinstance(source, str) else "[" + ", ".join(f'"{s}"' for s in source) + "]"
            lines += [f"    {input_name}:", f"      source: {_quote(shown)}"]
    lines += [
        "  outputs:",
        "    page:",
        f"      target: state:reports/{name}.md",
        f"      facets: [{', '.join(facets)}]",
    ]
    lines += [line for line in extra.splitlines() if line]
    lines += ["---", "", "### Goal", "", f"The {name} page is current.", ""]
    if inputs:
        lines += ["### Requires", ""] + [f"- `{i}`: what it says." for i in inputs] + [""]
    lines += ["### Maintains", "", "- `page`: a page.", ""]
    for facet in facets:
        lines += [f"#### {facet}", "", "Material: the facts.", ""]
    lines += ["### Done when", "", "- [ ] it is current", ""]
    return "\n".join(lines)


def _quote(value: str) -> str:
    return value if value.startswith("[") else f'"{value}"'


def write(directory: Path, name: str, text: str | None = None, **kwargs: object) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{name}.prose.md"
    path.write_text(contract(name, **kwargs) if text is None else text, encoding="utf-8")  # type: ignore[arg-type]
    return path


def line_of(fragment: str, path: Path) -> int:
    text = path.read_text(encoding="utf-8")
    return text[: text.index(fragment)].count("\n") + 1
