"""`workflows/_defaults.yaml`: directory defaults for the team layer, applied before fingerprinting.

The file holds one mapping, `hz:`, whose keys fill the same keys of every team contract that leaves
them out (`owner`, `cost`, …), plus `tz`, the zone of schedules that name none. A broken file is a
diagnostic: its contracts are then loaded without defaults.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hz.contract.layers import DEFAULTS_FILE, Layer
from hz.diagnostic import Diagnostic


def load_defaults(layer: Layer) -> tuple[Mapping[str, Any] | None, list[Diagnostic]]:
    """The `hz:` mapping of the layer's `_defaults.yaml` (None when absent or broken) and what is wrong."""
    from hz.contract.yamlload import YamlProblem, load_mapping
    from hz.repo_paths import read_file

    path = layer.directory / DEFAULTS_FILE
    if not path.is_file():
        return None, []
    shown = path.relative_to(layer.base).as_posix() if layer.base is not None else str(path)
    # a team layer's file by the path rule: a committed link into .git or out, or a huge file, is not read
    raw = read_file(layer.base, shown) if layer.base is not None else path.read_bytes()
    if not isinstance(raw, bytes):
        return None, [_problem(shown, 1, 1, "HZC001", "file", f"{DEFAULTS_FILE} cannot be read: it {raw.reason}")]
    try:
        data = load_mapping(raw.decode("utf-8"))
    except YamlProblem as problem:
        return None, [_problem(shown, problem.line, problem.column, problem.code, problem.loc, problem.message)]
    except (OSError, UnicodeDecodeError) as exc:
        return None, [_problem(shown, 1, 1, "HZC001", "file", f"{DEFAULTS_FILE} cannot be read: {exc}")]
    extra = sorted(set(data) - {"hz"})
    if extra:
        return None, [_problem(shown, 1, 1, "HZC002", extra[0], f"unknown key '{extra[0]}': defaults go under hz:")]
    defaults = data.get("hz")
    if not isinstance(defaults, dict):
        return None, [_problem(shown, 1, 1, "HZC002", "hz", "hz: must be a mapping of frontmatter keys to defaults")]
    return defaults, []


def _problem(path: str, line: int, column: int, code: str, loc: str, message: str) -> Diagnostic:
    hint = f"fix {DEFAULTS_FILE}; until then team contracts load without its defaults"
    return Diagnostic(path, line, column, code, "error", loc, message, hint)
