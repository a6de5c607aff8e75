"""The JSON Schema of the frontmatter, generated from the models and committed for editors and review.

It is committed twice: `docs/schemas/` for readers of the repository, and inside the package
(`hz/contract/schemas/`, package data), so a hint can name a file every installed hz has.
Regenerate both after changing `hz.contract.model`:  `.venv/bin/python -m hz.contract.schema`
A test fails when either differs from what this module generates.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from hz.contract.model import SCHEMA_VERSION, ContractFrontmatter

SCHEMA_PATH = Path("docs") / "schemas" / f"contract-frontmatter-{SCHEMA_VERSION}.json"
PACKAGED = Path("schemas") / f"contract-frontmatter-{SCHEMA_VERSION}.json"  # beside this module


def installed_schema() -> Path:
    """Where the installed package keeps the JSON Schema (what hints point at)."""
    return Path(__file__).resolve().parent / PACKAGED


def frontmatter_schema() -> dict[str, Any]:
    generated = ContractFrontmatter.model_json_schema(by_alias=True, mode="validation")
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": f"urn:heinzel:contract-frontmatter:{SCHEMA_VERSION}",
        **generated,
    }


def render() -> str:
    return json.dumps(frontmatter_schema(), indent=2, ensure_ascii=False) + "\n"


def main(root: Path) -> int:
    for path in (root / SCHEMA_PATH, installed_schema()):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(render(), encoding="utf-8")
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(__file__).resolve().parents[2]))
