"""Stage 3 across contracts: HZC201, HZC202, HZC203, and a broken contract never stopping the others."""

from __future__ import annotations

import os
from pathlib import Path

from hz.contract.project import Compiled, compile_repository
from hz.diagnostic import Diagnostic

from .contracts import line_of, write


def compile_here(root: Path) -> Compiled:
    return compile_repository(root, os.environ, cwd=root)


def coded(compiled: Compiled, code: str) -> list[Diagnostic]:
    return [d for d in compiled.diagnostics if d.code == code]


def enabled(compiled: Compiled) -> dict[str, bool]:
    return {c.qualified_name: c.enabled for c in compiled.in_layer("team")}


def test_a_chain_compiles_with_heights(repo: Path) -> None:
    flows = repo / "workflows"
    write(flows, "digest")
    write(flows, "notes", inputs={"digest": "contract:team/digest#summary"})
    write(flows, "release", inputs={"notes": "contract:notes"})  # bare name, every facet
    compiled = compile_here(repo)
    assert compiled.diagnostics == ()
    assert [(c.qualified_name, c.height, c.enabled) for c in compiled.in_layer("team")] == [
        ("team:digest", 0, True),
        ("team:notes", 1, True),
        ("team:release", 2, True),
    ]
    assert [(e.source, e.target, e.facet) for e in compiled.graph.edges] == [
        ("team:digest", "team:notes", "summary"),
        ("team:notes", "team:release", ""),
    ]


def test_a_cycle_is_hzc201_on_each_member_and_disables_exactly_cycle_and_downstream(repo: Path) -> None:
    flows = repo / "workflows"
    write(flows, "source")
    a = write(flows, "a", inputs={"up": "contract:team/source#summary", "b": "contract:team/b#summary"})
    b = write(flows, "b", inputs={"a": "contract:team/a#summary"})
    below = write(flows, "below", inputs={"b": "contract:team/b#summary"})
    write(flows, "beside", inputs={"up": "contract:team/source#summary"})
    compiled = compile_here(repo)
    closes = "this input closes a cycle: team:a -> team:b -> team:a"
    assert [(d.path, d.line, d.message) for d in coded(compiled, "HZC201")] == [
        ("workflows/a.prose.md", line_of('"contract:team/b', a), closes),
        ("workflows/b.prose.md", line_of('"contract:team/a', b), closes),
        ("workflows/below.prose.md", line_of('"contract:team/b', below),
         "reads team:b, which is on or below the cycle team:a -> team:b -> team:a; disabled"),
    ]  # fmt: skip
    assert enabled(compiled) == {
        "team:source": True,
        "team:beside": True,
        "team:a": False,
        "team:b": False,
        "team:below": False,
    }
    assert compiled.get("below").disabled == "downstream of cycle team:a -> team:b -> team:a"


def test_self_read_is_allowed_outside_on_and_a_cycle_inside_it(repo: Path) -> None:
    flows = repo / "workflows"
    inputs = {"commits": "git:log", "own": "contract:team/roadmap#summary"}
    write(flows, "roadmap", inputs=inputs, on=["commits"])
    looping = write(flows, "looping", inputs={"own": "contract:team/looping#summary"})
    compiled = compile_here(repo)
    assert [(d.path, d.line, d.message) for d in coded(compiled, "HZC201")] == [
        ("workflows/looping.prose.md", line_of('"contract:', looping),
         "this input closes a cycle: team:looping -> team:looping"),
    ]  # fmt: skip
    assert enabled(compiled) == {"team:roadmap": True, "team:looping": False}


def test_unknown_contract_facet_and_malformed_reference_are_hzc202(repo: Path) -> None:
    flows = repo / "workflows"
    write(flows, "digest")
    ghost = write(flows, "ghost", inputs={"x": "contract:team/digets#summary"})
    facet = write(flows, "facet", inputs={"x": "contract:team/digest#sumary"})
    shape = write(flows, "shape", inputs={"x": "contract:Team/Digest"})
    compiled = compile_here(repo)
    assert [(d.path, d.line, d.message, d.hint) for d in coded(compiled, "HZC202")] == [
        ("workflows/facet.prose.md", line_of('"contract:', facet), "team:digest maintains no facet 'sumary'",
         "did you mean 'summary'?"),
        ("workflows/ghost.prose.md", line_of('"contract:', ghost),
         "'contract:team/digets#summary' names a contract that no layer defines", "did you mean 'team/digest'?"),
        ("workflows/shape.prose.md", line_of('"contract:', shape), "'contract:Team/Digest' is not a contract reference",
         "write contract:<namespace>/<name>#<facet>, such as contract:team/weekly-digest#summary"),
    ]  # fmt: skip
    assert enabled(compiled) == {"team:digest": True, "team:facet": False, "team:ghost": False, "team:shape": False}


def test_a_broken_contract_disables_only_its_dependents(repo: Path) -> None:
    flows = repo / "workflows"
    write(flows, "broken", text="---\nname: broken\n---\n")
    reader = write(flows, "reader", inputs={"x": "contract:team/broken#summary"})
    further = write(flows, "further", inputs={"x": "contract:team/reader#summary"})
    write(flows, "fine")
    compiled = compile_here(repo)
    assert [(d.path, d.line, d.message) for d in coded(compiled, "HZC202")] == [
        ("workflows/further.prose.md", line_of('"contract:', further),
         "reads team:reader, which does not compile or depends on one that does not; disabled"),
        ("workflows/reader.prose.md", line_of('"contract:', reader),
         "reads team:broken, which does not compile or depends on one that does not; disabled"),
    ]  # fmt: skip
    assert coded(compiled, "HZC002")[0].path == "workflows/broken.prose.md"
    assert enabled(compiled) == {"team:fine": True, "team:broken": False, "team:reader": False, "team:further": False}
    assert compiled.get("further").disabled == "depends on team:broken, which does not compile"


def test_team_contract_depending_on_a_personal_one_is_hzc203(repo: Path) -> None:
    flows = repo / "workflows"
    write(flows, "mine", scope="personal")
    ours = write(flows, "ours", inputs={"x": "contract:team/mine#summary"})
    write(flows, "also-mine", scope="personal", inputs={"x": "contract:team/mine#summary"})
    compiled = compile_here(repo)
    assert coded(compiled, "HZC203") == [
        Diagnostic(
            "workflows/ours.prose.md",
            line_of('"contract:', ours),
            15,
            "HZC203",
            "error",
            "hz.inputs.x.source",
            "a team contract depends on the personal contract team:mine",
            "team contracts run for everyone; make the upstream scope: team, or this one personal",
        )
    ]
    assert enabled(compiled) == {"team:mine": True, "team:also-mine": True, "team:ours": False}


def test_a_contract_linking_outside_the_repository_is_not_read(repo: Path, tmp_path: Path) -> None:
    outside = write(tmp_path / "elsewhere", "digest")
    (repo / "workflows").mkdir()
    (repo / "workflows" / "digest.prose.md").symlink_to(outside)
    compiled = compile_here(repo)
    assert compiled.diagnostics == (
        Diagnostic(
            "workflows/digest.prose.md",
            1,
            1,
            "HZC001",
            "error",
            "file",
            "the file is a link that leads outside the repository; hz does not read it",
            "copy the contract in instead",
        ),
    )
    assert not compiled.get("digest").enabled
