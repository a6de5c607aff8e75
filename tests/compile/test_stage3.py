"""Stage 3 against the registry and the policies: HZC012-015, HZC017, HZC018, each at its YAML line."""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path

from hz.contract.project import Compiled, compile_repository
from hz.diagnostic import Diagnostic

from .contracts import line_of, write

NOW = datetime(2026, 6, 1, 12, tzinfo=UTC)


def compile_here(root: Path) -> Compiled:
    return compile_repository(root, os.environ, now=NOW, cwd=root)


def only(compiled: Compiled, code: str) -> Diagnostic:
    found = [d for d in compiled.diagnostics if d.code == code]
    assert len(found) == 1, compiled.diagnostics
    return found[0]


def publishes(action: str, auto_approve: str | None = None) -> str:
    extra = f"\n      auto_approve: {auto_approve}" if auto_approve else ""
    return f"  publishes:\n    - action: {action}\n      output: page\n      target: state:out/page.md{extra}\n"


def test_unknown_publish_action_is_hzc012_with_a_suggestion(repo: Path) -> None:
    path = write(repo / "workflows", "digest", extra=publishes("state.file.wrte"))
    compiled = compile_here(repo)
    assert only(compiled, "HZC012") == Diagnostic(
        "workflows/digest.prose.md",
        line_of("action: state", path),
        15,
        "HZC012",
        "error",
        "hz.publishes[0].action",
        "'state.file.wrte' is not a write operation hz knows",
        "did you mean 'state.file.write'?",
    )
    assert not compiled.get("digest").enabled


def test_read_only_publish_action_is_hzc013(repo: Path) -> None:
    path = write(repo / "workflows", "digest", extra=publishes("git.log.read"))
    found = only(compile_here(repo), "HZC013")
    assert (found.line, found.loc, found.message) == (
        line_of("action: git", path),
        "hz.publishes[0].action",
        "'git.log.read' only reads; a publish action must write",
    )


def test_unknown_or_writing_hz_tool_is_hzc014(repo: Path) -> None:
    tools = '  tools: ["hz:git.log.read", "hz:state.file.write", "hz:git.log.raed", "cli:jq"]\n'
    path = write(repo / "workflows", "digest", extra=tools)
    found = [d for d in compile_here(repo).diagnostics if d.code == "HZC014"]
    line = line_of("  tools:", path)
    assert [(d.line, d.loc, d.message, d.hint) for d in found] == [
        (line, "hz.tools[1]", "'state.file.write' writes; a tool may only read",
         "writes happen only through hz.publishes, after approval"),
        (line, "hz.tools[2]", "'git.log.raed' is not an operation hz knows", "did you mean 'git.log.read'?"),
    ]  # fmt: skip


def test_unknown_source_scheme_is_hzc015_with_a_suggestion(repo: Path) -> None:
    path = write(repo / "workflows", "digest", inputs={"items": "fed:https://example.invalid/rss"})
    found = only(compile_here(repo), "HZC015")
    assert (found.line, found.column, found.loc, found.message, found.hint) == (
        line_of('source: "fed:', path),
        15,
        "hz.inputs.items.source",
        "no source provider for 'fed:'; install the module that reads it",
        "did you mean 'feed:'?",
    )


def test_source_list_points_at_the_offending_item(repo: Path) -> None:
    path = write(repo / "workflows", "digest", inputs={"items": ["git:log", "gdoc:abc"]})
    found = only(compile_here(repo), "HZC015")
    assert (found.line, found.loc) == (line_of("source: [", path), "hz.inputs.items.source[1]")


def test_team_contract_reading_file_is_hzc017(repo: Path) -> None:
    path = write(repo / "workflows", "digest", inputs={"notes": "file:NOTES.md"})
    found = only(compile_here(repo), "HZC017")
    assert (found.line, found.severity, found.message) == (
        line_of('source: "file:', path),
        "error",
        "a team contract reads 'file:', which only the local machine can see",
    )


def test_personal_contract_may_read_file(repo: Path) -> None:
    write(repo / "workflows", "digest", scope="personal", inputs={"notes": "file:NOTES.md"})
    compiled = compile_here(repo)
    assert compiled.diagnostics == ()
    assert compiled.get("team:digest").enabled


POLICY = """\
[policy.digest-auto]
owner = "@alice"
action = "state.file.write"
scope = "team"
expires = {expires}
"""


def with_policy(repo: Path, text: str) -> None:
    (repo / "policies").mkdir()
    (repo / "policies" / "auto-approve.toml").write_text(text, encoding="utf-8")


def test_auto_approve_with_a_live_matching_policy_is_quiet(repo: Path) -> None:
    with_policy(repo, POLICY.format(expires="2026-06-01"))  # inclusive: still live on that day
    write(repo / "workflows", "digest", extra=publishes("state.file.write", "digest-auto"))
    assert compile_here(repo).diagnostics == ()


def test_auto_approve_without_a_policy_is_hzc018_warning(repo: Path) -> None:
    path = write(repo / "workflows", "digest", extra=publishes("state.file.write", "digest-auto"))
    compiled = compile_here(repo)
    assert only(compiled, "HZC018") == Diagnostic(
        "workflows/digest.prose.md",
        line_of("auto_approve:", path),
        21,
        "HZC018",
        "warning",
        "hz.publishes[0].auto_approve",
        "no policy 'digest-auto' in policies/auto-approve.toml; publishing falls back to manual approval",
        "add or renew [policy.digest-auto] in policies/auto-approve.toml, or drop auto_approve",
    )
    assert compiled.ok and compiled.get("digest").enabled


def test_expired_and_mismatched_policies_are_hzc018(repo: Path) -> None:
    with_policy(repo, POLICY.format(expires="2026-05-31"))
    write(repo / "workflows", "digest", extra=publishes("state.file.write", "digest-auto"))
    assert only(compile_here(repo), "HZC018").message == (
        "policy 'digest-auto' expired at 2026-06-01T00:00:00+00:00; publishing falls back to manual approval"
    )
    (repo / "policies" / "auto-approve.toml").write_text(
        POLICY.format(expires="2027-01-01").replace('"@alice"', '"@bob"'), encoding="utf-8"
    )
    assert only(compile_here(repo), "HZC018").message == (
        "policy 'digest-auto' is for owner @bob, not @alice; publishing falls back to manual approval"
    )


def test_a_broken_policy_file_is_hzc018_not_a_crash(repo: Path) -> None:
    with_policy(repo, "[policy.digest-auto]\nowner = '@alice'\n")
    write(repo / "workflows", "digest", extra=publishes("state.file.write", "digest-auto"))
    assert only(compile_here(repo), "HZC018").message == (
        "policies/auto-approve.toml cannot be used: [policy.digest-auto] needs action as a string;"
        " publishing falls back to manual approval"
    )
