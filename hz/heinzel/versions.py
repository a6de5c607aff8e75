"""A Heinzelmännchen's one contract, in versions: `<id>/contract/v<n>.prose.md` plus its compiled form.

Every version is kept: the text as approved (`v<n>.prose.md`), and beside it `v<n>.json` with the
compiled frontmatter and the fingerprints (intent = `contract_fingerprint`). Proposed amendments wait
as `amendments/<amendment id>.prose.md` until they are approved (then they become the next version) or
declined. The spine records only versions, ids and fingerprints; the texts live here.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from hz.errors import HzError
from hz.fsio import atomic_write, new_private_dir

if TYPE_CHECKING:
    from hz.contract.load import Contract

CONTRACT = "contract"
AMENDMENTS = "amendments"


class ContractInvalid(HzError):
    """A contract text that does not compile; the message holds its diagnostics."""


DAMAGED_COPY = "the copy in hz's home is damaged: restore it, or retire the agent and create it again"


def version_path(agent_dir: Path, version: int) -> Path:
    return agent_dir / CONTRACT / f"v{version}.prose.md"


def amendment_path(agent_dir: Path, amendment_id: str) -> Path:
    return agent_dir / CONTRACT / AMENDMENTS / f"{amendment_id}.prose.md"


def compile_text(text: str, *, label: str, namespace: str, defaults: Mapping[str, Any] | None = None) -> Contract:
    """Compile with the contract loader; every error diagnostic goes into the raised message."""
    from hz.contract.load import load_text
    from hz.diagnostic import render_all

    result = load_text(text, path=label, namespace=namespace, defaults=defaults)
    if result.contract is None or not result.ok:
        errors = [d for d in result.diagnostics if d.is_error]
        raise ContractInvalid(f"the contract does not compile:\n{render_all(errors)}")
    return result.contract


def assets_of(contract: Contract) -> list[str]:
    return sorted({output.target for output in contract.frontmatter.hz.outputs.values()})


def inputs_of(contract: Contract) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for name, spec in contract.frontmatter.hz.inputs.items():
        source = spec.source
        found[name] = [source] if isinstance(source, str) else list(source)
    return found


def facts(contract: Contract) -> dict[str, Any]:
    """What the spine records about a compiled version: fingerprints, assets, watched inputs."""
    return {
        "contract_fingerprint": contract.contract_fingerprint,
        "source_fingerprint": contract.source_fingerprint,
        "assets": assets_of(contract),
        "inputs": inputs_of(contract),
    }


def store_version(agent_dir: Path, version: int, text: str, contract: Contract, *, sync: bool = True) -> None:
    """The version's text and what it compiled to; `sync=False` inside a derivation (hz.session.derived)."""
    compiled = {
        "version": version,
        "name": contract.name,
        "contract_fingerprint": contract.contract_fingerprint,
        "source_fingerprint": contract.source_fingerprint,
        "section_fingerprints": dict(contract.section_fingerprints),
        "frontmatter": contract.frontmatter.model_dump(mode="json", by_alias=True),
    }
    made = not sync and version == 1  # a new agent's first version: its folder made once, not looked at thrice
    if made:
        new_private_dir(agent_dir / CONTRACT)
    atomic_write(version_path(agent_dir, version), text, sync=sync, folder_made=made)
    payload = orjson.dumps(compiled, option=orjson.OPT_INDENT_2)
    atomic_write(agent_dir / CONTRACT / f"v{version}.json", payload, sync=sync, folder_made=made)


def read_version(agent_dir: Path, version: int) -> str:
    """A stored version's text. A damaged copy (a FIFO, a device, a folder, bytes that are not UTF-8 in
    its place) is an error that names the file, never a hang or a crash."""
    from hz.textfile import read_text_file

    path = version_path(agent_dir, version)
    if not path.exists():
        raise HzError(f"contract v{version} is missing from {agent_dir / CONTRACT}")
    return read_text_file(path, hint=DAMAGED_COPY)


def load_version(agent_dir: Path, version: int, namespace: str) -> Contract:
    path = version_path(agent_dir, version)
    return compile_text(read_version(agent_dir, version), label=str(path), namespace=namespace)
