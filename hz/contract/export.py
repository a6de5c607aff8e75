"""Export to OpenProse: the `hz:` block dropped, `### Done when` folded back into Maintains.

OpenProse keeps postconditions inside `### Maintains`; hz lifts them into their own section because
people read and write them more easily there. Export reverses that, so the contract is a plain
OpenProse responsibility again.
"""

from __future__ import annotations

from hz.contract.load import Contract
from hz.contract.text import tidy

DONE_WHEN = "### done when"
MAINTAINS = "### maintains"


def export_prose(contract: Contract) -> str:
    """The contract's canonical text as an OpenProse file."""
    head, _, rest = contract.text.removeprefix("---\n").partition("\n---\n")
    frontmatter = _without_hz(head.split("\n"))
    sections = _split(rest.split("\n"))
    done = next((lines for heading, lines in sections if heading.lower() == DONE_WHEN), [])
    out: list[str] = []
    for heading, lines in sections:
        if heading.lower() == DONE_WHEN:
            continue
        if heading.lower() == MAINTAINS and done:
            lines = [*lines, "", "Postconditions:", "", *done[1:]]
        if text := tidy("\n".join(lines)):
            out.append(text)
    return "---\n" + "\n".join(frontmatter) + "\n---\n\n" + "\n\n".join(out) + "\n"


def _without_hz(lines: list[str]) -> list[str]:
    """Top-level YAML keys other than `hz:`; the block ends at the next line that is not indented."""
    out: list[str] = []
    inside = False
    for line in lines:
        if line and not line[0].isspace() and not line.startswith("#"):
            inside = line.split(":", 1)[0].strip() == "hz"
        if not inside:
            out.append(line)
    return [line for line in out if line.strip()]


def _split(lines: list[str]) -> list[tuple[str, list[str]]]:
    """The body cut at its `###` headings (canonical text has every section at level 3)."""
    parts: list[tuple[str, list[str]]] = [("", [])]
    for line in lines:
        if line.startswith("### "):
            parts.append((line, []))
        parts[-1][1].append(line)
    return parts
