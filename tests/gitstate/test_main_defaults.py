"""Roles on `main` count `workflows/_defaults.yaml`: a contract whose owner comes from the defaults has one.

Found with `hz init`, which writes the owner into `_defaults.yaml`: the claim (and the hook, which reads
`main` the same way) saw no owner, so even the owner's tick said "not a member of it".
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pygit2

from hz.gitstate.lint_contracts import MainContracts, role_problem

ID = "01JD8Z6Q4W3N5V7X9Y2B4C6D8F"


def contract(name: str, contract_id: str, owner_line: str = "") -> str:
    return (
        f"---\nname: {name}\nkind: responsibility\nid: {contract_id}\ndescription: A page.\nhz:\n  schema: 1\n"
        f"  title: Page\n{owner_line}  scope: team\n  outputs:\n    page:\n      target: state:p.md\n"
        "      facets: [summary]\n---\n"
    )


def main_with(tmp_path: Path, files: dict[str, str]) -> pygit2.Repository:
    repo = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
    for name, text in files.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text)
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True)
    subprocess.run(["git", "commit", "-q", "-m", "main"], cwd=repo, check=True)
    return pygit2.Repository(str(repo))


def test_owner_and_maintainers_from_the_defaults_give_roles(tmp_path: Path) -> None:
    other = "01JD8Z6Q4W3N5V7X9Y2B4C6D8G"
    repo = main_with(tmp_path, {
        "workflows/_defaults.yaml": 'hz:\n  owner: "@alice"\n  maintainers: ["@bob"]\n  tz: UTC\n',
        "workflows/digest.prose.md": contract("digest", ID),
        "workflows/notes.prose.md": contract("notes", other, '  owner: "@carol"\n'),  # its own owner wins
    })  # fmt: skip
    main = MainContracts.read(repo, strict=True)
    assert main is not None
    digest, notes = main.declared[f"hz-{ID}"], main.declared[f"hz-{other}"]
    assert (digest.owner, digest.maintainers) == ("@alice", frozenset({"@bob"}))
    assert (notes.owner, notes.maintainers) == ("@carol", frozenset({"@bob"}))
    assert role_problem(digest, "@alice/m-1a2b3c4d", "owner") is None
    assert role_problem(digest, "@bob/m-1a2b3c4d", "delegate") is None


def test_broken_defaults_give_no_role_and_no_crash(tmp_path: Path) -> None:
    repo = main_with(tmp_path, {"workflows/_defaults.yaml": "hz: [", "workflows/digest.prose.md": contract("d", ID)})
    main = MainContracts.read(repo, strict=True)
    assert main is not None and main.declared[f"hz-{ID}"].owner is None
